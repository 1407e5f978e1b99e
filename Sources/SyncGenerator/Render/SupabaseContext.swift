import SyncSchema

/// Turns the model into the values the supabase/ templates render. Every literal that reaches
/// a template is valid SQL here (escaped by SQLLiteral); identifiers are plain lowercase names
/// (the parser refuses any other), so none needs quoting.
enum SupabaseContext {
    static func table(_ table: Table) -> [String: TemplateValue] {
        var context: [String: TemplateValue] = [
            "table": .text(table.name),
            "lww": .bool(table.conflict == .lww),
            "versionTimestamp": .bool(table.conflict.versionKind == .timestamp),
            "versionInteger": .bool(table.conflict.versionKind == .integer),
            "exactOrdering": .bool(table.exactOrdering),
            // The open-row rule reads the owner's rows, so it needs the lock even without
            // exact ordering: two devices opening a row at once must see each other.
            "locksOwner": .bool(table.exactOrdering || table.openRowRule != nil),
        ]
        if let rule = table.openRowRule {
            context["openRow"] = ["start": .text(rule.start), "end": .text(rule.end)]
        }
        context["columnMerge"] = .bool(table.mergesColumns)
        context["rowMerge"] = .bool(table.conflict == .lww && !table.mergesColumns)
        // Each a register of its own (column merge): the user's columns, then deleted_ms.
        let stamped = table.stampedColumns
        context["stamped"] = .list(stamped.map { ["name": .text($0.name)] })
        context["written"] = .list(stamped.filter { $0.role == .user }.map { ["name": .text($0.name)] })
        context["jsonColumns"] = .list(table.columns.filter { $0.type == .json }.map { ["name": .text($0.name)] })
        return context
    }

    /// One column definition's parts (see column.sql.mustache).
    static func column(_ column: SyncedColumn, of table: Table) -> [String: TemplateValue] {
        var context: [String: TemplateValue] = [
            "table": .text(table.name),
            "name": .text(column.name),
            "type": .text(column.type.postgresType),
            "primaryKey": .bool(column.role == .id),
            "notNull": .bool(!column.isNullable && column.role != .id),
        ]
        if let value = defaultExpression(column) { context["default"] = .text(value) }
        if case .enumeration(let values) = column.type {
            context["isEnum"] = true
            context["values"] = .list(values.map { .text(SQLLiteral.string($0)) })
        }
        return context
    }

    static func index(_ index: Index, on table: Table, replacing: Bool) -> TemplateValue {
        [
            "table": .text(table.name),
            "name": .text(index.name),
            "columns": .list(serverColumns(of: index).map(TemplateValue.text)),
            "unique": .bool(index.isUnique),
            "replacing": .bool(replacing),
        ]
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
