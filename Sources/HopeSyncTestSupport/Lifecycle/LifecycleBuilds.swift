import Foundation
import HopeSync
import HopeSyncLifecycleSchemaV1
import HopeSyncLifecycleSchemaV2
import HopeSyncLifecycleSchemaV3
import HopeSyncTesting

/// The three builds of Tests/Fixtures/Lifecycle (decision 0052) and the in-memory server at
/// each of its steps, as the fixture's schema.yaml files declare them: v2 renames habits.name
/// and notes.heading to title, retypes habits.goal (int) to goal_text (text), deprecates
/// habits.streak (default 0) and the tags table; v3 (oldest_writer 2) finishes the renames and
/// removes streak, whose old names the server then serves read only.
package enum LifecycleBuilds {
    package typealias Step = InMemoryServer.LifecycleStep

    package static let v1 = AppSchema(
        tables: HopeSyncLifecycleSchemaV1.GeneratedSchema.tables, migrations: HopeSyncLifecycleSchemaV1.GeneratedSchema.migrations)
    package static let v2 = AppSchema(
        tables: HopeSyncLifecycleSchemaV2.GeneratedSchema.tables, migrations: HopeSyncLifecycleSchemaV2.GeneratedSchema.migrations)
    package static let v3 = AppSchema(
        tables: HopeSyncLifecycleSchemaV3.GeneratedSchema.tables, migrations: HopeSyncLifecycleSchemaV3.GeneratedSchema.migrations)
    package static let pullFunction = HopeSyncLifecycleSchemaV1.GeneratedSchema.app.pullFunction

    package static let title = InMemoryServer.RenamedColumn("habits", "name", to: "title")
    package static let heading = InMemoryServer.RenamedColumn("notes", "heading", to: "title")
    /// The retype's conversions, as v2's schema.yaml states them: `goal::text`, and back only
    /// what `'^-?[0-9]{1,18}$'` matches.
    package static let goal = InMemoryServer.RenamedColumn(
        "habits", "goal", to: "goal_text",
        toNew: { value in value.int.map { .text(String($0)) } ?? .null },
        toOld: { value in
            guard case .text(let text) = value, text.wholeMatch(of: /-?[0-9]{1,18}/) != nil, let number = Int64(text) else { return .null }
            return .int(number)
        })

    package static let serverV1 = Step(tables: v1.tables)
    /// The server keeps every v1 column beside v2's, and the tags table v2 no longer syncs.
    package static let serverV2 = Step(
        tables: [keeping(v2, v1, "habits"), keeping(v2, v1, "notes"), table(v1, "tags")], renamed: [title, goal, heading],
        defaults: ["habits": ["streak": .int(0)]])
    package static let serverV3 = Step(
        tables: [table(v3, "habits"), table(v3, "notes"), table(v1, "tags")],
        retired: [.init(finishing: title), .init(finishing: goal), .init(finishing: heading), .init("habits", "streak", default: .int(0))])

    package static func server(clock: (@Sendable () -> Int64)? = nil) async -> InMemoryServer {
        let server = InMemoryServer(tables: v1.tables, clock: clock)
        await server.migrate(to: serverV1)
        return server
    }

    /// The builds in order: the one a schema is, by its number of migrations.
    package static func build(_ schema: AppSchema) -> Int {
        [v1, v2, v3].firstIndex { $0.schemaVersion == schema.schemaVersion }.map { $0 + 1 } ?? 0
    }

    package static func schema(_ build: Int) -> AppSchema { [v1, v2, v3][build - 1] }

    private static func table(_ schema: AppSchema, _ name: String) -> TableSchema {
        schema.tables.first { $0.name == name }!
    }

    /// `name` of `newer`, with the columns of `older`'s that it no longer names after them.
    private static func keeping(_ newer: AppSchema, _ older: AppSchema, _ name: String) -> TableSchema {
        let current = table(newer, name)
        let kept = table(older, name).columns.filter { current.column(named: $0.name) == nil }
        return TableSchema(
            name: name, columns: current.columns + kept, primaryKey: current.primaryKey, conflict: current.conflict,
            ordering: current.ordering)
    }
}
