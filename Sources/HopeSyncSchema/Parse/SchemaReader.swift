/// Walks the YAML tree into the model. Every `read...` method logs what is wrong and returns
/// what it could make of the rest, so one pass finds every problem; the caller throws when the
/// log is not empty.
struct SchemaReader {
    var log: DiagnosticLog
    var locations: SourceLocations
    /// Every table key under `tables`, valid or not, so references to a broken table are not
    /// also reported as references to a missing one.
    var declaredTables: [String] = []
    /// Gathered per table, checked across tables at the end.
    var indexNames: [(name: String, mark: YAMLMark)] = []
    /// Every table's Swift type name, written (`swift_name`) or made from the table's name.
    var swiftNames: [(name: String, mark: YAMLMark, table: String, isWritten: Bool)] = []
    /// Each table's `scope:` as written (with every column key the table has, readable or
    /// not), resolved once every table is read.
    var scopeDeclarations: [(table: String, node: YAMLNode, columnKeys: [String])] = []

    init(log: DiagnosticLog) {
        self.log = log
        self.locations = SourceLocations(file: log.file)
    }

    static let topLevelKeys = ["tables", "oldest_writer"]

    mutating func readSchema(_ root: YAMLNode?) -> Schema {
        let top = YAMLMark(line: 1, column: 1)
        guard let root, root.scalar?.value != .null else {
            log.error(top, "the schema is empty", hint: "start the file with 'tables:' and declare each table under it")
            return Schema(tables: [])
        }
        guard
            let fields = mapping(
                root, expected: "a mapping with the key 'tables' at the top level",
                hint: "start the file with 'tables:' and declare each table under it")
        else {
            return Schema(tables: [])
        }
        rejectUnknownKeys(fields, allowed: Self.topLevelKeys, in: "at the top level")
        guard let tablesEntry = fields.entry("tables") else {
            guard !hasMisspelling(of: "tables", in: fields, allowed: Self.topLevelKeys) else { return Schema(tables: []) }
            log.error(root.mark, "the schema has no 'tables'", hint: "add 'tables:' and declare each table under it")
            return Schema(tables: [])
        }
        guard
            let entries = mapping(
                tablesEntry.value, expected: "a mapping of tables",
                hint: "write each table as 'name:' under 'tables:', with its 'columns:' inside")
        else {
            return Schema(tables: [])
        }
        guard !entries.isEmpty else {
            log.error(tablesEntry.keyMark, "no tables are declared", hint: "declare at least one table under 'tables:'")
            return Schema(tables: [])
        }
        declaredTables = entries.map(\.key)
        var tables = entries.compactMap { readTable($0) }
        readScopes(&tables)
        checkAcrossTables()
        var oldestWriter: Int?
        if let node = fields["oldest_writer"] { oldestWriter = readOldestWriter(node) }
        return Schema(tables: tables, oldestWriter: oldestWriter)
    }

    /// A migration number: builds whose newest migration is older may no longer write.
    private mutating func readOldestWriter(_ node: YAMLNode) -> Int? {
        if case .int(let number) = node.scalar?.value, number >= 1, number <= Int64(Int32.max) { return Int(number) }
        log.error(
            node.mark, "expected a migration number (1 or more) for 'oldest_writer', found \(node.kindDescription)",
            hint: "write the number of the oldest migration a build may have been made with and still write, such as 'oldest_writer: 12'")
        return nil
    }
}

extension Array where Element == YAMLEntry {
    func entry(_ key: String) -> YAMLEntry? {
        first { $0.key == key }
    }

    subscript(key: String) -> YAMLNode? {
        entry(key)?.value
    }
}
