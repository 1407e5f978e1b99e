import HopeSyncSchema

/// What render made: the tree, and the schema it was made from for the checks that read it.
package struct RenderedTree: Sendable {
    package var schema: CheckedSchema
    package var tree: GeneratedTree
    package var newMigration: Migration?
    package var snapshot: Snapshot
}

/// Render: the plan to every file of Generated/. Shipped migrations are copied as they are on
/// disk (never rendered again: plan checked them), the new one is rendered for SQLite and
/// Supabase, and the outputs that embed or describe all of them are rendered side by side.
package struct RenderStage: PipelineStage {
    let templates: TemplateSet

    package init(templates: TemplateSet) {
        self.templates = templates
    }

    package func run(_ plan: Plan) throws -> RenderedTree {
        var tree = GeneratedTree()
        var entries = plan.history.migrations
        for (path, _) in entries.flatMap(\.files) { tree[path] = plan.history.files[path] }
        if let next = plan.next, let stamp = plan.nextStamp {
            let sqlite = try SQLiteRenderer(templates: templates).migrationSQL(next)
            let supabase = try SupabaseRenderer(templates: templates).migrationSQL(next)
            let entry = Snapshot.Entry(next, stamp: stamp, sqlite: sqlite, supabase: supabase)
            tree[entry.sqlitePath] = sqlite
            tree[entry.supabasePath] = supabase
            entries.append(entry)
        }
        let schema = plan.schema.schema
        let localMigrations = entries.map { ($0.number, $0.name, tree[$0.sqlitePath]!) }
        // The new migration's changes as made: a retirement moves its column, and reads back as nothing.
        let columnOrder = ServerColumnOrder(
            recorded: plan.history.snapshot?.serverColumns, entries.flatMap { $0.schemaChanges(in: schema) } + (plan.next?.changes ?? []))
        let snapshot = Snapshot(
            schema: schema, migrations: entries, serverCode: plan.serverCode, perOwnerIndexes: Snapshot.perOwnerIndexes(of: schema),
            serverColumns: columnOrder.recording(schema), sharedServerCode: plan.sharedCode)
        let templates = templates
        let backfills = Backfill.all(in: schema, recordedIn: entries)
        // The outputs are independent: render them side by side (this runs in every build).
        let renders: [@Sendable () throws -> [(String, String)]] = [
            {
                try SwiftRenderer(templates: templates).files(for: schema, migrations: localMigrations).map {
                    (SwiftRenderer.folder + $0, $1)
                }
            },
            { [(RustRenderer.path, try RustRenderer(templates: templates).tablesSource(for: schema, migrations: localMigrations))] },
            {
                let sql = try SupabaseRenderer(templates: templates).schemaSQL(schema, columnOrder: columnOrder, backfills: backfills)
                return [(SupabaseRenderer.schemaPath, sql)]
            },
            { [(SupabaseTestRenderer.path, try SupabaseTestRenderer(templates: templates).testsSQL(schema))] },
            { [(Snapshot.fileName, try snapshot.encoded())] },
        ]
        for files in try Parallel.map(renders, { try $0() }) {
            for (path, text) in files { tree[path] = text }
        }
        return RenderedTree(schema: plan.schema, tree: tree, newMigration: plan.next, snapshot: snapshot)
    }
}
