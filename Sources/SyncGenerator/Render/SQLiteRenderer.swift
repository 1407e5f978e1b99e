import SyncSchema

/// Local SQLite migrations, through `sqlite/migration.sql.mustache`. Besides the synced columns
/// each table gets `_dirty`, the runtime's "not pushed yet" flag; migration 1 also creates
/// `_sync_cursors`, the per-table pull cursor every client runtime (Swift and Rust) shares.
public struct SQLiteRenderer: Sendable {
    let templates: TemplateSet

    public init(templates: TemplateSet) {
        self.templates = templates
    }

    public func migrationSQL(_ migration: Migration) throws -> String {
        let steps: [TemplateValue] = migration.changes.compactMap { change in
            switch change {
            case .createTable(let table):
                ["createTable": tableContext(table)]
            case .addColumn(let column, let table):
                ["addColumn": ["table": .text(table.name), "column": columnContext(column)]]
            case .addIndex(let index, let table):
                ["addIndex": indexContext(index, table: table.name)]
            case .replaceTriggers:
                nil  // the runtime reads rules from the table list; SQLite has no triggers of ours
            case .replaceServerIndex:
                nil  // a device holds one owner's rows, so its unique index is per owner already
            }
        }
        return try templates.render("sqlite/migration.sql.mustache", [
            "number": .text(String(migration.number)),
            "name": .text(migration.name),
            "isFirst": .bool(migration.number == 1),
            "steps": .list(steps),
            // The runtime's flags for a row (SyncModel's DirtyState): the partial index holds
            // the rows waiting to be pushed.
            "cleanState": .text(String(DirtyState.clean.rawValue)),
            "dirtyState": .text(String(DirtyState.dirty.rawValue)),
        ])
    }

    private func tableContext(_ table: Table) -> TemplateValue {
        [
            "name": .text(table.name),
            "columns": .list(table.syncedColumns.map(columnContext)),
            "indexes": .list(table.indexes.map { indexContext($0, table: table.name) }),
        ]
    }

    private func indexContext(_ index: Index, table: String) -> TemplateValue {
        [
            "name": .text(index.name),
            "table": .text(table),
            "columns": .text(index.columns.joined(separator: ", ")),
            "unique": .bool(index.isUnique),
        ]
    }

    private func columnContext(_ column: SyncedColumn) -> TemplateValue {
        var context: [String: TemplateValue] = [
            "name": .text(column.name),
            "type": .text(column.type.sqliteType),
            "primaryKey": .bool(column.role == .id),
            "notNull": .bool(!Self.isNullable(column)),
        ]
        if let value = column.defaultValue { context["default"] = .text(Self.literal(value)) }
        if let check = Self.check(column) { context["check"] = .text(check) }
        return .object(context)
    }

    /// Whether the device's column may be NULL: the version column is, until the server
    /// stamps the row, whatever the server's says.
    static func isNullable(_ column: SyncedColumn) -> Bool {
        column.isNullable || column.role == .version
    }


    static func literal(_ value: DefaultValue) -> String {
        switch value {
        case .text(let text): SQLLiteral.string(text)
        case .int(let number): String(number)
        case .double(let number): SQLLiteral.number(number)
        case .bool(let flag): flag ? "1" : "0"
        case .now: "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
        case .json(let text): SQLLiteral.string(text)
        }
    }

    static func check(_ column: SyncedColumn) -> String? {
        switch column.type {
        case .bool: "\(column.name) IN (0, 1)"
        case .enumeration(let values): "\(column.name) IN (\(SQLLiteral.list(values)))"
        default: nil
        }
    }
}
