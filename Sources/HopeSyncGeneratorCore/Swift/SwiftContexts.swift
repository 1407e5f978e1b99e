/// `swift/record.swift.mustache`: one table's row type, Codable and coding its column values itself.
struct SwiftRecordContext: TemplateContext {
    static let template = "swift/record.swift.mustache"
    static let summary = "one table's row type, Codable and coding its column values itself, `Generated/swift/<Type>.swift`"

    var table: String
    var type: String
    var about: String?
    var properties: [Property]
    var columns: [Column]
    var columnCount: String
    var enums: [Enumeration]
    var schemaColumns: [String]
    var conflict: String
    var ordering: String
    var openRowRule: String
    var scope: String?

    struct Property: TemplateObject {
        var name: String
        var column: String
        var index: String
        var renamed: Bool
        var type: String
        var `default`: String?

        static var fields: [TemplateField<Self>] {
            [
                .init("name", "the Swift property name (camel case)", \.name),
                .init("column", "the column's name", \.column),
                .init("index", "the column's place in the table's columns, from 0", \.index),
                .init("renamed", "the two differ, so a coding key maps them", \.renamed),
                .init("type", "the Swift type, module-qualified, `?` when optional", \.type),
                .init("default", "the initializer's default as a Swift expression", \.default),
            ]
        }
    }

    struct Column: TemplateObject {
        var name: String
        var property: String?

        static var fields: [TemplateField<Self>] {
            [
                .init("name", "the column's name", \.name),
                .init("property", "the Swift property holding it; none for column_stamps, which the runtime keeps", \.property),
            ]
        }
    }

    struct Enumeration: TemplateObject {
        var name: String
        var cases: [Case]

        struct Case: TemplateObject {
            var `case`: String
            var raw: String
            var renamed: Bool

            static var fields: [TemplateField<Self>] {
                [
                    .init("case", "the Swift case name", \.case),
                    .init("raw", "the stored value as a Swift string literal", \.raw),
                    .init("renamed", "the case name differs from the value", \.renamed),
                ]
            }
        }

        static var fields: [TemplateField<Self>] {
            [.init("name", "the nested enum's type name", \.name), .init("cases", "its cases, in schema order", \.cases)]
        }
    }

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("type", "the row type's name (`swift_name:` or the singular of the table)", \.type),
            .init(
                "about", "a sentence the row type's documentation adds: a column hope-sync added, or that it is a membership table", \.about
            ),
            .init("properties", "the row's properties: every synced column but column_stamps", \.properties),
            .init("columns", "every synced column, in table order (the order of `columnValues()`)", \.columns),
            .init("columnCount", "how many synced columns the table has", \.columnCount),
            .init("enums", "a nested enum per enum column", \.enums),
            .init("schemaColumns", "each synced column as a `HopeSync.ColumnSchema(…)` expression", \.schemaColumns),
            .init("conflict", "the conflict mode as a Swift expression (`.lww`, `.version(.timestamp)`)", \.conflict),
            .init("ordering", "the pull ordering as a Swift expression (`.exact`, `.lookback(50)`)", \.ordering),
            .init("openRowRule", "a `HopeSync.OpenRowRule(…)` expression, empty when the table has none", \.openRowRule),
            .init("scope", "how its rows are shared, a `HopeSync.TableScope` expression (`.scoped(by: …)`); none when unshared", \.scope),
        ]
    }
}

/// `swift/schema.swift.mustache`: the table list and the embedded migrations.
struct SwiftSchemaContext: TemplateContext {
    static let template = "swift/schema.swift.mustache"
    static let summary = "`Generated/swift/GeneratedSchema.swift`: the table list and the local migrations"

    var types: [String]
    var migrations: [EmbeddedMigration]
    var pullFunction: String

    static var fields: [TemplateField<Self>] {
        [
            .init("types", "each table's row type name, in schema order, a scope's membership table right after it", \.types),
            .init("migrations", "every local migration, its SQL as it is on disk", \.migrations),
            .init("pullFunction", "the server function that pulls every table in one request", \.pullFunction),
        ]
    }
}
