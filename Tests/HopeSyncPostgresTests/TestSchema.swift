import Foundation
import HopeSyncGenerator
import HopeSyncSchema

/// The project's schema.yaml, and the migrations that lead from it to a next version, as the
/// planner would make them.
enum TestSchema {
    static let projectSchema: Schema = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("schema.yaml")
        do {
            return try SchemaParser.parse(String(contentsOf: url, encoding: .utf8)).schema
        } catch {
            fatalError("schema.yaml does not parse: \(error)")
        }
    }()

    static let activities = projectSchema.table(named: "activities")!
    static let sessions = projectSchema.table(named: "sessions")!
    static let tasks = projectSchema.table(named: "tasks")!
    static let taskLists = projectSchema.table(named: "task_lists")!

    /// schema.yaml as it is.
    static let initial = Schema(tables: [activities, sessions, tasks, taskLists])

    /// The next version: a column whose default needs escaping, and an index on it. sessions
    /// merges column by column, so the new column is a register of its own: the write trigger
    /// changes with it and the migration re-creates the triggers, as the planner does when the
    /// table's server code changes.
    static let tagColumn = Column(name: "tag", type: .text, defaultValue: .text("it's \"new\""))
    static let tagIndex = Index(name: "sessions_tag_idx", columns: ["tag"])
    static let sessionsWithTag: Table = {
        var table = sessions
        table.columns.append(tagColumn)
        table.indexes.append(tagIndex)
        return table
    }()
    static let current = Schema(tables: [activities, sessionsWithTag, tasks, taskLists])

    static let initialMigration = Migration(
        number: 1, name: "initial", changes: initial.tables.map(SchemaChange.createTable), schema: initial)
    static let tagMigration = Migration(
        number: 2, name: "sessions_add_tag",
        changes: [
            .addColumn(SyncedColumn(user: tagColumn), to: sessionsWithTag), .addIndex(tagIndex, on: sessionsWithTag),
            .replaceTriggers(sessionsWithTag),
        ],
        schema: current)
    static let migrations = [initialMigration, tagMigration]
    /// The order these migrations give the columns: `tag` after server_seq.
    static let columnOrder = ServerColumnOrder(migrations.flatMap(\.changes))

    /// A later change of ordering and rules: activities gives up exact ordering, sessions
    /// its open-row rule. Only the triggers change.
    static let relaxed: Schema = {
        var schema = current
        schema.tables[0].exactOrdering = false
        schema.tables[1].rules = []
        return schema
    }()
    static let relaxMigration = Migration(
        number: 3, name: "relax_ordering",
        changes: [.replaceTriggers(relaxed.tables[0]), .replaceTriggers(relaxed.tables[1])],
        schema: relaxed)

    static let renderer: SupabaseRenderer = {
        do { return SupabaseRenderer(templates: try TemplateSet(directory: nil)) } catch { fatalError("built-in templates: \(error)") }
    }()
}
