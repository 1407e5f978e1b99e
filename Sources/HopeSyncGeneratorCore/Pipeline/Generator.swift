import HopeSyncSchema

/// The generator's pipeline after parsing (``ParseStage``), as named stages with a typed value
/// between each two (swift-openapi-generator's `GeneratorPipeline`):
///
///     ParsedSchema -> check names -> CheckedSchema ─┐
///     GeneratedTree -> read history -> ShippedHistory ┴> plan -> Plan -> render -> RenderedTree
///         -> check server names -> Output
///
/// Pure: it reads the tree it is given and returns the tree that should exist; ``OutputWriter``
/// writes or checks it. The history is read first: a lost or unreadable snapshot is reported
/// before anything else.
public struct Generator: Sendable {
    let templates: TemplateSet
    /// The Supabase CLI stamp for a new migration (UTC yyyyMMddHHmmss).
    let stamp: @Sendable () -> String

    public init(templates: TemplateSet, stamp: @escaping @Sendable () -> String = Generator.currentStamp) {
        self.templates = templates
        self.stamp = stamp
    }

    public struct Output: Sendable {
        public var tree: GeneratedTree
        /// The migration this run adds, if schema.yaml changed.
        public var newMigration: Migration?
        package var snapshot: Snapshot
    }

    /// A parsed schema to the tree Generated/ should hold, given what `existing` holds now.
    public func generate(_ parsed: ParsedSchema, existing: GeneratedTree) throws -> Output {
        let history = try ReadHistoryStage().run(existing)
        let checked = try NameCheckStage().run(parsed)
        let plan = try PlanStage(templates: templates, stamp: stamp).run(PlanInput(schema: checked, history: history))
        let rendered = try RenderStage(templates: templates).run(plan)
        return try ServerNameCheckStage().run(rendered)
    }

    /// Now as a Supabase CLI migration stamp; `SOURCE_DATE_EPOCH` fixes it for reproducible runs.
    public static func currentStamp() -> String {
        MigrationStamp.current()
    }
}
