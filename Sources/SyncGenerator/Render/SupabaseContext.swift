import SyncSchema

/// Turns the model into the values the supabase/ templates render. Every literal that reaches
/// a template is valid SQL here (escaped by SQLLiteral); identifiers are plain lowercase names
/// (the parser refuses any other), so none needs quoting.
enum SupabaseContext {
    static func table(_ table: Table) -> ServerTable {
        let stamped = table.stampedColumns
        return ServerTable(
            table: table.name,
            lww: table.conflict == .lww,
            versionTimestamp: table.conflict.versionKind == .timestamp,
            versionInteger: table.conflict.versionKind == .integer,
            exactOrdering: table.exactOrdering,
            // The open-row rule reads the owner's rows, so it needs the lock even without
            // exact ordering: two devices opening a row at once must see each other.
            locksOwner: table.exactOrdering || table.openRowRule != nil,
            openRow: table.openRowRule.map { ServerTable.OpenRow(start: $0.start, end: $0.end) },
            columnMerge: table.mergesColumns,
            rowMerge: table.conflict == .lww && !table.mergesColumns,
            // Each a register of its own (column merge): the user's columns, then deleted_ms.
            stamped: stamped.map { NamedColumn(name: $0.name) },
            written: stamped.filter { $0.role == .user }.map { NamedColumn(name: $0.name) },
            jsonColumns: table.columns.filter { $0.type == .json }.map { NamedColumn(name: $0.name) })
    }

    /// One column definition's parts (see column.sql.mustache).
    static func column(_ column: SyncedColumn, of table: Table) -> ColumnContext {
        var values: [String] = []
        if case .enumeration(let names) = column.type { values = names.map(SQLLiteral.string) }
        return ColumnContext(
            table: table.name, name: column.name, type: column.type.postgresType, primaryKey: column.role == .id,
            notNull: !column.isNullable && column.role != .id, default: defaultExpression(column),
            isEnum: !values.isEmpty, values: values)
    }

    static func index(_ index: Index, on table: Table, replacing: Bool) -> IndexContext {
        IndexContext(table: table.name, name: index.name, columns: serverColumns(of: index), unique: index.isUnique, replacing: replacing)
    }

    /// The server holds every owner's rows, a device one owner's: a unique index is unique per
    /// owner on the server (`user_id` first), as each device enforces it, so one user's write
    /// never fails on, and so never reveals, another user's value.
    static func serverColumns(of index: Index) -> [String] {
        guard index.isUnique, index.columns.first != ReservedColumn.owner else { return index.columns }
        return [ReservedColumn.owner] + index.columns
    }

    /// The index every pull uses: an owner's rows in server_seq order.
    static func pullIndexName(_ table: Table) -> String { "\(table.name)_user_id_server_seq_idx" }

    private static func defaultExpression(_ column: SyncedColumn) -> String? {
        switch column.role {
        case .owner: return "auth.uid()"
        case .version: return column.type == .timestamp ? "now()" : "1"
        default: break
        }
        switch column.defaultValue {
        case nil: return nil
        case .text(let text): return SQLLiteral.string(text)
        case .int(let value): return String(value)
        case .double(let value): return SQLLiteral.number(value)
        case .bool(let value): return value ? "true" : "false"
        case .now: return "now()"
        case .json(let document): return SQLLiteral.string(document) + "::jsonb"
        }
    }
}
