import HopeSyncSchema

/// What plan reads: the checked schema and what shipped before it.
package struct PlanInput: Sendable {
    package var schema: CheckedSchema
    package var history: ShippedHistory

    package init(schema: CheckedSchema, history: ShippedHistory) {
        self.schema = schema
        self.history = history
    }
}

/// What this run makes: at most one new migration over the shipped ones, and the checksums
/// the snapshot records with them.
package struct Plan: Sendable {
    package var schema: CheckedSchema
    package var history: ShippedHistory
    /// The migration this run adds, if the schema or a table's server code changed.
    package var next: Migration?
    /// The new migration's Supabase stamp: later than every shipped one.
    package var nextStamp: String?
    /// Per table, the checksum of its server functions and triggers as rendered now.
    package var serverCode: [String: String]
    /// The checksum of what every table shares, as rendered now.
    package var sharedCode: String
}

/// Plan: the shipped migrations checked against their checksums, then the difference between
/// the snapshot and the schema as the next migration (``MigrationPlanner``, which takes the
/// server code's checksums as plain values and never renders).
package struct PlanStage: PipelineStage {
    let templates: TemplateSet
    let stamp: @Sendable () -> String

    package init(templates: TemplateSet, stamp: @escaping @Sendable () -> String) {
        self.templates = templates
        self.stamp = stamp
    }

    package func run(_ input: PlanInput) throws -> Plan {
        let history = input.history
        let problems = try Checksums.shippedProblems(history.migrations, in: history.files)
        if !problems.isEmpty { throw GeneratorError.shippedMigrations(problems) }
        // The retired columns the snapshot carries, and those this run retires, are the
        // server's: every output below renders from the schema with them.
        let steps = try MigrationPlanner.diff(after: history.snapshot, for: input.schema.parsed)
        let schema = input.schema.carrying(MigrationPlanner.carried(input.schema.schema, from: history.snapshot, changes: steps))
        let renderer = SupabaseRenderer(templates: templates)
        let serverCode = try Checksums.serverCode(of: schema.schema, renderer: renderer)
        let sharedCode = try Checksums.sharedServerCode(of: schema.schema, renderer: renderer)
        let next = try MigrationPlanner.nextMigration(
            after: history.snapshot, for: schema.parsed, serverCode: serverCode, sharedCode: sharedCode)
        let nextStamp = next.map { _ in MigrationStamp.next(stamp(), after: history.migrations.map(\.stamp) + history.supabaseStamps) }
        return Plan(
            schema: schema, history: history, next: next, nextStamp: nextStamp, serverCode: serverCode, sharedCode: sharedCode)
    }
}
