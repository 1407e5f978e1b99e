import HopeSyncPostgresClient

/// What a live database holds in schema public, read once from the system catalogs.
struct LiveCatalog {
    struct ColumnInfo: Equatable {
        var type: String
        var isNullable: Bool
    }

    /// A policy as PostgreSQL keeps it; expressions in its own deparsed spelling.
    struct PolicyInfo: Equatable {
        var command: String
        var roles: String
        var isPermissive: Bool
        var using: String?
        var withCheck: String?
    }

    /// Table name -> row-level security enabled.
    var tables: [String: Bool] = [:]
    /// Table name -> column name -> column.
    var columns: [String: [String: ColumnInfo]] = [:]
    /// When a trigger fires and what it runs: `before` `[insert, update]` `row`
    /// `public.sessions_before_write`.
    struct TriggerInfo: Equatable {
        var timing: String
        var events: [String]
        var level: String
        /// Schema-qualified.
        var function: String
    }

    struct LiveTrigger: Equatable {
        var isEnabled: Bool
        var definition: TriggerInfo
    }

    /// Table name -> trigger name -> trigger.
    var triggers: [String: [String: LiveTrigger]] = [:]
    /// Table name -> policy name -> policy.
    var policies: [String: [String: PolicyInfo]] = [:]
    /// An index as PostgreSQL keeps it: its plain columns in order (expressions left out).
    struct IndexInfo: Equatable {
        var isUnique: Bool
        var columns: [String]
    }

    /// Table name -> index name -> index.
    var indexes: [String: [String: IndexInfo]] = [:]
    /// Relation name (table or sequence) -> grantee -> privileges.
    var grants: [String: [String: Set<String>]] = [:]
    var sequences: Set<String> = []
    /// Function name -> body (`prosrc`).
    var functions: [String: String] = [:]
    /// Function name -> the API roles (those of them the database has) that may execute it.
    var functionExecutors: [String: Set<String>] = [:]
    /// Which of Supabase's API roles (anon, authenticated, service_role) the database has.
    var apiRoles: Set<String> = []
    /// View name -> the relations it reads, and whether it runs as its caller (security invoker):
    /// a renamed table's old names (decision 0054).
    var views: [String: (reads: Set<String>, invoker: Bool)] = [:]

    init(reading connection: Connection) throws(PostgresError) {
        for row in try connection.execute(
            """
            select relname, relkind::text, relrowsecurity::text from pg_catalog.pg_class
            where relnamespace = 'public'::regnamespace and relkind in ('r', 'p', 'S')
            """
        ).rows {
            if row[1] == "S" { sequences.insert(row[0]!) } else { tables[row[0]!] = row[2] == "true" }
        }
        for row in try connection.execute(
            """
            select c.relname, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull::text
            from pg_catalog.pg_attribute a join pg_catalog.pg_class c on c.oid = a.attrelid
            where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
            """
        ).rows {
            columns[row[0]!, default: [:]][row[1]!] = ColumnInfo(type: row[2]!, isNullable: row[3] == "false")
        }
        for row in try connection.execute(
            """
            select c.relname, t.tgname, (t.tgenabled <> 'D')::text, t.tgtype::text, n.nspname || '.' || p.proname
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_proc p on p.oid = t.tgfoid
            join pg_catalog.pg_namespace n on n.oid = p.pronamespace
            where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
            """
        ).rows {
            triggers[row[0]!, default: [:]][row[1]!] = LiveTrigger(
                isEnabled: row[2] == "true", definition: TriggerInfo(type: Int(row[3]!) ?? 0, function: row[4]!))
        }
        policies = try Self.policies(inSchema: "public", on: connection)
        for row in try connection.execute(
            """
            select t.relname, i.relname, x.indisunique::text,
                   (select coalesce(string_agg(a.attname, ',' order by k.position), '')
                    from unnest(x.indkey::int2[]) with ordinality k(attnum, position)
                    join pg_catalog.pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum)
            from pg_catalog.pg_index x
            join pg_catalog.pg_class i on i.oid = x.indexrelid
            join pg_catalog.pg_class t on t.oid = x.indrelid
            where t.relnamespace = 'public'::regnamespace
            """
        ).rows {
            let columns = row[3]!.isEmpty ? [] : row[3]!.split(separator: ",").map(String.init)
            indexes[row[0]!, default: [:]][row[1]!] = IndexInfo(isUnique: row[2] == "true", columns: columns)
        }
        for row in try connection.execute(
            "select proname, prosrc from pg_catalog.pg_proc where pronamespace = 'public'::regnamespace"
        ).rows {
            functions[row[0]!] = row[1]!
        }
        for row in try connection.execute(
            "select rolname from pg_catalog.pg_roles where rolname in ('anon', 'authenticated', 'service_role')"
        ).rows {
            apiRoles.insert(row[0]!)
        }
        for row in try connection.execute(
            """
            select p.proname, r.rolname from pg_catalog.pg_proc p, pg_catalog.pg_roles r
            where p.pronamespace = 'public'::regnamespace and r.rolname in ('anon', 'authenticated', 'service_role')
              and pg_catalog.has_function_privilege(r.oid, p.oid, 'EXECUTE')
            """
        ).rows {
            functionExecutors[row[0]!, default: []].insert(row[1]!)
        }
        for row in try connection.execute(
            """
            select v.relname, coalesce(pg_catalog.array_to_string(v.reloptions, ',') ~ 'security_invoker=(true|on|1)', false)::text,
              coalesce((select pg_catalog.string_agg(distinct t.relname, ',') from pg_catalog.pg_depend d
                join pg_catalog.pg_rewrite w on w.oid = d.objid join pg_catalog.pg_class t on t.oid = d.refobjid
                where w.ev_class = v.oid and d.refobjid <> v.oid and t.relkind in ('r', 'p')), '')
            from pg_catalog.pg_class v where v.relnamespace = 'public'::regnamespace and v.relkind = 'v'
            """
        ).rows {
            views[row[0]!] = (Set(row[2]!.split(separator: ",").map(String.init)), row[1] == "true")
        }
        for row in try connection.execute(
            """
            select c.relname, g.grantee::regrole::text, g.privilege_type
            from pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) g
            where c.relnamespace = 'public'::regnamespace
            """
        ).rows {
            grants[row[0]!, default: [:]][row[1]!, default: []].insert(row[2]!)
        }
    }
}

extension LiveCatalog {
    /// Table name -> policy name -> policy, for the tables of one schema, as `pg_policies`
    /// shows them (expressions deparsed).
    static func policies(inSchema schema: String, on connection: Connection) throws(PostgresError) -> [String: [String: PolicyInfo]] {
        var policies: [String: [String: PolicyInfo]] = [:]
        for row in try connection.execute(
            """
            select tablename, policyname, cmd, roles::text, permissive, qual, with_check
            from pg_catalog.pg_policies where schemaname = $1
            """, [schema]
        ).rows {
            policies[row[0]!, default: [:]][row[1]!] = PolicyInfo(
                command: row[2]!, roles: row[3]!, isPermissive: row[4] == "PERMISSIVE", using: row[5], withCheck: row[6])
        }
        return policies
    }
}

extension LiveCatalog.PolicyInfo {
    /// What differs, in words: `using (true)`, `roles {public}`.
    func describedDifference(from expected: Self) -> String {
        var parts: [String] = []
        if command != expected.command { parts.append("command \(command)") }
        if roles != expected.roles { parts.append("roles \(roles)") }
        if isPermissive != expected.isPermissive { parts.append(isPermissive ? "permissive" : "restrictive") }
        if using != expected.using { parts.append("using \(using ?? "nothing")") }
        if withCheck != expected.withCheck { parts.append("with check \(withCheck ?? "nothing")") }
        return parts.joined(separator: ", ")
    }
}

extension LiveCatalog.TriggerInfo {
    /// From `pg_trigger.tgtype`, whose bits are fixed in PostgreSQL's `pg_trigger.h`.
    init(type: Int, function: String) {
        let row = 1
        let before = 2
        let insert = 4
        let delete = 8
        let update = 16
        let truncate = 32
        let instead = 64
        timing = type & before != 0 ? "before" : type & instead != 0 ? "instead of" : "after"
        events = [(insert, "insert"), (delete, "delete"), (update, "update"), (truncate, "truncate")]
            .filter { type & $0.0 != 0 }.map(\.1).sorted()
        level = type & row != 0 ? "row" : "statement"
        self.function = function
    }

    /// `before insert or update for each row execute public.sessions_before_write`.
    var described: String {
        "\(timing) \(events.joined(separator: " or ")) for each \(level) execute \(function)"
    }
}

extension LiveCatalog.IndexInfo {
    /// `unique on (user_id, name)`, `on (started_ms)`.
    var described: String {
        (isUnique ? "unique " : "") + "on (" + columns.joined(separator: ", ") + ")"
    }
}
