import HopeSyncPostgresClient

/// The rules of Supabase's database advisors (the dashboard's Security and Performance
/// Advisors, the open-source splinter lints) that can find something in what hope-sync
/// generates, written as catalog queries of our own from their documentation. Each query
/// answers one line per finding: what and where, so a failing test says which object broke which
/// rule. Scope: schema `public` (the API's schema), and for the policy rules also the policies on
/// `storage` and `realtime` tables that the generated SQL makes; security definer functions in
/// every schema that is not a system one.
public enum SupabaseAdvisors {
    public struct Rule: Sendable {
        /// The advisor's name for it (`anon_security_definer_function_executable`).
        public let name: String
        /// Answers one text per finding.
        let query: String
    }

    /// Every finding of every rule, as `rule: finding`.
    public static func findings(on connection: Connection) throws -> [String] {
        try rules.flatMap { rule in
            try connection.execute(rule.query).rows.map { "\(rule.name): \($0[0] ?? "")" }
        }
    }

    /// The object `oid` names is no extension's (the advisors leave those out).
    private static func own(_ oid: String) -> String {
        "not exists (select 1 from pg_catalog.pg_depend d where d.objid = \(oid) and d.deptype = 'e')"
    }

    public static let rules: [Rule] = security + performance

    /// The schemas splinter leaves out as Supabase's or extensions' own.
    static let systemSchemas = [
        "_timescaledb_cache", "_timescaledb_catalog", "_timescaledb_config", "_timescaledb_internal", "auth", "cron", "extensions",
        "graphql", "graphql_public", "information_schema", "net", "pgroonga", "pgsodium", "pgsodium_masks", "pgtle", "pgbouncer",
        "pg_catalog", "realtime", "repack", "storage", "supabase_functions", "supabase_migrations", "tiger",
        "topology", "vault",
    ].map { "'\($0)'" }.joined(separator: ", ")

    static let security: [Rule] = [
        Rule(
            name: "rls_disabled_in_public",
            query: """
                select c.oid::regclass::text from pg_catalog.pg_class c
                where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relrowsecurity
                  and (pg_catalog.has_table_privilege('anon', c.oid, 'SELECT') or pg_catalog.has_table_privilege('authenticated', c.oid, 'SELECT'))
                """),
        Rule(
            name: "rls_enabled_no_policy",
            query: """
                select c.oid::regclass::text from pg_catalog.pg_class c
                where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and c.relrowsecurity
                  and not exists (select 1 from pg_catalog.pg_policy p where p.polrelid = c.oid)
                """),
        Rule(
            name: "policy_exists_rls_disabled",
            query: """
                select c.oid::regclass::text from pg_catalog.pg_class c
                where c.relnamespace = 'public'::regnamespace and not c.relrowsecurity
                  and exists (select 1 from pg_catalog.pg_policy p where p.polrelid = c.oid)
                """),
        // Lints 0028 and 0029 (anon_ and authenticated_security_definer_function_executable):
        // in every schema that is not a system one (splinter's list), not only the exposed one,
        // since a definer function an API role may execute is a way around row-level security
        // wherever it lives.
        Rule(
            name: "security_definer_function_executable",
            query: """
                select p.oid::regprocedure::text || ' by ' || r.rolname
                from pg_catalog.pg_proc p
                join pg_catalog.pg_namespace n on n.oid = p.pronamespace
                cross join pg_catalog.pg_roles r
                where p.prosecdef and r.rolname in ('anon', 'authenticated') and \(own("p.oid"))
                  and n.nspname not in (\(systemSchemas))
                  and pg_catalog.has_function_privilege(r.oid, p.oid, 'EXECUTE')
                """),
        Rule(
            name: "function_search_path_mutable",
            query: """
                select p.oid::regprocedure::text from pg_catalog.pg_proc p
                where p.pronamespace = 'public'::regnamespace and \(own("p.oid"))
                  and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) c where c like 'search_path=%')
                """),
        Rule(
            name: "security_definer_view",
            query: """
                select c.oid::regclass::text from pg_catalog.pg_class c
                where c.relnamespace = 'public'::regnamespace and c.relkind = 'v' and \(own("c.oid"))
                  and (pg_catalog.has_table_privilege('anon', c.oid, 'SELECT') or pg_catalog.has_table_privilege('authenticated', c.oid, 'SELECT'))
                  and not coalesce(lower(c.reloptions::text)::text[], '{}')
                    && array['security_invoker=1', 'security_invoker=true', 'security_invoker=yes', 'security_invoker=on']
                """),
        Rule(
            name: "auth_users_exposed",
            query: """
                select distinct c.oid::regclass::text
                from pg_catalog.pg_depend d
                join pg_catalog.pg_rewrite w on w.oid = d.objid
                join pg_catalog.pg_class c on c.oid = w.ev_class
                where d.refobjid = pg_catalog.to_regclass('auth.users') and c.relnamespace = 'public'::regnamespace
                  and c.relkind in ('v', 'm')
                  and (pg_catalog.has_table_privilege('anon', c.oid, 'SELECT') or pg_catalog.has_table_privilege('authenticated', c.oid, 'SELECT'))
                """),
        Rule(
            name: "extension_in_public",
            query: "select e.extname from pg_catalog.pg_extension e where e.extnamespace = 'public'::regnamespace"),
    ]

    static let performance: [Rule] = [
        // A policy that calls auth.uid() (auth.jwt(), auth.role(), auth.email(),
        // current_setting()) outside `(select …)` evaluates it once a row, not once a query.
        // (PostgreSQL deparses `(select auth.uid()::text)` as `( SELECT (auth.uid())::text …`.)
        Rule(
            name: "auth_rls_initplan",
            query: """
                select p.schemaname || '.' || p.tablename || ' ' || p.policyname from pg_catalog.pg_policies p
                where (p.schemaname = 'public' or (p.schemaname, p.tablename) in (('storage', 'objects'), ('realtime', 'messages')))
                  and exists (
                    select 1 from unnest(array[p.qual, p.with_check]) e(expression)
                    where pg_catalog.regexp_replace(lower(e.expression),
                        'select\\s+\\(*(auth\\.(uid|jwt|role|email)\\(\\)|current_setting\\([^)]*\\))', '', 'g')
                      ~ '(auth\\.(uid|jwt|role|email)\\(\\)|current_setting\\()')
                """),
        // Two permissive policies for one role and action are both evaluated for every row.
        Rule(
            name: "multiple_permissive_policies",
            query: """
                select c.oid::regclass::text || ' ' || r.rolname || ' ' || a.action || ': ' || string_agg(p.polname, ', ' order by p.polname)
                from pg_catalog.pg_policy p
                join pg_catalog.pg_class c on c.oid = p.polrelid
                join pg_catalog.pg_roles r on p.polroles @> array[r.oid] or p.polroles = array[0::oid]
                cross join lateral unnest(case p.polcmd when 'r' then array['select'] when 'a' then array['insert']
                  when 'w' then array['update'] when 'd' then array['delete'] else array['select', 'insert', 'update', 'delete'] end) a(action)
                where c.relnamespace = 'public'::regnamespace and p.polpermissive
                  and r.rolname not like 'pg\\_%' and r.rolname not like 'supabase%admin' and not r.rolbypassrls
                group by c.oid, r.rolname, a.action
                having count(*) > 1
                """),
        // A foreign key whose columns start no index makes every delete or update of the
        // referenced row scan the table.
        Rule(
            name: "unindexed_foreign_keys",
            query: """
                select k.conrelid::regclass::text || ' ' || k.conname from pg_catalog.pg_constraint k
                join pg_catalog.pg_class c on c.oid = k.conrelid
                where k.contype = 'f' and c.relnamespace = 'public'::regnamespace
                  and not exists (
                    select 1 from pg_catalog.pg_index i
                    where i.indrelid = k.conrelid and i.indisvalid
                      and (string_to_array(i.indkey::text, ' ')::smallint[])[1:array_length(k.conkey, 1)] = k.conkey)
                """),
        Rule(
            name: "duplicate_index",
            query: """
                select i.schemaname || '.' || i.tablename || ': ' || string_agg(i.indexname, ', ' order by i.indexname)
                from pg_catalog.pg_indexes i
                where i.schemaname = 'public'
                group by i.schemaname, i.tablename, replace(i.indexdef, i.indexname, '')
                having count(*) > 1
                """),
        Rule(
            name: "no_primary_key",
            query: """
                select c.oid::regclass::text from pg_catalog.pg_class c
                where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and \(own("c.oid"))
                  and not exists (select 1 from pg_catalog.pg_constraint k where k.conrelid = c.oid and k.contype = 'p')
                """),
    ]
}
