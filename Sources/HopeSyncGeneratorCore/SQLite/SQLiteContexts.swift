/// `sqlite/migration.sql.mustache`: one local migration.
struct SQLiteMigrationContext: TemplateContext {
    static let template = "sqlite/migration.sql.mustache"
    static let summary = "one local SQLite migration, `Generated/sqlite/NNNN_name.sql`"

    var number: String
    var name: String
    var isFirst: Bool
    var steps: [SQLiteStep]
    var cleanState: String
    var dirtyState: String

    static var fields: [TemplateField<Self>] {
        [
            .init("number", "the migration's number (1, 2, …)", \.number),
            .init("name", "its name (`initial`, `sessions_add_note`)", \.name),
            .init("isFirst", "migration 1, which also creates `_sync_cursors`", \.isFirst),
            .init("steps", "each change SQLite applies, in order; exactly one of its sections is there", \.steps),
            .init("cleanState", "the `_dirty` value of a row with nothing to push (HopeSyncModel's DirtyState)", \.cleanState),
            .init("dirtyState", "the `_dirty` value of a row waiting to be pushed: the partial index holds these", \.dirtyState),
        ]
    }
}

struct SQLiteStep: TemplateObject {
    var createTable: SQLiteTable?
    var addColumn: SQLiteAddedColumn?
    var addIndex: SQLiteIndex?
    var renameColumn: SQLiteColumnChange?
    var dropColumn: SQLiteColumnChange?
    var dropTable: SQLiteDroppedTable?
    var renameTable: SQLiteRenamedTable? = nil

    static var fields: [TemplateField<Self>] {
        [
            .init("createTable", "a new table", \.createTable),
            .init("addColumn", "a new column on an existing table", \.addColumn),
            .init("addIndex", "a new index on an existing table", \.addIndex),
            .init("renameColumn", "a column renamed (decision 0052)", \.renameColumn),
            .init("dropColumn", "a column deprecated: this build drops it (decision 0052)", \.dropColumn),
            .init("dropTable", "a table deprecated: this build drops it (decision 0052)", \.dropTable),
            .init("renameTable", "a table renamed (decision 0054)", \.renameTable),
        ]
    }
}

/// A rename or a deprecation, which the runtime also applies to the writes it keeps.
struct SQLiteColumnChange: TemplateObject {
    var table: String
    var column: String
    var was: String?
    var stamped: Bool
    var retype: SQLiteRetype? = nil

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("column", "the column (its new name, for a rename)", \.column),
            .init("was", "a renamed column's old name", \.was),
            .init("stamped", "the table keeps column_stamps, whose keys name columns", \.stamped),
            .init("retype", "a rename that changes the type: the column is made again", \.retype),
        ]
    }
}

/// A deprecated table, which a device drops.
struct SQLiteDroppedTable: TemplateObject {
    var table: String

    static var fields: [TemplateField<Self>] { [.init("table", "the table's name", \.table)] }
}

/// A renamed table, whose bookkeeping the runtime moves to the new name.
struct SQLiteRenamedTable: TemplateObject {
    var table: String
    var was: String
    var dirtyState: String
    var indexes: [RenamedIndex]

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's new name", \.table),
            .init("was", "its old name", \.was),
            .init("dirtyState", "the `_dirty` value of a row waiting to be pushed (the partial index's)", \.dirtyState),
            .init("indexes", "the indexes named after the old name (no 'name:'), made again under the new one", \.indexes),
        ]
    }

    /// An index SQLite cannot rename: dropped and made again.
    struct RenamedIndex: TemplateObject {
        var from: String
        var to: SQLiteIndex

        static var fields: [TemplateField<Self>] {
            [.init("from", "the index's old name", \.from), .init("to", "the index as it is made again", \.to)]
        }
    }
}

/// A retyped column made again on a device: added, filled by CAST, the old one dropped.
struct SQLiteRetype: TemplateObject {
    var type: String
    var fill: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("type", "the new SQLite type", \.type),
            .init("fill", "a NOT NULL column's placeholder until the CAST fills it (SQLite adds NOT NULL only with a default)", \.fill),
        ]
    }
}

struct SQLiteTable: TemplateObject {
    var name: String
    var comments: [String]
    var columns: [SQLiteColumn]
    var indexes: [SQLiteIndex]

    static var fields: [TemplateField<Self>] {
        [
            .init("name", "the table's name", \.name),
            .init("comments", "lines said above it: what hope-sync added to it, or that it is a membership table", \.comments),
            .init("columns", "every synced column, in table order", \.columns),
            .init("indexes", "the schema's indexes of the table, then the index on a shared table's scope column", \.indexes),
        ]
    }
}

struct SQLiteAddedColumn: TemplateObject {
    var table: String
    var column: SQLiteColumn
    var comments: [String]

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("column", "the new column", \.column),
            .init("comments", "lines said above it: that hope-sync added it, and why", \.comments),
        ]
    }
}

struct SQLiteColumn: TemplateObject {
    var name: String
    var type: String
    var primaryKey: Bool
    var notNull: Bool
    var `default`: String?
    var check: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("name", "the column's name", \.name),
            .init("type", "its SQLite type (`TEXT`, `INTEGER`, …)", \.type),
            .init("primaryKey", "the id column", \.primaryKey),
            .init("notNull", "whether the device's column is NOT NULL (a version column never is)", \.notNull),
            .init("default", "its default as an SQLite literal", \.default),
            .init("check", "a CHECK condition (booleans, enum values)", \.check),
        ]
    }
}

struct SQLiteIndex: TemplateObject {
    var name: String
    var table: String
    var columns: String
    var unique: Bool

    static var fields: [TemplateField<Self>] {
        [
            .init("name", "the index's name", \.name),
            .init("table", "its table", \.table),
            .init("columns", "its columns, comma-separated", \.columns),
            .init("unique", "a unique index", \.unique),
        ]
    }
}
