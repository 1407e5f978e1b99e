import Foundation
import HopeSyncGeneratorCore
import HopeSyncSchema
import Testing

@testable import HopeSyncVerify

/// `verify` reads what it expects from the rendered SQL: statements cut where PostgreSQL would
/// cut them, and triggers, policies and grants read back as the catalog keeps them.
@Suite struct RenderedObjectsTests {
    static let renderer: SupabaseRenderer = {
        do { return SupabaseRenderer(templates: try TemplateSet(directory: nil)) } catch { fatalError("built-in templates: \(error)") }
    }()

    @Test func statementsAreCutOutsideQuotesAndComments() {
        let statements = SQLStatements.split(
            """
            -- a comment; not a statement
            create function f() returns int as $$ select 1; $$ language sql;
            select 'a;b', "odd;name" /* ; */ from t;
            select $body$ ; $body$
            """)
        #expect(
            statements == [
                "create function f() returns int as $$ select 1; $$ language sql",
                "select 'a;b', \"odd;name\"  from t",
                "select $body$ ; $body$",
            ])
    }

    /// The owner lock goes with exact ordering or the open-row rule: the rendered SQL says
    /// which, so verify needs no copy of the condition.
    @Test func theLockTriggerIsExpectedExactlyWhenTheTemplatesMakeIt() throws {
        let schema = try parse(
            """
            tables:
              exact: { columns: { x: int } }
              loose: { exact_ordering: false, columns: { x: int } }
              stamped: { exact_ordering: false, conflict: version, columns: { x: int } }
            """
        ).schema
        func triggers(_ index: Int) throws -> [String] {
            try RenderedObjects(parsing: Self.renderer.triggersSQL(schema.tables[index], replacing: true)).triggers.map(\.name)
        }
        let marks = ["_written_insert", "_written_update"]
        let pokes = ["_poke_inserts", "_poke_updates"]
        #expect(try triggers(0) == ["exact_before_write", "exact_lock_owner"] + (marks + pokes).map { "exact" + $0 })
        #expect(try triggers(1) == ["loose_before_write"] + (marks + pokes).map { "loose" + $0 })
        #expect(try triggers(2) == ["stamped_before_write"] + (marks + pokes).map { "stamped" + $0 } + ["stamped_updated_at"])

        let exact = RenderedObjects(parsing: try Self.renderer.triggersSQL(schema.tables[0], replacing: false)).triggers
        let lock = try #require(exact.first { $0.name == "exact_lock_owner" })
        #expect(lock.table == "exact")
        #expect(
            lock.definition
                == LiveCatalog.TriggerInfo(
                    timing: "before", events: ["insert", "update"], level: "statement", function: "public.sync_lock_owner"))
        let version = try #require(RenderedObjects(parsing: Self.renderer.triggersSQL(schema.tables[2], replacing: false)).triggers.last)
        let poke = try #require(exact.first { $0.name == "exact_poke_updates" })
        #expect(
            poke.definition
                == LiveCatalog.TriggerInfo(timing: "after", events: ["update"], level: "statement", function: "public.sync_poke_written"))
        #expect(
            version.definition
                == LiveCatalog.TriggerInfo(timing: "before", events: ["update"], level: "row", function: "extensions.moddatetime"))
    }

    @Test func policiesGrantsAndSecurityAreReadFromTheAccessSQL() throws {
        let table = try parse("tables:\n  notes: { columns: { body: text } }\n").schema.tables[0]
        let rendered = RenderedObjects(parsing: try Self.renderer.accessSQL(table))
        #expect(rendered.securedTables == ["notes"])
        #expect(rendered.policies.map(\.name) == ["notes_select_own", "notes_insert_own", "notes_update_own"])
        #expect(rendered.policies[0].clauses == "for select to authenticated\n  using (user_id = (select auth.uid()))")
        // `revoke all` first, then the grants: what is left is what the roles must have.
        #expect(
            rendered.grants == [
                .init(relation: "notes", isSequence: false, role: "anon", privileges: []),
                .init(relation: "notes", isSequence: false, role: "authenticated", privileges: ["SELECT", "INSERT", "UPDATE"]),
                .init(relation: "notes", isSequence: false, role: "service_role", privileges: ["SELECT", "INSERT", "UPDATE", "DELETE"]),
            ])
        let shared = RenderedObjects(parsing: try Self.renderer.sequenceSQL())
        #expect(shared.sequences == ["sync_server_seq"])
        #expect(shared.securedTables == ["sync_marks"])
        #expect(shared.policies.map(\.name) == ["sync_marks_select_own"])
        #expect(
            shared.grants.filter { !$0.privileges.isEmpty }.map { "\($0.relation) \($0.role)" } == [
                "sync_server_seq authenticated", "sync_server_seq service_role", "sync_marks authenticated", "sync_marks service_role",
            ])
    }

    @Test func grantAllIsEveryPrivilegeOfItsKindAndRevokeTakesAway() {
        let rendered = RenderedObjects(
            parsing: """
                grant all on sequence public.s to a;
                grant all privileges on table public.t, u to b with grant option;
                revoke truncate, references, trigger on public.t from b cascade;
                """)
        #expect(
            rendered.grants == [
                .init(relation: "s", isSequence: true, role: "a", privileges: ["USAGE", "SELECT", "UPDATE"]),
                .init(relation: "t", isSequence: false, role: "b", privileges: ["SELECT", "INSERT", "UPDATE", "DELETE"]),
                .init(
                    relation: "u", isSequence: false, role: "b",
                    privileges: ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"]),
            ])
    }
}
