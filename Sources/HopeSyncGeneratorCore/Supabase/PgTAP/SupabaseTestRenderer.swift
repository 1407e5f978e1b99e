import HopeSyncSchema

/// Renders `supabase/tests/sync_test.sql`: pgTAP tests of the generated server schema, in the
/// Supabase CLI layout (`supabase test db`), through supabase/tests.sql.mustache and
/// supabase/table_tests.sql.mustache. The renderer writes the statements (every value typed,
/// every stamp spelled out); the templates say what each test proves. Output is deterministic:
/// fixed ids, fixed users, fixed values.
package struct SupabaseTestRenderer: Sendable {
    package static let path = "supabase/tests/sync_test.sql"
    static let alice = "a11ce000-0000-4000-8000-000000000001"
    static let bob = "b0b00000-0000-4000-8000-000000000002"
    static let carol = "ca201000-0000-4000-8000-000000000003"
    static let stranger = "57a00000-0000-4000-8000-000000000004"

    package let templates: TemplateSet

    package init(templates: TemplateSet) {
        self.templates = templates
    }

    package func testsSQL(_ schema: Schema) throws -> String {
        let quote = Self.dollarQuote(avoiding: schema)
        let tables = try schema.tables.enumerated().map { index, table in
            var sql = try templates.render(PgTAPTableScript(table, number: index, quote: quote).context)
            while sql.hasSuffix("\n") { sql.removeLast() }
            return RenderedSQL(sql: sql)
        }
        let buckets = try schema.buckets.map { bucket in
            var sql = try templates.render(bucketContext(bucket, quote: quote, in: schema))
            while sql.hasSuffix("\n") { sql.removeLast() }
            return RenderedSQL(sql: sql)
        }
        let scopes = try schema.tables.enumerated().filter { $0.element.sharing == .scope }.map { index, table in
            var sql = try templates.render(PgTAPTableScript(table, number: index, quote: quote).scopeContext)
            while sql.hasSuffix("\n") { sql.removeLast() }
            return RenderedSQL(sql: sql)
        }
        // The plan counts the tests the file makes: rendered once to count them, then with the count.
        var context = TestsContext(
            plan: "0", alice: Self.alice, bob: Self.bob, aliceClaims: PgTAPTableScript.claims(Self.alice),
            bobClaims: PgTAPTableScript.claims(Self.bob), tables: tables, buckets: buckets, scopes: scopes,
            writers: WriterTestsContext(schema))
        context.backfills = schema.tables.flatMap { table in
            table.columns.filter { $0.backfill != nil }.map { "\(table.name).\($0.name)" }
        }
        context.plan = String(PgTAPPlan.count(in: try templates.render(context)))
        return try templates.render(context)
    }

    private func bucketContext(_ bucket: String, quote: String, in schema: Schema) -> BucketTestsContext {
        let hash = String(repeating: "0", count: 62) + "ab"
        let name = hash + ".bin"
        var context = BucketTestsContext(
            bucket: bucket, literal: SQLLiteral.string(bucket), q: quote, aliceClaims: PgTAPTableScript.claims(Self.alice),
            bobClaims: PgTAPTableScript.claims(Self.bob), aliceObject: "\(Self.alice)/\(name)", bobObject: "\(Self.bob)/\(name)",
            alice: Self.alice, bob: Self.bob, object: name, upperObject: hash.uppercased() + ".bin")
        // A shared table's files: the tests of a scope's folder, in the first such table's scope.
        if let scopeTable = schema.tables.first(where: { table in
            table.columns.contains { $0.type.bucket == bucket } && table.scopeTable != nil
        })?
        .scopeTable {
            context.scopeTable = scopeTable
            context.scopeId = Self.bucketScope
            context.carol = Self.carol
            context.carolClaims = PgTAPTableScript.claims(Self.carol)
            context.strangerClaims = PgTAPTableScript.claims(Self.stranger)
            context.scopeObject = "\(Self.bucketScope)/\(name)"
            context.otherObject = String(repeating: "0", count: 62) + "cd.bin"
        }
        return context
    }

    /// The scope whose Storage folder the bucket tests use (no row of it is needed: its access
    /// rows are written as the membership triggers write them).
    static let bucketScope = "5c09e000-0000-4000-8000-000000000005"

    /// A dollar quote no enum value contains (they are the only user text in the tests).
    static func dollarQuote(avoiding schema: Schema) -> String {
        let values = schema.tables.flatMap(\.columns).flatMap { column -> [String] in
            if case .enumeration(let values) = column.type { return values }
            return []
        }
        var quote = "$q$"
        var number = 0
        while values.contains(where: { $0.contains(quote.dropLast()) }) {
            number += 1
            quote = "$q\(number)$"
        }
        return quote
    }
}
