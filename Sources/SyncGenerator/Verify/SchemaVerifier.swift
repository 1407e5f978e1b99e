import Postgres
import SyncSchema

/// Compares a live database with the schema: every table, column (and its type), trigger,
/// policy, index, grant, the sequence and row-level security. Each finding carries the
/// migration that makes the missing object and the exact SQL of it, rendered by the same
/// templates as the migration files. Extra server columns are notes: old columns are kept on
/// purpose, since clients in the field may still send them.
public struct SchemaVerifier: Sendable {
    public let renderer: SupabaseRenderer

    public init(renderer: SupabaseRenderer) {
        self.renderer = renderer
    }

    /// Connects with a libpq URL and verifies. Throws ``PostgresError`` when it cannot connect
    /// or read the catalog (the message never holds the password).
    public func verify(_ schema: Schema, migrations: [Migration], databaseURL: String) throws -> VerificationReport {
        try verify(schema, migrations: migrations, connection: try Connection(url: databaseURL))
    }

    public func verify(_ schema: Schema, migrations: [Migration], connection: Connection) throws -> VerificationReport {
        let catalog = try LiveCatalog(reading: connection)
        let history = MigrationHistory(migrations: migrations)
        var findings = try sequenceFindings(catalog, history)
        for table in schema.tables {
            findings += try tableFindings(table, catalog, history)
        }
        return VerificationReport(findings: findings, tables: schema.tables.map(\.name))
    }

    private func sequenceFindings(_ catalog: LiveCatalog, _ history: MigrationHistory) throws -> [Finding] {
        let name = "sync_server_seq"
        let first = history.migrations.first { $0.steps.contains { $0.createdTable != nil } }
        if !catalog.sequences.contains(name) {
            return [Finding(table: nil, kind: .sequence, message: "sequence public.\(name)",
                            migration: first?.fileStem, fix: try renderer.sequenceSQL())]
        }
        let sql = try renderer.sequenceSQL()
        for (function, body) in FunctionBodies.in(sql).sorted(by: { $0.key < $1.key }) where catalog.functions[function] != body {
            let state = catalog.functions[function] == nil ? "missing" : "outdated"
            return [Finding(table: nil, kind: .function, message: "function public.\(function) (\(state))",
                            migration: first?.fileStem, fix: sql)]
        }
        if catalog.grants[name]?["authenticated"]?.contains("USAGE") != true {
            return [Finding(table: nil, kind: .grant, message: "usage on sequence public.\(name) for authenticated",
                            migration: first?.fileStem, fix: try renderer.sequenceSQL())]
        }
        return []
    }

    private func tableFindings(_ table: Table, _ catalog: LiveCatalog, _ history: MigrationHistory) throws -> [Finding] {
        let created = history.creating(table: table.name)?.fileStem
        guard let rowLevelSecurity = catalog.tables[table.name] else {
            return [Finding(table: table.name, kind: .table, message: "table public.\(table.name)",
                            migration: created, fix: try renderer.tableSQL(table, upgrading: false))]
        }
        var findings: [Finding] = []
        func missing(_ kind: Finding.Kind, _ message: String, _ migration: Migration?, _ fix: String) {
            findings.append(Finding(table: table.name, kind: kind, message: message, migration: migration?.fileStem, fix: fix))
        }

        let live = catalog.columns[table.name] ?? [:]
        for column in table.syncedColumns {
            let type = Self.catalogType(column.type)
            let migration = history.adding(column: column.name, to: table.name)
            guard let found = live[column.name] else {
                missing(.column, "column \(column.name) (\(type))", migration, try renderer.addColumnSQL(column, to: table))
                continue
            }
            if found.type != type {
                missing(.columnType, "column \(column.name) is \(found.type), expected \(type)", migration,
                        "alter table public.\(table.name) alter column \(column.name) type \(SupabaseContext.sqlType(column.type))"
                            + " using \(column.name)::\(SupabaseContext.sqlType(column.type));")
            }
        }
        let expected = Set(table.syncedColumns.map(\.name))
        for (name, column) in live.sorted(by: { $0.key < $1.key }) where !expected.contains(name) {
            findings.append(Finding(table: table.name, kind: .extraColumn,
                                    message: "extra column \(name) (\(column.type)) on the server, not in schema.yaml; clients ignore it"))
        }

        let triggers = catalog.triggers[table.name] ?? [:]
        let triggerMigration = history.lastWritingTriggers(of: table.name)
        for name in Self.triggerNames(table) where triggers[name] != true {
            let state = triggers[name] == false ? "disabled" : "missing"
            missing(.trigger, "trigger \(name)\(state == "disabled" ? " (disabled)" : "")", triggerMigration,
                    try renderer.triggersSQL(table, replacing: false)
                        + (state == "disabled" ? "\nalter table public.\(table.name) enable trigger \(name);" : ""))
        }

        let triggerSQL = try renderer.triggersSQL(table, replacing: false)
        for (function, body) in FunctionBodies.in(triggerSQL).sorted(by: { $0.key < $1.key }) {
            guard let live = catalog.functions[function], live != body else { continue }
            missing(.function, "function \(function) differs from what schema.yaml makes now (outdated)", triggerMigration, triggerSQL)
        }

        let access = try renderer.accessSQL(table)
        let creating = history.creating(table: table.name)
        if !rowLevelSecurity {
            missing(.rowLevelSecurity, "row-level security is disabled", creating, access)
        }
        let policies = catalog.policies[table.name] ?? []
        for action in ["select", "insert", "update"] where !policies.contains("\(table.name)_\(action)_own") {
            missing(.policy, "policy \(table.name)_\(action)_own", creating, access)
        }
        let granted = catalog.grants[table.name]?["authenticated"] ?? []
        let lacking = ["SELECT", "INSERT", "UPDATE"].filter { !granted.contains($0) }
        if !lacking.isEmpty {
            missing(.grant, "\(lacking.joined(separator: ", ").lowercased()) for authenticated", creating, access)
        }

        let indexes = catalog.indexes[table.name] ?? []
        for index in [renderer.pullIndex(table)] + table.indexes where !indexes.contains(index.name) {
            missing(.index, "index \(index.name)", history.adding(index: index.name, on: table.name), try renderer.indexSQL(index, on: table))
        }
        return findings
    }

    static func triggerNames(_ table: Table) -> [String] {
        var names = ["\(table.name)_before_write"]
        if table.exactOrdering || table.openRowRule != nil { names.append("\(table.name)_lock_owner") }
        if table.conflict.versionKind == .timestamp { names.append("\(table.name)_updated_at") }
        if table.openRowRule != nil { names.append("\(table.name)_after_write") }
        return names
    }

    /// The type as `format_type` prints it.
    static func catalogType(_ type: ColumnType) -> String {
        switch type {
        case .timestamp: "timestamp with time zone"
        default: SupabaseContext.sqlType(type)
        }
    }
}
