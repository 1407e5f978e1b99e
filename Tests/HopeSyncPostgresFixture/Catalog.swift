import HopeSyncPostgresClient

/// What the tests compare between two databases: everything in schema public that the
/// generated SQL makes, as text lines in a fixed order. A table's columns are listed in their
/// order (attnum), so two databases whose columns differ only in order differ: migrations
/// append each added column, and schema.sql must make the same order, since a `select *`, a
/// dump or a client reading by position sees it.
public enum Catalog {
    public static func dump(_ connection: Connection) throws -> [String] {
        var lines: [String] = []
        for (kind, query) in queries {
            for row in try connection.execute(query).rows {
                lines.append(kind + ": " + row.values.map { $0 ?? "NULL" }.joined(separator: " | "))
            }
        }
        return lines
    }

    private static let queries: [(String, String)] = [
        (
            "table",
            """
            select c.relname, c.relrowsecurity::text, c.relforcerowsecurity::text from pg_class c
            where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'S') order by 1
            """
        ),
        (
            "column",
            """
            select c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull::text,
              pg_get_expr(d.adbin, d.adrelid)
            from pg_attribute a join pg_class c on c.oid = a.attrelid
            left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
            where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
            order by c.relname, a.attnum
            """
        ),
        (
            "constraint",
            """
            select conrelid::regclass::text, conname, pg_get_constraintdef(oid) from pg_constraint
            where connamespace = 'public'::regnamespace order by 1, 2
            """
        ),
        (
            "view",
            """
            select c.relname, pg_get_viewdef(c.oid), coalesce(c.reloptions::text, '') from pg_class c
            where c.relnamespace = 'public'::regnamespace and c.relkind = 'v' order by 1
            """
        ),
        ("index", "select indexname, indexdef from pg_indexes where schemaname = 'public' order by 1"),
        (
            "trigger",
            """
            select tgrelid::regclass::text, tgname, pg_get_triggerdef(oid), tgenabled::text from pg_trigger
            where not tgisinternal order by 1, 2
            """
        ),
        (
            "function",
            """
            select p.proname, pg_get_functiondef(p.oid) from pg_proc p
            where p.pronamespace = 'public'::regnamespace order by 1
            """
        ),
        (
            "policy",
            """
            select tablename, policyname, cmd, roles::text, coalesce(qual, ''), coalesce(with_check, '')
            from pg_policies where schemaname = 'public' order by 1, 2
            """
        ),
        (
            "grant",
            """
            select c.relname, g.grantee::regrole::text, g.privilege_type from pg_class c,
              aclexplode(c.relacl) g
            where c.relnamespace = 'public'::regnamespace order by 1, 2, 3
            """
        ),
    ]
}

extension Catalog {
    /// What tells two dumps apart, for a failure message: the lines only one of them has, or,
    /// when they hold the same lines, the first place their order differs.
    public static func difference(_ actual: [String], from expected: [String]) -> String {
        let missing = expected.filter { !actual.contains($0) }
        let extra = actual.filter { !expected.contains($0) }
        if !missing.isEmpty || !extra.isEmpty {
            return (missing.map { "- " + $0 } + extra.map { "+ " + $0 }).map { String($0.prefix(300)) }.joined(separator: "\n")
        }
        guard let index = actual.indices.first(where: { actual[$0] != expected[$0] }) else { return "the same" }
        return
            "same lines, another order from line \(index): \(String(actual[index].prefix(300))) where \(String(expected[index].prefix(300)))"
    }
}
