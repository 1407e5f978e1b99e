/// `backfill: "<expression>"` on a column (decision 0053): PostgreSQL the server runs once, so
/// the parser only checks that there is some; PostgreSQL checks the rest when it runs.
extension SchemaReader {
    mutating func readBackfill(_ node: YAMLNode, column: String) -> String? {
        let example = "write it as a quoted PostgreSQL expression over the row's columns, such as 'backfill: \"upper(left(title, 1))\"'"
        guard case .string(let text) = node.scalar?.value else {
            log.error(
                node.mark, "expected an expression for 'backfill' of column '\(column.abbreviated)', found \(node.kindDescription)",
                hint: example)
            return nil
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            log.error(node.mark, "the backfill of column '\(column.abbreviated)' is empty", hint: example)
            return nil
        }
        return text
    }
}
