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
        var steps: [SQLiteStep] = []
        for change in migration.appliedChanges {
            switch change {
            case .createTable(let table):
                steps.append(SQLiteStep(createTable: tableContext(table)))
                if let members = table.membershipTable { steps.append(SQLiteStep(createTable: tableContext(members))) }
            case .addColumn(let column, let table):
                let note = column.name == table.sharing?.scopeColumn ? table.addedScopeColumnNote : nil
                steps.append(
                    SQLiteStep(
                        addColumn: SQLiteAddedColumn(
                            table: table.name, column: columnContext(column), comments: note.map { [$0 + "."] } ?? [])))
            case .addIndex(let index, let table):
                steps.append(SQLiteStep(addIndex: indexContext(index, table: table.name)))
            case .replaceTriggers:
                break // the runtime reads rules from the table list; SQLite has no triggers of ours
            case .replaceServerIndex:
                break // a device holds one owner's rows, so its unique index is per owner already
            case .renameColumn(let column, let table):
                let retype = column.retype.map { _ in
                    SQLiteRetype(type: column.type.sqliteType, fill: column.isNullable ? nil : Self.placeholder(column.type))
                }
                steps.append(
                    SQLiteStep(
                        renameColumn: SQLiteColumnChange(
                            table: table.name, column: column.name, was: column.twin, stamped: table.mergesColumns, retype: retype)))
            case .deprecateColumn(let column, let table):
                steps.append(
                    SQLiteStep(
                        dropColumn: SQLiteColumnChange(table: table.name, column: column.name, was: nil, stamped: table.mergesColumns)))
            case .deprecateTable(let table):
                steps.append(SQLiteStep(dropTable: SQLiteDroppedTable(table: table.name)))
            case .retireColumn:
                break // devices renamed or dropped it at the step before
            case .renameTable(let table):
                let was = table.was ?? ""
                let indexes = table.indexes.compactMap { index in
                    index.name(whileNamed: was, table: table.name).map {
                        SQLiteRenamedTable.RenamedIndex(from: $0, to: indexContext(index, table: table.name))
                    }
                }
                steps.append(
                    SQLiteStep(renameTable: SQLiteRenamedTable(table: table.name, was: was, dirtyState: dirtyState, indexes: indexes)))
            case .finishTableRename:
                break // devices renamed it at the step before
            case .shareTable(let table):
                // The table list says how a table is shared; locally a scope gains its membership
                // table, and a scoped table the index a scope's rows are deleted by.
                if let members = table.membershipTable { steps.append(SQLiteStep(createTable: tableContext(members))) }
                if let index = scopeIndex(table) { steps.append(SQLiteStep(addIndex: index)) }
            }
        }
        return try templates.render(
            SQLiteMigrationContext(
                number: String(migration.number), name: migration.name, isFirst: migration.number == 1, steps: steps,
                cleanState: String(DirtyState.clean.rawValue), dirtyState: dirtyState))
    }

    private var dirtyState: String { String(DirtyState.dirty.rawValue) }

    private func tableContext(_ table: Table) -> SQLiteTable {
        SQLiteTable(
            name: table.name, comments: table.addedScopeColumnNote.map { [$0 + "."] } ?? [],
            columns: table.syncedColumns.map(columnContext),
            indexes: table.indexes.map { indexContext($0, table: table.name) } + [scopeIndex(table)].compactMap { $0 })
    }

    /// A membership table: the server's columns, `_dirty` kept for the runtime's statements over
    /// every table (it stays clean: nothing here is ever pushed), an index by scope.
    private func tableContext(_ members: MembershipTable) -> SQLiteTable {
        SQLiteTable(
            name: members.name,
            comments: ["The members of each \(members.scopeTable) row and their roles: the server writes them, a device only reads them."],
            columns: members.columns.map(columnContext),
            indexes: [
                SQLiteIndex(
                    name: Self.scopeIndexName(members.name), table: members.name, columns: ScopeMembership.scopeColumn, unique: false)
            ])
    }

    /// The index on a scoped table's scope column, by which a device deletes a scope's rows when
    /// its access ends; nil for a table that is unshared or a scope (whose scope is its id).
    private func scopeIndex(_ table: Table) -> SQLiteIndex? {
        guard let sharing = table.sharing, sharing != .scope else { return nil }
        return SQLiteIndex(name: Self.scopeIndexName(table.name), table: table.name, columns: sharing.scopeColumn, unique: false)
    }

    /// `tasks__scope_idx`: spelled like `tasks__dirty_idx`, the other local index hope-sync adds.
    static func scopeIndexName(_ table: String) -> String { "\(table)__scope_idx" }

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

    /// What a NOT NULL column added by a retype holds until the CAST fills it.
    static func placeholder(_ type: ColumnType) -> String {
        switch type {
        case .int: "0"
        case .double: "0.0"
        default: "''"
        }
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
