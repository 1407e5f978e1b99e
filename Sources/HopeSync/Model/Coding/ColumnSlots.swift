/// A row's values by column name. Synthesized Codable visits keys in declaration order, which is
/// column order (asking about an optional key up to three times), so a lookup first tries the
/// slot last found, then the one after it.
struct ColumnSlots {
    let columns: [String]
    var values: [SyncValue]
    private var next = 0

    init(columns: [String], values: [SyncValue]? = nil) {
        self.columns = columns
        self.values = values ?? Array(repeating: .null, count: columns.count)
    }

    mutating func index(of column: String) -> Int? {
        if next > 0, columns[next - 1] == column { return next - 1 }
        if next < columns.count, columns[next] == column {
            next += 1
            return next - 1
        }
        guard let found = columns.firstIndex(of: column) else { return nil }
        next = found + 1
        return found
    }
}
