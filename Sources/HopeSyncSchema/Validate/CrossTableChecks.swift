/// Names that must be unique across the whole schema, checked once every table is read.
extension SchemaReader {
    mutating func checkAcrossTables() {
        // PostgreSQL keeps tables and indexes in one namespace per schema, SQLite likewise.
        var seenIndexes: [String: YAMLMark] = [:]
        for (name, mark) in indexNames {
            if declaredTables.contains(name) {
                log.error(
                    mark, "index name '\(name)' is also a table name",
                    hint: "tables and indexes share one namespace; give the index another 'name:'")
            } else if let first = seenIndexes[name] {
                log.error(
                    mark, "duplicate index name '\(name)'",
                    hint: "the index at line \(first.line) has this name already; give one of them another 'name:'")
            } else {
                seenIndexes[name] = mark
            }
        }
        var seenSwiftNames: [String: (mark: YAMLMark, table: String)] = [:]
        for (name, mark, table, isWritten) in swiftNames {
            // A name made from the table's name is reported at the table, with the fix.
            let madeName = "table '\(table)' would be the Swift type '\(name)'"
            if let first = seenSwiftNames[name] {
                log.error(
                    mark, isWritten ? "duplicate swift_name '\(name)'" : "\(madeName), as table '\(first.table)' is",
                    hint: "table '\(first.table)' at line \(first.mark.line) uses it already; give '\(table)' another swift_name"
                )
            } else if !isWritten, SwiftName.reserved.contains(name) {
                log.error(mark, "\(madeName), which is reserved in Swift", hint: "set 'swift_name:' (for example '\(name)Row')")
            } else if let owner = SwiftName.taken[name] {
                log.error(
                    mark, isWritten ? "swift_name '\(name)' would shadow \(owner)" : "\(madeName), which shadows \(owner)",
                    hint: "apps would find every use of \(owner) ambiguous; set 'swift_name:' (for example '\(name)Item')"
                )
            } else {
                seenSwiftNames[name] = (mark, table)
            }
        }
    }
}
