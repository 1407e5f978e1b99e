import HopeSyncSchema

/// What a table's server code depends on: its conflict rule, ordering and rules. Both
/// `supabase/triggers.sql.mustache` and `supabase/table.sql.mustache` receive it.
struct ServerTable: TemplateObject {
    var table: String
    var lww: Bool
    var versionTimestamp: Bool
    var versionInteger: Bool
    var exactOrdering: Bool
    var locksOwner: Bool
    var openRow: OpenRow?
    var columnMerge: Bool
    var rowMerge: Bool
    var stamped: [NamedColumn]
    var written: [NamedColumn]
    var jsonColumns: [NamedColumn]
    var renamed: [RenamedColumn]
    var retiredCopies: [RenamedColumn]
    var sharing: ServerSharing?

    struct OpenRow: TemplateObject {
        var start: String
        var end: String

        static var fields: [TemplateField<Self>] {
            [
                .init("start", "the column holding a row's start", \.start),
                .init("end", "the column holding its end (NULL while open)", \.end),
            ]
        }
    }

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("lww", "last writer wins on (updated_ms, device_id)", \.lww),
            .init("versionTimestamp", "a version table whose updated_at moddatetime moves", \.versionTimestamp),
            .init("versionInteger", "a version table whose integer version the trigger bumps", \.versionInteger),
            .init("exactOrdering", "exact_ordering: true", \.exactOrdering),
            .init("locksOwner", "takes the owner's lock (exact ordering, or the open-row rule)", \.locksOwner),
            .init("openRow", "the one-open-row-per-owner rule, when the table has it", \.openRow),
            .init("columnMerge", "lww, merged column by column (`column_stamps`)", \.columnMerge),
            .init("rowMerge", "lww, the whole row at once (`merge: row`)", \.rowMerge),
            .init("stamped", "the columns with a stamp each under column merge: the user's, then deleted_ms", \.stamped),
            .init("written", "the user's stamped columns (without deleted_ms)", \.written),
            .init("jsonColumns", "the json columns, whose nesting depth the trigger limits", \.jsonColumns),
            .init("renamed", "the columns renamed but not finished: both names kept equal (decision 0052)", \.renamed),
            .init(
                "retiredCopies", "the finished renames: `was`, the retired old name, gets the stamp of `name`, the column it copies",
                \.retiredCopies),
            .init("sharing", "how the rows are shared, for a shared table (decision 0048)", \.sharing),
        ]
    }
}

struct NamedColumn: TemplateObject {
    var name: String

    static var fields: [TemplateField<Self>] { [.init("name", "the column's name", \.name)] }
}

extension ServerTable {
    /// Every literal that reaches a template is valid SQL here (escaped by SQLLiteral);
    /// identifiers are plain lowercase names (the parser refuses any other), so none needs quoting.
    /// `schema` lists the tables that follow this one or that its scopes hold (for a shared table).
    init(_ table: Table, in schema: Schema? = nil) {
        // The server's columns: a deprecated column and a renamed one's old name are still written.
        let stamped = table.serverStampedColumns
        self.init(
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
            rowMerge: table.mergesWholeRows,
            // Each a register of its own (column merge): the user's columns, then deleted_ms.
            stamped: stamped.map { NamedColumn(name: $0.name) },
            written: stamped.filter { $0.role == .user }.map { NamedColumn(name: $0.name) },
            jsonColumns: table.serverColumns.filter { $0.role == .user && $0.type == .json && !$0.isRetired }.map {
                NamedColumn(name: $0.name)
            },
            renamed: table.columns.filter { $0.was != nil }.map(RenamedColumn.init),
            retiredCopies: table.retired.compactMap { retired in retired.copies.map { RenamedColumn(name: $0, was: retired.column.name) } },
            sharing: ServerSharing(table, in: schema))
    }
}
