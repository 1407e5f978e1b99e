/// The rows a statement returned, every value in PostgreSQL's text format (nil for NULL).
public struct QueryResult: Sendable, Equatable {
    public let columns: [String]
    public let rows: [Row]
    /// Rows inserted, updated or deleted (`INSERT 0 3` -> 3); 0 for statements that change none.
    public let affectedRows: Int

    public init(columns: [String], rows: [[String?]], affectedRows: Int) {
        let indexes = Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.columns = columns
        self.rows = rows.map { Row(values: $0, indexes: indexes) }
        self.affectedRows = affectedRows
    }

    /// The first row's first value: handy for `select count(*)` and friends.
    public var scalar: String? { rows.first?.values.first ?? nil }

    public struct Row: Sendable, Equatable {
        public let values: [String?]
        let indexes: [String: Int]

        public subscript(index: Int) -> String? { values[index] }

        /// The value of the named column; nil for NULL. A name the result does not have is a
        /// programming error and traps, like an index out of range.
        public subscript(name: String) -> String? {
            guard let index = indexes[name] else { preconditionFailure("no column '\(name)' in the result") }
            return values[index]
        }
    }
}
