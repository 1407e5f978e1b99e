/// `rust/tables.rs.mustache`: the Rust table lists and migrations.
struct RustTablesContext: TemplateContext {
    static let template = "rust/tables.rs.mustache"
    static let summary = "`Generated/rust/tables.rs`: table lists and local migrations as constants, no crates"

    var tables: [Table]
    var shared: Bool
    var migrations: [EmbeddedMigration]
    var pullFunction: String
    var schemaVersion: String

    struct Table: TemplateObject {
        var name: String
        var constant: String
        var columns: [Column]
        var conflict: String
        var lookback: String
        var openRowRule: String
        var files: [File]
        var scope: String?

        struct File: TemplateObject {
            var column: String
            var bucket: String
            var download: String

            static var fields: [TemplateField<Self>] {
                [
                    .init("column", "the file column's name", \.column),
                    .init("bucket", "its Storage bucket", \.bucket),
                    .init("download", "`Eager` or `OnRead`: when devices fetch its files", \.download),
                ]
            }
        }

        struct Column: TemplateObject {
            var name: String
            var type: String
            var nullable: String

            static var fields: [TemplateField<Self>] {
                [
                    .init("name", "the column's name", \.name),
                    .init("type", "its SQLite type", \.type),
                    .init("nullable", "`true` or `false`: whether the device's column may be NULL", \.nullable),
                ]
            }
        }

        static var fields: [TemplateField<Self>] {
            [
                .init("name", "the table's name", \.name),
                .init("constant", "the Rust constant naming it", \.constant),
                .init("columns", "every synced column, in table order", \.columns),
                .init("conflict", "a `ConflictMode::…` expression", \.conflict),
                .init("lookback", "sequence numbers a pull starts behind its cursor (0: exact ordering)", \.lookback),
                .init("openRowRule", "`Some((start, end))` or `None`", \.openRowRule),
                .init("files", "each file column, in table order", \.files),
                .init("scope", "how its rows are shared, a `Scope::…` expression; none when unshared", \.scope),
            ]
        }
    }

    static var fields: [TemplateField<Self>] {
        [
            .init("tables", "each table, in schema order, a scope's membership table right after it", \.tables),
            .init("shared", "some table is shared: the file declares `Scope` and `Table::scope`", \.shared),
            .init("migrations", "every local migration, its SQL as it is on disk", \.migrations),
            .init("pullFunction", "the server function that pulls every table in one request", \.pullFunction),
            .init("schemaVersion", "the build's schema version: the number of its newest migration", \.schemaVersion),
        ]
    }
}
