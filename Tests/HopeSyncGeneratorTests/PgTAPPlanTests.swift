import Foundation
import HopeSyncSchema
import Testing

@testable import HopeSyncGeneratorCore

/// sync_test.sql's plan is counted from the tests the templates render, so it follows any edit
/// of them.
@Suite struct PgTAPPlanTests {
    @Test func countsTestCallsOutsideQuotesAndComments() {
        let sql = """
            select plan(3);
            select ok(true, 'is(1) in a description');
            -- select is(1, 1, 'a comment');
            /* select pass('a block comment'); */
            select lives_ok($q$select ok(true)$q$, 'the statement is quoted');
            with written as (update t set a = 1 returning a) select is((select count(*) from written), 1::bigint, 'row(1)');
            select * from finish();
            """
        #expect(PgTAPPlan.count(in: sql) == 3)
    }

    @Test func aTestAddedToTheTemplateIsInThePlan() throws {
        let schema = try SchemaParser.parse("tables:\n  notes:\n    columns:\n      body: text\n  tags:\n    columns:\n      name: text\n")
            .schema
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hope-pgtap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "supabase/table_tests.sql.mustache"
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("supabase"), withIntermediateDirectories: true)
        let edited = try TemplateSet.builtInSource(named: name) + "select pass('{{table}}: one test more');\n"
        try Data(edited.utf8).write(to: folder.appendingPathComponent(name))
        let builtIn = try SupabaseTestRenderer(templates: TemplateSet(directory: nil)).testsSQL(schema)
        let custom = try SupabaseTestRenderer(templates: TemplateSet(directory: folder)).testsSQL(schema)
        #expect(try Self.plan(of: custom) == Self.plan(of: builtIn) + 2)
        #expect(try Self.plan(of: builtIn) == PgTAPPlan.count(in: builtIn))
    }

    private static func plan(of sql: String) throws -> Int {
        let start = try #require(sql.range(of: "select plan("))
        return try #require(Int(sql[start.upperBound...].prefix { $0.isNumber }))
    }
}
