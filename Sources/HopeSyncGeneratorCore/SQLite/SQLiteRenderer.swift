import HopeSyncSchema

/// Local SQLite migrations, through `sqlite/migration.sql.mustache`. Besides the synced columns
/// each table gets `_dirty`, the runtime's "not pushed yet" flag; migration 1 also creates
/// `_sync_cursors`, the per-table pull cursor every client runtime (Swift and Rust) shares.
package struct SQLiteRenderer: Sendable {
    let templates: TemplateSet

    package init(templates: TemplateSet) {
        self.templates = templates
    }

    package func migrationSQL(_ migration: Migration) throws -> String {
        let steps: [SQLiteStep] = migration.changes.compactMap { change in
            switch change {
            case .createTable(let table):
                SQLiteStep(createTable: tableContext(table))
            case .addColumn(let column, let table):
                SQLiteStep(addColumn: SQLiteAddedColumn(table: table.name, column: columnContext(column)))
            case .addIndex(let index, let table):
                SQLiteStep(addIndex: indexContext(index, table: table.name))
            case .replaceTriggers:
                nil // the runtime reads rules from the table list; SQLite has no triggers of ours
            case .replaceServerIndex:
                nil // a device holds one owner's rows, so its unique index is per owner already
            case .shareTable:
                nil // the table list says how a table is shared; the local tables stay as they are
            }
        }
        return try templates.render(
            SQLiteMigrationContext(
                number: String(migration.number), name: migration.name, isFirst: migration.number == 1, steps: steps,
                cleanState: String(DirtyState.clean.rawValue), dirtyState: String(DirtyState.dirty.rawValue)))
    }

    private func tableContext(_ table: Table) -> SQLiteTable {
        SQLiteTable(
            name: table.name, columns: table.syncedColumns.map(columnContext),
            indexes: table.indexes.map { indexContext($0, table: table.name) })
    }

    private func indexContext(_ index: Index, table: String) -> SQLiteIndex {
        SQLiteIndex(name: index.name, table: table, columns: index.columns.joined(separator: ", "), unique: index.isUnique)
    }

    private func columnContext(_ column: SyncedColumn) -> SQLiteColumn {
        SQLiteColumn(
            name: column.name, type: column.type.sqliteType, primaryKey: column.role == .id, notNull: !Self.isNullable(column),
            default: column.defaultValue.map(Self.literal), check: Self.check(column))
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
