import SyncGenerator
import SyncSchema

/// The schema of /schema.yaml built in Swift (these tests do not depend on the parser), and
/// the migrations that lead to it, as the planner would make them.
enum TestSchema {
    static let activities = Table(
        name: "activities",
        columns: [
            Column(name: "name", type: .text),
            Column(name: "color", type: .text, defaultValue: .text("#8E8E93")),
            Column(name: "archived", type: .bool, defaultValue: .bool(false)),
            Column(name: "sort_order", type: .double, defaultValue: .double(0)),
            Column(name: "metadata", type: .json, isNullable: true),
        ],
        indexes: [Index(name: "activities_name_idx", columns: ["name"])])

    static let sessions = Table(
        name: "sessions",
        columns: [
            Column(name: "activity_id", type: .uuid, references: "activities"),
            Column(name: "started_ms", type: .int),
            Column(name: "ended_ms", type: .int, isNullable: true),
            Column(name: "note", type: .text, isNullable: true),
            Column(name: "source", type: .enumeration(["desktop", "phone", "watch"]), defaultValue: .text("desktop")),
        ],
        indexes: [
            Index(name: "sessions_activity_id_idx", columns: ["activity_id"]),
            Index(name: "sessions_started_ms_idx", columns: ["started_ms"]),
        ],
        rules: [.oneOpenRowPerOwner(start: "started_ms", end: "ended_ms")])

    static let tasks = Table(
        name: "tasks",
        conflict: .version(.timestamp),
        columns: [
            Column(name: "title", type: .text),
            Column(name: "notes", type: .text, isNullable: true),
            Column(name: "done", type: .bool, defaultValue: .bool(false)),
            Column(name: "due_at", type: .timestamp, isNullable: true),
        ])

    static let taskLists = Table(
        name: "task_lists",
        conflict: .version(.integer),
        columns: [
            Column(name: "name", type: .text),
            Column(name: "position", type: .double, defaultValue: .double(0)),
            Column(name: "icon", type: .bytes, isNullable: true),
        ])

    /// schema.yaml as it is.
    static let initial = Schema(tables: [activities, sessions, tasks, taskLists])

    /// The next version: a column whose default needs escaping, and an index on it.
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
        number: 1, name: "initial", steps: initial.tables.map(MigrationStep.createTable), schema: initial)
    static let tagMigration = Migration(
        number: 2, name: "sessions_add_tag",
        steps: [.addColumn(tagColumn, to: sessionsWithTag), .addIndex(tagIndex, on: sessionsWithTag)],
        schema: current)
    static let migrations = [initialMigration, tagMigration]

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
        steps: [.replaceTriggers(relaxed.tables[0]), .replaceTriggers(relaxed.tables[1])],
        schema: relaxed)

    static let renderer: SupabaseRenderer = {
        do { return SupabaseRenderer(templates: try TemplateSet(directory: nil)) } catch { fatalError("built-in templates: \(error)") }
    }()
}
