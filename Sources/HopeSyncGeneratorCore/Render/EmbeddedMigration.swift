/// A local migration embedded in a client's table list.
struct EmbeddedMigration: TemplateObject {
    var version: String
    var name: String
    var sql: String

    static var fields: [TemplateField<Self>] {
        [
            .init("version", "the migration's number", \.version),
            .init("name", "its name (`sessions_add_note`)", \.name),
            .init("sql", "its SQL as a string literal of the language, quotes included", \.sql),
        ]
    }
}
