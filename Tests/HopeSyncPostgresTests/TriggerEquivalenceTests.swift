import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import Testing

/// The column-merge trigger's fast paths (migration 0003) store exactly what the full
/// rules before them (migration 0002) store, and refuse exactly what those refuse: a divergence
/// would lose a user's edit.
///
/// One database holds Generated/supabase/schema.sql (the new functions) and, in schema
/// `old_rules`, copies of activities and sessions (same columns, defaults, constraints, indexes,
/// row-level security, policies and grants; the same owner lock and the same server_seq
/// sequence) whose triggers run the functions of the committed 0002 migration, renamed. A seeded
/// stream of requests goes to both as the signed-in user, in one transaction, each side in a
/// savepoint of its own: upserts exactly as PostgresTransport sends them (one row or a batch),
/// plain updates (PATCH), deletes and undeletes, whole-row writes without stamps, lost answers
/// sent again, rows pulled and pushed back, by three users on several devices, with fresh,
/// stale, equal, newer, missing and malformed stamps, column_stamps of the wrong shape, claims
/// near and past the one-day clock limit, open and closed sessions, and rows stored without
/// stamps. After each request both sides took it (the same row count) or refused it with the
/// same SQLSTATE and message, and every row of both tables is the same column by column:
/// server_seq is compared by order and by whether the request moved it.
///
/// Seeds: TRIGGER_EQUIVALENCE_RUNS (default 3) from TRIGGER_EQUIVALENCE_SEED (default 1), of
/// TRIGGER_EQUIVALENCE_STEPS requests each (default 1000); TRIGGER_EQUIVALENCE_VERBOSE=1 prints
/// what each run came to.
@Suite struct TriggerEquivalenceTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seeds: [UInt64] = {
        let runs = environment["TRIGGER_EQUIVALENCE_RUNS"].flatMap(UInt64.init) ?? 3
        let first = environment["TRIGGER_EQUIVALENCE_SEED"].flatMap(UInt64.init) ?? 1
        return Array(first..<(first + runs))
    }()
    static let steps = environment["TRIGGER_EQUIVALENCE_STEPS"].flatMap(Int.init) ?? 1_000

    @Test(arguments: seeds)
    func theFastPathsStoreAndRefuseWhatTheFullRulesDo(seed: UInt64) throws {
        let bench = try EquivalenceBench(newRules: EquivalenceBench.schemaSQL)
        let run = try bench.run(seed: seed, steps: Self.steps)
        if let divergence = run.divergence {
            Issue.record(
                """
                seed \(seed) (replay: TRIGGER_EQUIVALENCE_SEED=\(seed) TRIGGER_EQUIVALENCE_RUNS=1 \
                TRIGGER_EQUIVALENCE_STEPS=\(Self.steps)): \(divergence)
                """)
            return
        }
        // The stream reaches every kind of answer, so a quiet run means something.
        let counts = run.outcomes
        if Self.environment["TRIGGER_EQUIVALENCE_VERBOSE"] != nil {
            print("seed \(seed): \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        }
        let minimum = Self.steps / 50
        #expect((counts["changed"] ?? 0) >= minimum * 10, "seed \(seed): \(counts)")
        #expect((counts["unchanged"] ?? 0) >= minimum * 3, "seed \(seed): \(counts)")
        for state in ["22P02", "22008", "22003", "42501"] {
            #expect((counts[state] ?? 0) >= 1, "seed \(seed): no \(state) in \(counts)")
        }
    }

    /// The two sides differ in their functions only: everything else about the tables is the same
    /// (but the pokes' and the writer floor's statement triggers, which only the new side has and
    /// which change no row),
    /// and the old side runs 0002's functions, not schema.sql's.
    @Test func theOldRulesTablesAreCopiesRunningTheCommittedOldFunctions() throws {
        let bench = try EquivalenceBench(newRules: EquivalenceBench.schemaSQL)
        let new = try bench.structure(of: "public")
        let old = try bench.structure(of: "old_rules")
        #expect(!new.isEmpty)
        #expect(new == old)
        for function in ["activities_before_write", "sessions_before_write", "sessions_after_write"] {
            let source = "select prosrc from pg_proc where proname = $1 and pronamespace = $2::regnamespace"
            let newSource = try #require(try bench.connection.execute(source, [function, "public"]).scalar)
            let oldSource = try #require(try bench.connection.execute(source, [function, "old_rules"]).scalar)
            #expect(EquivalenceBench.oldRules.contains(oldSource))
            #expect(!oldSource.contains("public.activities") && !oldSource.contains("public.sessions"))
            if function.hasSuffix("before_write") { #expect(newSource != oldSource) }
        }
    }

    /// The check catches a fast path that is wrong: here the sessions insert shortcut also takes
    /// open rows, so a late open session is no longer closed.
    @Test func aFastPathThatSkipsTheOpenRowRuleIsCaught() throws {
        let target = "\n          and (new.ended_ms is not null or new.deleted_ms is not null) then"
        let schema = EquivalenceBench.schemaSQL
        try #require(schema.contains(target), "the sessions insert shortcut's open-row condition moved: update this test")
        let broken = try EquivalenceBench(newRules: schema.replacingOccurrences(of: target, with: " then"))
        let run = try broken.run(seed: 1, steps: 400)
        #expect(run.divergence != nil)
        if Self.environment["TRIGGER_EQUIVALENCE_VERBOSE"] != nil { print(run.divergence ?? "no divergence") }
    }
}

typealias StoredRow = [String: String?]

/// What a request came to on one side.
enum Outcome: Equatable, CustomStringConvertible {
    case took(rows: Int)
    case refused(sqlState: String?, message: String, detail: String?)

    init(_ error: PostgresError) {
        // A constraint's "Failing row contains (...)" ends with server_seq, which differs by
        // construction (both sides draw from one sequence): it is left out.
        var detail = error.detail
        if let text = detail, text.hasPrefix("Failing row contains ("), let comma = text.lastIndex(of: ",") {
            detail = String(text[..<comma])
        }
        self = .refused(sqlState: error.sqlState, message: error.message, detail: detail)
    }

    var description: String {
        switch self {
        case .took(let rows): "took \(rows) row(s)"
        case .refused(let state, let message, let detail): "refused \(state ?? "-"): \(message)" + (detail.map { " (\($0))" } ?? "")
        }
    }

    /// The name the run counts it under.
    var kind: String {
        switch self {
        case .took(let rows): rows > 0 ? "changed" : "unchanged"
        case .refused(let state, _, _): state ?? "client"
        }
    }
}

/// One request, as PostgresTransport (`PostgresStatement.upsert`) or PostgREST (PATCH) sends it.
struct EquivalenceRequest {
    enum Kind {
        /// `insert ... on conflict ("id") do update set c = excluded.c` for every column sent.
        case upsert
        /// `update ... set c = $n where "id" = $1`: a PATCH of one row.
        case patch(id: String)
        /// As the superuser, in replica mode: the row as stored before it had stamps.
        case forgetStamps(id: String)
    }

    var kind: Kind
    var table: String
    var user: UUID
    /// The columns sent (upsert) or set (patch), in table order.
    var columns: [String]
    var rows: [[String?]]
    /// What the generator meant, and the rows as stored before.
    var note: String
    var before: [StoredRow] = []
    /// Whether it claims a time near the clock limit (its step is timed).
    var nearTheLimit = false

    func statement(in schema: String, types: [String: String]) -> (sql: String, parameters: [String?]) {
        func quoted(_ name: String) -> String { "\"\(name)\"" }
        switch kind {
        case .upsert:
            var parameters: [String?] = []
            let tuples = rows.map { row in
                "("
                    + zip(columns, row).map { column, value in
                        parameters.append(value)
                        return "$\(parameters.count)::\(types[column] ?? "text")"
                    }.joined(separator: ", ") + ")"
            }
            let updates = columns.filter { $0 != "id" }.map { "\(quoted($0)) = excluded.\(quoted($0))" }
            let sql =
                "insert into \(schema).\(quoted(table)) (\(columns.map(quoted).joined(separator: ", "))) values "
                + tuples.joined(separator: ", ") + " on conflict (\(quoted("id"))) do update set " + updates.joined(separator: ", ")
            return (sql, parameters)
        case .patch(let id):
            var parameters: [String?] = [id]
            let assignments = zip(columns, rows[0]).map { column, value in
                parameters.append(value)
                return "\(quoted(column)) = $\(parameters.count)::\(types[column] ?? "text")"
            }
            let sql = "update \(schema).\(quoted(table)) set \(assignments.joined(separator: ", ")) where \(quoted("id")) = $1::uuid"
            return (sql, parameters)
        case .forgetStamps(let id):
            return ("update \(schema).\(quoted(table)) set column_stamps = null where id = $1::uuid", [id])
        }
    }

    /// The ids it writes.
    var targets: [UUID] {
        switch kind {
        case .upsert:
            let index = columns.firstIndex(of: "id")!
            return rows.compactMap { $0[index].flatMap(UUID.init(uuidString:)) }
        case .patch(let id), .forgetStamps(let id): return UUID(uuidString: id).map { [$0] } ?? []
        }
    }

    func describe(types: [String: String]) -> String {
        let (sql, parameters) = statement(in: "public", types: types)
        let values = parameters.enumerated().map { "$\($0 + 1)=\($1.map { "'\($0)'" } ?? "NULL")" }.joined(separator: " ")
        let stored = before.map { row in row.keys.sorted().map { "\($0)=\(row[$0]!.map { "'\($0)'" } ?? "NULL")" }.joined(separator: " ") }
        return "\(note) as user \(user.uuidString.lowercased()):\n  \(sql)\n  \(values)\n  stored before: "
            + (stored.isEmpty ? "nothing" : stored.joined(separator: "\n                 "))
    }
}

/// A database holding both rule sets, and the run of a seeded request stream over them.
final class EquivalenceBench {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let schemaSQL = read("Generated/supabase/schema.sql")
    /// The committed migration whose functions the fast paths replace: its functions and
    /// triggers, moved to schema old_rules (the sequence and the owner lock stay shared).
    static let oldRules: String = {
        let folder = "Generated/supabase/migrations"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent(folder).path)) ?? []
        guard let name = names.sorted().first(where: { $0.hasSuffix("_0002_update_activities_sessions.sql") }) else {
            fatalError("no 0002_update_activities_sessions migration in \(folder)")
        }
        return read("\(folder)/\(name)").replacingOccurrences(of: "public.activities", with: "old_rules.activities")
            .replacingOccurrences(of: "public.sessions", with: "old_rules.sessions")
    }()
    static let tables = ["activities", "sessions"]

    let connection: Connection
    /// Each table's columns in order, and their types as the casts name them.
    let columns: [String: [String]]
    let types: [String: [String: String]]

    static func read(_ path: String) -> String {
        do {
            return try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
        } catch {
            fatalError("cannot read \(path): \(error)")
        }
    }

    init(newRules: String) throws {
        connection = try PostgresCluster.createDatabase().connect()
        try connection.execute(script: newRules)
        try connection.execute(script: Self.copyTables)
        try connection.execute(script: Self.oldRules)
        var columns: [String: [String]] = [:]
        var types: [String: [String: String]] = [:]
        for table in Self.tables {
            let result = try connection.execute(
                """
                select attname, format_type(atttypid, atttypmod) from pg_attribute
                where attrelid = ('public.' || $1)::regclass and attnum > 0 and not attisdropped order by attnum
                """, [table])
            columns[table] = result.rows.map { $0[0]! }
            types[table] = Dictionary(uniqueKeysWithValues: result.rows.map { ($0[0]!, $0[1]!) })
        }
        self.columns = columns
        self.types = types
        try connection.execute(script: Self.differencesFunction(columns: columns))
    }

    /// activities and sessions again in schema old_rules: columns, defaults, constraints and
    /// indexes by `like`, then row-level security, policies and grants as the catalog has them.
    static let copyTables = """
        create schema old_rules;
        grant usage on schema old_rules to anon, authenticated, service_role;
        create table old_rules.activities (like public.activities including all);
        create table old_rules.sessions (like public.sessions including all);
        do $$
        declare
          r record;
        begin
          for r in select c.relname, c.relrowsecurity, c.relforcerowsecurity from pg_class c
              where c.relnamespace = 'public'::regnamespace and c.relname in ('activities', 'sessions') loop
            if r.relrowsecurity then
              execute format('alter table old_rules.%I enable row level security', r.relname);
            end if;
            if r.relforcerowsecurity then
              execute format('alter table old_rules.%I force row level security', r.relname);
            end if;
          end loop;
          for r in select * from pg_policies p where p.schemaname = 'public' and p.tablename in ('activities', 'sessions') loop
            execute format('create policy %I on old_rules.%I as %s for %s to %s', r.policyname, r.tablename, r.permissive, r.cmd,
                (select string_agg(quote_ident(role), ', ') from unnest(r.roles) role))
              || coalesce(' using (' || r.qual || ')', '') || coalesce(' with check (' || r.with_check || ')', '');
          end loop;
          -- The owners' marks stay shared, as the sequence and the owner lock do.
          for r in select t.tgname, c.relname, pg_get_triggerdef(t.oid) as def from pg_trigger t join pg_class c on c.oid = t.tgrelid
              where c.relnamespace = 'public'::regnamespace and c.relname in ('activities', 'sessions') and t.tgname like '%\\_written\\_%' loop
            execute replace(r.def, 'ON public.' || r.relname, 'ON old_rules.' || r.relname);
          end loop;
          for r in select c.relname, g.privilege_type, g.grantee from pg_class c, aclexplode(c.relacl) g
              where c.relnamespace = 'public'::regnamespace and c.relname in ('activities', 'sessions') and g.grantee <> c.relowner loop
            execute format('grant %s on old_rules.%I to %s', r.privilege_type, r.relname,
              case when r.grantee = 0 then 'public' else quote_ident(r.grantee::regrole::text) end);
          end loop;
        end
        $$;
        """

    /// The comparison, as a function so its plan is made once: every row that differs between
    /// the sides in a column (server_seq aside), in its place in server_seq order among all rows
    /// of its side, or in whether the last request moved it; and both sides' highest server_seq,
    /// the marks the next request is measured from.
    static func differencesFunction(columns: [String: [String]]) -> String {
        func compared(_ table: String) -> String {
            let names = columns[table]!.filter { $0 != "server_seq" }
            return """
                select '\(table)' as t, coalesce(n.id, o.id) as id from public.\(table) n full join old_rules.\(table) o on n.id = o.id
                  where (\(names.map { "n.\($0)" }.joined(separator: ", "))) is distinct from (\(names.map { "o.\($0)" }.joined(separator: ", ")))
                """
        }
        func body(_ schema: String, _ t: String, _ id: String) -> String {
            "coalesce((select to_jsonb(x) - 'server_seq' from \(schema).activities x where \(t) = 'activities' and x.id = \(id)), "
                + "(select to_jsonb(x) - 'server_seq' from \(schema).sessions x where \(t) = 'sessions' and x.id = \(id)))"
        }
        return """
            create schema equivalence;
            create function equivalence.differences(new_before bigint, old_before bigint,
              out new_mark bigint, out old_mark bigint, out differences jsonb)
            language plpgsql as $$
            begin
              with n as (
                select 'activities' as t, id, server_seq as seq from public.activities
                union all select 'sessions', id, server_seq from public.sessions
              ), o as (
                select 'activities' as t, id, server_seq as seq from old_rules.activities
                union all select 'sessions', id, server_seq from old_rules.sessions
              ), nr as (
                select n.*, n.seq > new_before as moved, rank() over (order by n.seq) as place from n
              ), orr as (
                select o.*, o.seq > old_before as moved, rank() over (order by o.seq) as place from o
              ), placed as (
                select coalesce(nr.t, orr.t) as t, coalesce(nr.id, orr.id) as id, nr.moved as new_moved, orr.moved as old_moved,
                  nr.place as new_place, orr.place as old_place
                from nr full join orr on nr.t = orr.t and nr.id = orr.id
              ), d as (
                select t, id from placed where new_moved is distinct from old_moved or new_place is distinct from old_place
                union \(compared("activities"))
                union \(compared("sessions"))
              )
              select (select coalesce(max(seq), 0) from n), (select coalesce(max(seq), 0) from o),
                (select coalesce(jsonb_agg(jsonb_build_object('t', d.t, 'id', d.id,
                    'new', \(body("public", "d.t", "d.id")), 'old', \(body("old_rules", "d.t", "d.id")),
                    'new_moved', p.new_moved, 'old_moved', p.old_moved, 'new_place', p.new_place, 'old_place', p.old_place)
                  order by d.t, d.id), '[]')
                from d left join placed p on p.t = d.t and p.id = d.id)
              into new_mark, old_mark, differences;
            end
            $$;
            """
    }

    /// Everything about the two tables in `schema` but the functions' bodies, as sorted lines
    /// with the schema's name taken out.
    func structure(of schema: String) throws -> [String] {
        let tables = "c.relnamespace = $1::regnamespace and c.relname in ('activities', 'sessions')"
        let queries = [
            """
            select c.relname, a.attnum::text, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull::text,
              coalesce(pg_get_expr(d.adbin, d.adrelid), '')
            from pg_attribute a join pg_class c on c.oid = a.attrelid
            left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
            where \(tables) and a.attnum > 0 and not a.attisdropped
            """,
            "select c.relname, c.relrowsecurity::text, c.relforcerowsecurity::text, pg_get_userbyid(c.relowner)::text from pg_class c where \(tables)",
            "select c.relname, k.conname, pg_get_constraintdef(k.oid) from pg_constraint k join pg_class c on c.oid = k.conrelid where \(tables)",
            "select c.relname, i.relname, pg_get_indexdef(i.oid) from pg_index x join pg_class c on c.oid = x.indrelid join pg_class i on i.oid = x.indexrelid where \(tables)",
            """
            select c.relname, t.tgname, pg_get_triggerdef(t.oid), t.tgenabled::text from pg_trigger t join pg_class c on c.oid = t.tgrelid
            where \(tables) and not t.tgisinternal and t.tgname not like '%\\_poke\\_%' and t.tgname not like '%\\_check\\_writer'
            """,
            """
            select p.tablename, p.policyname, p.permissive, p.cmd, p.roles::text, coalesce(p.qual, ''), coalesce(p.with_check, '')
            from pg_policies p where p.schemaname = $1 and p.tablename in ('activities', 'sessions')
            """,
            "select c.relname, g.grantee::regrole::text, g.privilege_type from pg_class c, aclexplode(c.relacl) g where \(tables)",
            """
            select p.proname, p.prosecdef::text, coalesce(p.proconfig::text, ''), p.provolatile::text from pg_proc p
            where p.pronamespace = $1::regnamespace and p.proname in ('activities_before_write', 'sessions_before_write', 'sessions_after_write')
            """,
        ]
        var lines: [String] = []
        for (index, query) in queries.enumerated() {
            for row in try connection.execute(query, [schema]).rows {
                let line = row.values.map { $0 ?? "NULL" }.joined(separator: " | ")
                lines.append("\(index): " + line.replacingOccurrences(of: "\(schema).", with: ""))
            }
        }
        return lines.sorted()
    }

    struct Run {
        var divergence: String?
        var outcomes: [String: Int] = [:]
    }

    /// Too slow a step with a claim at the clock limit is done again: the margins around the
    /// limit are 700 ms, and both sides must see the same side of it.
    struct TooSlow: Error {}

    func run(seed: UInt64, steps: Int) throws -> Run {
        var stream = RequestStream(seed: seed, columns: columns)
        var run = Run()
        var watermarks: (new: Int64, old: Int64) = (0, 0)
        for step in 1...steps {
            var attempt = 0
            while true {
                attempt += 1
                let saved = stream
                let started = Date()
                let now = Int64(started.timeIntervalSince1970 * 1_000)
                let request = try stream.next(now: now) { table, ids in try self.stored(table, ids) }
                do {
                    let (new, old) = try apply(request, guardedFrom: request.nearTheLimit ? started : nil)
                    run.outcomes[new.kind, default: 0] += 1
                    let differences = try compare(&watermarks)
                    if new != old || !differences.isEmpty {
                        run.divergence = """
                            step \(step): \(request.describe(types: types[request.table]!))
                              new rules: \(new)
                              old rules: \(old)
                            \(differences.joined(separator: "\n"))
                            """
                        return run
                    }
                    break
                } catch is TooSlow where attempt < 5 {
                    stream = saved
                }
            }
        }
        return run
    }

    /// The rows of `table` with these ids, as the new side stores them.
    func stored(_ table: String, _ ids: [UUID]) throws -> [UUID: StoredRow] {
        let result = try connection.execute(
            "select * from public.\(table) where id = any($1::uuid[])", ["{" + ids.map(\.text).joined(separator: ",") + "}"])
        var rows: [UUID: StoredRow] = [:]
        for row in result.rows {
            let values = Dictionary(uniqueKeysWithValues: zip(result.columns, row.values))
            rows[UUID(uuidString: values["id"]!!)!] = values
        }
        return rows
    }

    /// Runs `request` on the new tables, then the old, in one request of its user; each side in
    /// a savepoint, rolled back when refused.
    func apply(_ request: EquivalenceRequest, guardedFrom started: Date?) throws -> (new: Outcome, old: Outcome) {
        let types = self.types[request.table]!
        if case .forgetStamps = request.kind {
            try connection.transaction { connection in
                try connection.execute("set local session_replication_role = replica")
                for schema in ["public", "old_rules"] {
                    let (sql, parameters) = request.statement(in: schema, types: types)
                    try connection.execute(sql, parameters)
                }
            }
            return (.took(rows: 1), .took(rows: 1))
        }
        return try connection.request(asUser: request.user) { connection in
            var outcomes: [Outcome] = []
            for schema in ["public", "old_rules"] {
                let (sql, parameters) = request.statement(in: schema, types: types)
                try connection.execute("savepoint \(schema)_side")
                do {
                    outcomes.append(.took(rows: try connection.execute(sql, parameters).affectedRows))
                } catch let error as PostgresError where error.sqlState != nil {
                    try connection.execute("rollback to savepoint \(schema)_side")
                    outcomes.append(Outcome(error))
                }
            }
            if let started, Date().timeIntervalSince(started) > 0.5 { throw TooSlow() }
            return (outcomes[0], outcomes[1])
        }
    }

    /// Every row that differs between the sides: its columns but server_seq, where it stands in
    /// server_seq order among all rows of its side, and whether the last request moved it.
    func compare(_ watermarks: inout (new: Int64, old: Int64)) throws -> [String] {
        let result = try connection.execute(
            "select new_mark::text, old_mark::text, differences::text from equivalence.differences($1, $2)",
            [String(watermarks.new), String(watermarks.old)])
        let row = try #require(result.rows.first)
        watermarks = (Int64(row[0]!)!, Int64(row[1]!)!)
        let rows = try JSONSerialization.jsonObject(with: Data(row[2]!.utf8)) as? [[String: Any]] ?? []
        return rows.map { difference in
            func text(_ key: String) -> String {
                guard let value = difference[key], !(value is NSNull) else { return "none" }
                if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) {
                    return String(decoding: data, as: UTF8.self)
                }
                return "\(value)"
            }
            var columns: [String] = []
            if let new = difference["new"] as? [String: Any], let old = difference["old"] as? [String: Any] {
                columns = Set(new.keys).union(old.keys).sorted().filter { key in
                    func json(_ value: Any?) -> String {
                        (try? JSONSerialization.data(withJSONObject: value ?? NSNull(), options: [.sortedKeys, .fragmentsAllowed]))
                            .map { String(decoding: $0, as: UTF8.self) } ?? "?"
                    }
                    return json(new[key]) != json(old[key])
                }
            }
            return """
                  \(text("t")) \(text("id")): columns differing: \(columns.isEmpty ? "none" : columns.joined(separator: ", "))
                    new rules (moved \(text("new_moved")), place \(text("new_place"))): \(text("new"))
                    old rules (moved \(text("old_moved")), place \(text("old_place"))): \(text("old"))
                """
        }
    }
}

/// The seeded stream of requests: three users, each with a few rows per table, writing from
/// several devices whose copies are the stored row or an older one.
struct RequestStream {
    var random: SeededGenerator
    let columns: [String: [String]]
    let users: [UUID]
    /// Each table's row ids in play, per user: new ones join all along, the oldest leave.
    var ids: [String: [[UUID]]]
    let activityRefs: [UUID]
    /// Stamps start an hour before the run: well inside the clock limit.
    let base = Int64(Date().timeIntervalSince1970 * 1_000) - 3_600_000
    var tick: Int64 = 0
    /// Rows as read before earlier requests: what a device that pulled then still holds.
    var history: [UUID: [StoredRow]] = [:]
    var last: EquivalenceRequest?

    static let devices = ["a", "b", "phone", "watch", "a", "b", "phone", "watch", "", "a:b", "Zé"]
    /// Offsets from the server's clock: under the fast paths' limit, between it and the full
    /// rules' (a day), and past the limit.
    static let clockEdges: [Int64] = [
        86_397_000, 86_399_300, 86_399_300, 86_400_700, 86_400_700, 86_400_700, 86_402_000, 2 * 86_400_000, 365 * 86_400_000,
    ]
    static let malformed = [
        "garbage", "9", "00000000000300:a", "000000000000300a", "000000000000x00:a", "1000000000000000:a", "", "0",
        "-00000000000300:a", "+00000000000300:a", " 00000000000300:a", "00000000000030\u{FF10}:a", "\u{0661}00000000000300:a",
        "999999999999999", "999999999999999:",
    ]
    static let notStrings = ["300", "true", "{}", #"["000000000000300:a"]"#, "null", "1.5"]
    static let badShapes = ["[]", #""000000000000300:a""#, "null", "{}", "1", "[{}]"]
    static let fixed = ["id", "user_id", "updated_ms", "device_id", "column_stamps", "server_seq"]

    init(seed: UInt64, columns: [String: [String]]) {
        random = SeededGenerator(seed: seed &* 2_654_435_761)
        self.columns = columns
        var random = random
        users = (0..<3).map { _ in random.uuid() }
        ids = [
            "activities": (0..<3).map { _ in (0..<5).map { _ in random.uuid() } },
            "sessions": (0..<3).map { _ in (0..<7).map { _ in random.uuid() } },
        ]
        activityRefs = (0..<3).map { _ in random.uuid() }
        self.random = random
    }

    func stamped(_ table: String) -> [String] { columns[table]!.filter { !Self.fixed.contains($0) } }
    func pushed(_ table: String) -> [String] { columns[table]!.filter { $0 != "server_seq" } }

    mutating func chance(_ percent: Int) -> Bool { random.below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[random.below(items.count)] }

    /// The next request. `now` is the client's clock in ms, for claims near the limit; `read`
    /// gives the rows as stored.
    mutating func next(now: Int64, read: (String, [UUID]) throws -> [UUID: StoredRow]) throws -> EquivalenceRequest {
        tick += Int64(random.below(4))
        let roll = random.below(100)
        if roll < 6, let last {
            var again = last
            again.note = "the same request again (its answer was lost): " + last.note
            again.before = try read(last.table, last.targets).values.map { $0 }
            return again
        }
        let userIndex = random.below(users.count)
        let user = users[userIndex]
        let table = chance(50) ? "activities" : "sessions"
        // Now and then a row id of another user's.
        let owner = chance(3) ? (userIndex + 1) % users.count : userIndex
        if chance(12) {
            ids[table]![owner] = Array((ids[table]![owner] + [random.uuid()]).suffix(8))
        }
        // Mostly the newest row, often one of the others.
        let pool = ids[table]![owner]
        let newest = pool.last!
        let device = pick(Self.devices)
        let ms = base + tick + Int64(random.below(61)) - 30
        var request: EquivalenceRequest
        switch roll {
        case 6..<8:
            let id = chance(30) ? newest : pick(pool)
            request = EquivalenceRequest(
                kind: .forgetStamps(id: id.text), table: table, user: user, columns: [], rows: [],
                note: "stored without stamps (replica mode)")
            request.before = try read(table, [id]).values.map { $0 }
        case 8..<15:
            let id = chance(30) ? newest : pick(pool)
            let stored = try read(table, [id])[id]
            remember(id, stored)
            guard let stored else { return try next(now: now, read: read) }
            var row = stored
            var note = "the stored row pushed back as pulled"
            if chance(50) {
                row["updated_ms"] = String(ms)
                row["device_id"] = device
                note = "the stored stamps with another pair"
            }
            request = EquivalenceRequest(
                kind: .upsert, table: table, user: user, columns: pushed(table), rows: [pushed(table).map { row[$0] ?? nil }], note: note)
            request.before = [stored]
        case 15..<40:
            let id = chance(30) ? newest : pick(pool)
            let stored = try read(table, [id])[id]
            remember(id, stored)
            // Updates reach the update rules without an insert's checks first: claims at the clock
            // limit and malformed stamps are sent more often.
            let focus = chance(40) ? pick([2, 5]) : nil
            let copy = deviceCopy(table, id: id, user: user, stored: stored, device: device, ms: ms, now: now, focus: focus)
            var row = copy.row(user: user)
            // The columns it edited, and some it did not.
            var set = stamped(table).filter { copy.edited.contains($0) || chance(30) }
            if chance(15) {
                set.append("user_id")
                if chance(50) { row["user_id"] = users[(userIndex + 2) % users.count].text }
            }
            let mode = random.below(10)
            if mode < 4 { set += ["updated_ms", "device_id", "column_stamps"] }
            if mode == 4 || mode == 5 { set += ["updated_ms", "device_id"] }
            if mode == 6 { set += ["column_stamps"] }
            if mode == 7 { set += ["updated_ms"] }
            if set.isEmpty { set = ["column_stamps"] }
            let ordered = columns[table]!.filter(set.contains)
            request = EquivalenceRequest(
                kind: .patch(id: id.text), table: table, user: user, columns: ordered, rows: [ordered.map { row[$0] ?? nil }],
                note: "a plain update (PATCH) of \(ordered.joined(separator: ", ")): \(copy.note)")
            request.before = stored.map { [$0] } ?? []
            request.nearTheLimit = copy.nearTheLimit
        case 40..<47:
            var chosen: [UUID] = []
            for _ in 0..<(2 + random.below(2)) {
                let id = chance(30) ? newest : pick(pool)
                if !chosen.contains(id) { chosen.append(id) }
            }
            let stored = try read(table, chosen)
            let whole = chance(20)
            var rows: [[String?]] = []
            var notes: [String] = []
            var near = false
            for id in chosen {
                remember(id, stored[id])
                let copy = deviceCopy(table, id: id, user: user, stored: stored[id], device: device, ms: ms, now: now, whole: whole)
                let row = copy.row(user: user)
                rows.append(pushed(table).filter { !whole || $0 != "column_stamps" }.map { row[$0] ?? nil })
                notes.append(copy.note)
                near = near || copy.nearTheLimit
            }
            request = EquivalenceRequest(
                kind: .upsert, table: table, user: user, columns: pushed(table).filter { !whole || $0 != "column_stamps" }, rows: rows,
                note: "a batch of \(chosen.count): " + notes.joined(separator: "; "))
            request.before = chosen.compactMap { stored[$0] }
            request.nearTheLimit = near
        default:
            let id = chance(30) ? newest : pick(pool)
            let stored = try read(table, [id])[id]
            remember(id, stored)
            let whole = roll < 56
            let copy = deviceCopy(table, id: id, user: user, stored: stored, device: device, ms: ms, now: now, whole: whole)
            let row = copy.row(user: user)
            let sent = pushed(table).filter { !whole || $0 != "column_stamps" }
            request = EquivalenceRequest(
                kind: .upsert, table: table, user: user, columns: sent, rows: [sent.map { row[$0] ?? nil }], note: copy.note)
            request.before = stored.map { [$0] } ?? []
            request.nearTheLimit = copy.nearTheLimit
        }
        last = request
        return request
    }

    mutating func remember(_ id: UUID, _ row: StoredRow?) {
        guard let row else { return }
        var rows = history[id] ?? []
        if rows.last != row { rows.append(row) }
        history[id] = Array(rows.suffix(6))
    }

    func stamp(_ ms: Int64, _ device: String) -> String {
        let digits = String(ms)
        return String(repeating: "0", count: max(0, 15 - digits.count)) + digits + ":" + device
    }

    static func isStamp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count >= 16 && bytes[..<15].allSatisfy { $0 >= 48 && $0 <= 57 } && bytes[15] == 58
    }

    static func bytesLess(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    mutating func value(of column: String, in row: StoredRow) -> String? {
        switch column {
        case "name": pick(["Work", "Deep work", "Read", "", "Émigré", "it's"])
        case "color": pick(["#000000", "#FF0000", "#8E8E93"])
        case "archived": pick(["true", "false"])
        case "sort_order": pick(["0", "1", "1.5", "-2"])
        case "metadata": pick([nil, #"{"a": 1}"#, "[1, 2]", #""text""#])
        case "activity_id": pick(activityRefs).text
        case "started_ms": String(base + 1_000 * Int64(random.below(6)))
        case "ended_ms":
            chance(45) ? nil : String((row["started_ms"].flatMap { $0 }.flatMap { Int64($0) } ?? base) + pick([500, 1_500, 4_000]))
        case "note": pick([nil, "standup", "focus"])
        case "source": pick(["desktop", "phone", "watch"])
        default: nil
        }
    }

    /// A device's copy of the row, as it pushes it: the stored row or an older one it pulled (or
    /// one it made itself), a few columns edited at its pair (ms, device), and now and then odd
    /// stamps or values.
    mutating func deviceCopy(
        _ table: String, id: UUID, user: UUID, stored: StoredRow?, device: String, ms: Int64, now: Int64, whole: Bool = false,
        focus chosen: Int? = nil
    ) -> PushedCopy {
        let pair = stamp(ms, device)
        let stampedColumns = stamped(table)
        var copy: PushedCopy
        var notes: [String] = []
        if let stored, !chance(25) {
            var snapshot = stored
            if chance(30), let older = history[id], !older.isEmpty {
                snapshot = pick(older)
                notes.append("an older copy")
            } else {
                notes.append("the stored copy")
            }
            var stamps: [String: String] = [:]
            if let text = snapshot["column_stamps"] ?? nil,
                let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            {
                for (key, value) in object { if let value = value as? String { stamps[key] = value } }
            } else if chance(50), let updated = snapshot["updated_ms"] ?? nil, let ms = Int64(updated) {
                // A row stored without stamps: every column at its pair, or no stamps at all.
                let rowPair = stamp(ms, (snapshot["device_id"] ?? nil) ?? "")
                for column in stampedColumns { stamps[column] = rowPair }
            }
            copy = PushedCopy(table: table, id: id, values: snapshot, stamps: stamps)
        } else {
            var values: StoredRow = ["id": id.text]
            for column in stampedColumns { values[column] = value(of: column, in: values) }
            let made = chance(50) ? pair : stamp(ms - Int64(1 + random.below(40)), chance(70) ? device : pick(Self.devices))
            copy = PushedCopy(
                table: table, id: id, values: values, stamps: Dictionary(uniqueKeysWithValues: stampedColumns.map { ($0, made) }))
            notes.append(made == pair ? "a new row" : "a row made earlier")
        }
        var edited: [String] = []
        for _ in 0..<pick([0, 1, 1, 1, 2, 2, 3]) {
            let column = pick(stampedColumns.filter { $0 != "deleted_ms" })
            copy.values[column] = value(of: column, in: copy.values)
            copy.stamps[column] = pair
            edited.append(column)
        }
        if !edited.isEmpty { notes.append("edits \(edited.joined(separator: ", "))") }
        copy.edited = edited
        // What the request leans towards: each kind of odd input is likely under its own focus
        // and rare otherwise, so each is met often, and now and then together.
        let focus = chosen ?? random.below(8)
        if likely(focus == 1) {
            // Deleted or brought back, at its pair or at an older stamp than its edits.
            let oldest = copy.stamps.values.filter(Self.isStamp).min(by: Self.bytesLess)
            let at = chance(70) ? pair : (chance(50) ? oldest : nil) ?? stamp(ms - Int64(1 + random.below(40)), device)
            if (copy.values["deleted_ms"] ?? nil) == nil {
                copy.values["deleted_ms"] = String(ms)
                notes.append(at == pair ? "deletes" : "deletes at an older stamp")
            } else {
                copy.values["deleted_ms"] = .some(nil)
                notes.append(at == pair ? "undeletes" : "undeletes at an older stamp")
            }
            copy.stamps["deleted_ms"] = at
        }
        if likely(focus == 2) {
            let column = pick(stampedColumns.filter { $0 != "deleted_ms" })
            let offset = pick(Self.clockEdges)
            copy.values[column] = value(of: column, in: copy.values)
            copy.stamps[column] = stamp(now + offset, device)
            copy.nearTheLimit = true
            notes.append("\(column) claimed at the clock + \(offset) ms")
        }
        if !whole {
            oddStamps(&copy, focus: focus, columns: stampedColumns, edited: edited, pair: pair, ms: ms, notes: &notes)
        }
        // The pair: a device sends its newest stamp's; now and then another.
        let newest = copy.stamps.values.filter(Self.isStamp).max(by: Self.bytesLess)
        var sentPair = newest ?? pair
        switch random.below(100) {
        case 0..<82: break
        case 82..<92: sentPair = pair
        default:
            let storedPair = stored.flatMap { row in
                (row["updated_ms"] ?? nil).flatMap { Int64($0) }.map { stamp($0, (row["device_id"] ?? nil) ?? "") }
            }
            sentPair = storedPair ?? stamp(ms - 7, pick(Self.devices))
            notes.append("a pair that is not its newest stamp")
        }
        if whole {
            // A whole-row client: no stamps; its pair, now and then at the clock limit.
            sentPair = pair
            if copy.nearTheLimit {
                let offset = pick(Self.clockEdges)
                sentPair = stamp(now + offset, device)
                copy.nearTheLimit = true
                notes.append("claimed at the clock + \(offset) ms")
            }
            notes.insert("whole row", at: 0)
        }
        copy.values["updated_ms"] = String(Int64(sentPair.prefix(15))!)
        copy.values["device_id"] = String(sentPair.dropFirst(16))
        if chance(1) {
            copy.values["updated_ms"] = pick(["-1", "1000000000000000"])
            notes.append("updated_ms out of range")
        }
        if chance(1) {
            copy.values["metadata"] = String(repeating: "[", count: 300) + "1" + String(repeating: "]", count: 300)
            notes.append("metadata nested 300 deep")
        }
        if chance(1), table == "sessions" {
            copy.values["source"] = "tablet"
            notes.append("source breaks its check")
        }
        if chance(2) {
            copy.values["user_id"] = pick(users).text
            notes.append("user_id of someone")
        } else {
            copy.values["user_id"] = user.text
        }
        copy.note = notes.joined(separator: ", ")
        return copy
    }
    /// Likely (60%) when `focused`, rare (3%) otherwise.
    mutating func likely(_ focused: Bool) -> Bool { chance(focused ? 60 : 3) }

    /// Stale, tied, missing, extra and malformed stamps, and column_stamps of the wrong shape.
    mutating func oddStamps(
        _ copy: inout PushedCopy, focus: Int, columns stampedColumns: [String], edited: [String], pair: String, ms: Int64,
        notes: inout [String]
    ) {
        if likely(focus == 3) {
            let column = pick(stampedColumns)
            if chance(50), let old = copy.stamps[column], Self.isStamp(old), let oldMs = Int64(old.prefix(15)) {
                copy.stamps[column] = stamp(oldMs - Int64(1 + random.below(50)), String(old.dropFirst(16)))
                notes.append("a stale stamp on \(column)")
            } else {
                copy.stamps[column] = stamp(ms, pick(Self.devices))
                notes.append("\(column) at the same ms from another device")
            }
        }
        if likely(focus == 4) {
            if chance(50) {
                copy.stamps = copy.stamps.filter { edited.contains($0.key) }
                notes.append("only the edits' stamps")
            } else {
                let column = pick(stampedColumns)
                copy.stamps[column] = nil
                notes.append("no stamp for \(column)")
            }
        }
        if likely(focus == 5) {
            let column = pick(stampedColumns)
            if chance(70) {
                copy.stamps[column] = pick(Self.malformed)
            } else {
                copy.stamps[column] = nil
                copy.raw = [(column, pick(Self.notStrings))]
            }
            notes.append("a malformed stamp on \(column)")
        }
        if likely(focus == 6) {
            if chance(75) {
                copy.extra = [(pick(["tag", "id", "updated_ms", "Name"]), "\"\(pair)\"")]
                notes.append("an extra key")
            } else {
                copy.shape = pick(Self.badShapes + [#"{"name": "#])
                notes.append("column_stamps \(copy.shape!)")
            }
        }
    }
}

/// A device's copy of one row: its values, its stamps, and what it sends oddly.
struct PushedCopy {
    var table: String
    var id: UUID
    var values: StoredRow
    var stamps: [String: String]
    var edited: [String] = []
    /// Keys sent with a value that is not a string, and keys that are not columns.
    var raw: [(String, String)] = []
    var extra: [(String, String)] = []
    /// column_stamps sent as this text instead.
    var shape: String?
    var nearTheLimit = false
    var note = ""

    func row(user: UUID) -> StoredRow {
        var row = values
        row["id"] = id.text
        if let shape {
            row["column_stamps"] = shape
        } else {
            var entries = stamps.map { ($0.key, Self.jsonString($0.value)) }
            entries += raw + extra
            row["column_stamps"] =
                "{" + entries.sorted { $0.0 < $1.0 }.map { "\(Self.jsonString($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
        }
        return row
    }

    static func jsonString(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }
}
