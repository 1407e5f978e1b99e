import HopeSync

/// The SQL of each request, with its values as `$n` text parameters (never spliced into the
/// text), each cast to its column's type as PostgREST casts a JSON value.
package struct PostgresStatement {
    package var sql: String
    package var parameters: [String?]

    /// The first statement of every request: PostgREST's role, claims (`$1`) and headers (`$3`,
    /// as `request.headers` JSON), the session settings that make timestamps read as PostgREST
    /// writes them, and the server's clock in milliseconds (the fifth value).
    package static let requestSettings = """
        select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true), \
        set_config('timezone', 'UTC', true), set_config('statement_timeout', $2, true), \
        (extract(epoch from pg_catalog.statement_timestamp()) * 1000)::bigint, set_config('request.headers', $3, true)
        """

    /// A request's headers as PostgREST hands them over (lowercase names): those of a push whose
    /// device announces the write itself (`X-Sync-Pokes: client`: the triggers skip their poke),
    /// and the build's schema version (`X-Sync-Schema`, which the writer floor checks).
    package static func headers(announcingPokes: Bool, schemaVersion: Int? = nil) -> String {
        var fields: [String] = []
        if announcingPokes { fields.append(#""x-sync-pokes":"client""#) }
        if let schemaVersion { fields.append(#""x-sync-schema":"\#(schemaVersion)""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// `insert ... on conflict (id) do update set c = excluded.c` for every column sent: one
    /// statement for the whole batch.
    package static func upsert(_ rows: [ColumnValues], into table: TableSchema) throws(SyncError) -> PostgresStatement {
        let columns = try orderedColumns(of: rows[0], in: table)
        var parameters: [String?] = []
        parameters.reserveCapacity(rows.count * columns.count)
        var tuples: [String] = []
        tuples.reserveCapacity(rows.count)
        for row in rows {
            guard row.columns.count == columns.count, columns.allSatisfy({ row[$0.name] != nil }) else {
                throw SyncError(.invalidRequest, "Rows upserted into \(table.name) together must have the same columns")
            }
            let placeholders = columns.map { column in
                parameters.append(row[column.name]!.postgresText)
                return "$\(parameters.count)::\(column.type.postgresType)"
            }
            tuples.append("(" + placeholders.joined(separator: ", ") + ")")
        }
        let updates = columns.filter { $0.name != table.primaryKey }
            .map { "\(quoted($0.name)) = excluded.\(quoted($0.name))" }
        var sql =
            "insert into \(qualified(table)) (\(columns.map { quoted($0.name) }.joined(separator: ", ")))"
            + " values " + tuples.joined(separator: ", ")
            + " on conflict (\(quoted(table.primaryKey)))"
        sql += updates.isEmpty ? " do nothing" : " do update set " + updates.joined(separator: ", ")
        // As PostgREST's `return=representation`: the rows as the triggers left them.
        sql += " returning " + selectList(table.columns, of: table)
        return PostgresStatement(sql: sql, parameters: parameters)
    }

    /// The rows past `cursor`, in server_seq order; row-level security keeps them the user's.
    package static func pull(_ table: TableSchema, sequence: String, after cursor: Int64, limit: Int) -> PostgresStatement {
        PostgresStatement(
            sql: "select \(selectList(table.columns, of: table)) from \(qualified(table))"
                + " where \(quoted(sequence)) > $1 order by \(quoted(sequence)) limit $2",
            parameters: [String(cursor), String(limit)]
        )
    }

    /// `update ... where id = $1 and <version> = $2 [and filters] returning ...`.
    package static func guardedUpdate(
        _ table: TableSchema, id: String, version: ColumnSchema, baseVersion: String,
        set values: ColumnValues, filters: [Filter], returning: [ColumnSchema]
    ) throws(SyncError) -> PostgresStatement {
        var parameters: [String?] = [id, baseVersion]
        func parameter(_ value: SyncValue, _ column: ColumnSchema) -> String {
            parameters.append(value.postgresText)
            return "$\(parameters.count)::\(column.type.postgresType)"
        }
        let assignments = try orderedColumns(of: values, in: table).map { column in
            "\(quoted(column.name)) = \(parameter(values[column.name]!, column))"
        }
        var conditions = [
            "\(quoted(table.primaryKey)) = $1::uuid",
            "\(quoted(version.name)) = $2::\(version.type.postgresType)",
        ]
        for filter in filters {
            guard let column = table.column(named: filter.column) else {
                throw SyncError(.invalidRequest, "Table \(table.name) has no column \(filter.column)")
            }
            let name = quoted(column.name)
            switch (filter.op, filter.value) {
            case (.isNull, _), (.eq, .null): conditions.append("\(name) is null")
            case (.neq, .null): conditions.append("\(name) is not null")
            case (.eq, let value): conditions.append("\(name) = \(parameter(value, column))")
            case (.neq, let value): conditions.append("\(name) <> \(parameter(value, column))")
            }
        }
        return PostgresStatement(
            sql: "update \(qualified(table)) set \(assignments.joined(separator: ", "))"
                + " where \(conditions.joined(separator: " and ")) returning \(selectList(returning, of: table))",
            parameters: parameters
        )
    }

    /// The pull function, called as PostgREST calls it: `select public.f(cursors, since, page_limit)`.
    package static func pull(function: String, cursors: String, since: Int64?, limit: Int) -> PostgresStatement {
        PostgresStatement(
            sql: "select public.\(quoted(function))($1::jsonb, $2::bigint, $3::integer)",
            parameters: [cursors, since.map(String.init), String(limit)])
    }

    /// Rows by key (`id = any(...)`, PostgREST's `id=in.(...)`).
    package static func fetch(_ table: TableSchema, ids: [String], columns: [ColumnSchema]) -> PostgresStatement {
        PostgresStatement(
            sql: "select \(selectList(columns, of: table)) from \(qualified(table))"
                + " where \(quoted(table.primaryKey)) = any($1::uuid[])",
            parameters: ["{" + ids.joined(separator: ",") + "}"]
        )
    }

    /// Columns as PostgREST writes them in JSON: a timestamptz as ISO 8601 with 'T' and the
    /// offset in full (`to_json`, in the request's UTC), so a version read here compares
    /// equal, text for text, with one read over HTTP. Names are qualified by the table, so a
    /// missing one is reported as `column <table>.<name> does not exist`.
    static func selectList(_ columns: [ColumnSchema], of table: TableSchema) -> String {
        columns.map { column in
            let name = "\(quoted(table.name)).\(quoted(column.name))"
            return column.type == .timestamp ? "to_json(\(name)) #>> '{}'" : name
        }
        .joined(separator: ", ")
    }

    /// The table's columns that `values` holds, in table order.
    private static func orderedColumns(of values: ColumnValues, in table: TableSchema) throws(SyncError) -> [ColumnSchema] {
        if let unknown = values.columns.first(where: { table.column(named: $0) == nil }) {
            throw SyncError(.invalidRequest, "Table \(table.name) has no column \(unknown)")
        }
        return table.columns.filter { values.columns.contains($0.name) }
    }

    static func qualified(_ table: TableSchema) -> String {
        "public.\(quoted(table.name))"
    }

    package static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
