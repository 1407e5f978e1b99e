import HopeSyncSchema

/// The last check, on the rendered server SQL: PostgreSQL's limits on names (63 bytes, one
/// namespace for relations) apply to what the templates make, the user's own included.
package struct ServerNameCheckStage: PipelineStage {
    package init() {}

    package func run(_ rendered: RenderedTree) throws(SchemaError) -> Generator.Output {
        let problems = PostgresNames.problems(
            in: rendered.tree[SupabaseRenderer.schemaPath] ?? "", schema: rendered.schema.schema, locations: rendered.schema.locations)
        guard problems.isEmpty else { throw SchemaError(problems) }
        return Generator.Output(tree: rendered.tree, newMigration: rendered.newMigration, snapshot: rendered.snapshot)
    }
}
