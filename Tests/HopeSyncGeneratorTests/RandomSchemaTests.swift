import Foundation
import HopeSyncGenerator
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncTestSupport
import Testing

/// Random valid schemas from a pool of awkward names (Swift keywords, runtime and standard
/// type names, near-collisions once camel-cased) and defaults (quotes, `\#`, control
/// characters, bidirectional overrides, unicode): each is either refused with diagnostics or
/// generates Swift that type-checks, Rust that compiles and embeds the migrations exactly, and
/// SQLite migrations that apply with the text defaults intact, and Supabase migrations that apply
/// in order on PostgreSQL 15 and make the catalog schema.sql makes, pasted fresh or over them
/// (twice). A few schemas per run (seeded by the run, printed on failure);
/// `HOPE_RANDOM_SCHEMAS=n` runs more. EvolvingSchemaTests take such schemas through several runs.
@Suite struct RandomSchemaTests {
    /// Names the validator accepts (those it refuses, such as `self` or `strings`, have bad-schema tests).
    static let tableNames = [
        "selves", "local_migrations", "open_row_rules", "pull_orderings", "tables", "migrations",
        "note_2s", "note2s", "a_bs", "a__bs", "inits", "codings", "events", "columns_", "row_s",
    ]
    static let columnNames = [
        "self", "init", "type", "string", "data", "bool", "double", "note_2", "note2", "a_b", "a__b",
        "server__seq", "coding_keys", "table_schema", "protocol", "foundation", "swift", "hope_sync",
        "value", "default_", "x1", "title", "column_values", "column_value",
    ]
    static let texts = [
        "", "it's", "\"#\"##", "a\tb", "a\rb", "a\r\nb", "A\\#(1)B\\#nC\\#", "x\u{202E}y", "☕ café", "\\", "\u{7F}", "line\nbreak", "#",
    ]
    static let enumValues = [
        "$$", "*/", "☕", "in progress", "in-progress", "Open", "open", "self", "default", "1st", "value", "columnValue",
    ]

    @Test func randomSchemasCompileApplyAndKeepTheirDefaults() throws {
        let count = ProcessInfo.processInfo.environment["HOPE_RANDOM_SCHEMAS"].flatMap(Int.init) ?? 3
        let seed = UInt64(Date().timeIntervalSince1970)
        var generator = SeededGenerator(seed: seed)
        var refusals: [String] = []
        for index in 0..<count {
            let yaml = Self.schema(using: &generator)
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hope-random-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let output: Generator.Output
            do {
                output = try generate(yaml)
            } catch let error as SchemaError {
                #expect(!error.diagnostics.isEmpty)
                refusals.append(error.description)
                continue
            }
            let writer = OutputWriter(directory: scratch)
            try writer.write(writer.changes(from: GeneratedTree(), to: output.tree), generated: output.tree)
            let name = "random schema \(index) of seed \(seed):\n\(yaml)"
            try SwiftOutputTests.typeCheck(scratch.appendingPathComponent("swift"), name: name)
            try RustOutputTests.compileAndCompareMigrations(scratch)
            try ReferenceSQLiteTests.applyAndCompareDefaults(
                parse(yaml).schema, sqlite: scratch.appendingPathComponent("sqlite"), name: name)
            try applyOnPostgreSQL(output.tree, name: name)
        }
        // The pool is meant to reach the compilers: most schemas must be accepted.
        #expect(refusals.count * 3 <= count, "seed \(seed): \(refusals.count) of \(count) refused:\n\(refusals.joined(separator: "\n"))")
    }

    /// The Supabase migrations in order, and schema.sql pasted fresh and over them (twice, as
    /// a project's owner might): each ends in the same catalog.
    private func applyOnPostgreSQL(_ tree: GeneratedTree, name: String) throws {
        #expect(!UpgradePaths.migrations(in: tree.files).isEmpty, "\(name)")
        do {
            let problems = try UpgradePaths.problems(in: tree.files)
            #expect(problems.isEmpty, "\(name)\n\(problems.joined(separator: "\n"))")
        } catch {
            Issue.record("\(name)\nPostgreSQL refused it: \(error)")
        }
    }

    static func schema(using random: inout SeededGenerator) -> String {
        var yaml = "tables:\n"
        for table in random.pick(tableNames, count: 1 + random.below(3)) {
            yaml += "  \(table):\n"
            if random.below(3) == 0 {
                yaml += "    conflict: { mode: version, version: \(random.below(2) == 0 ? "integer" : "timestamp") }\n"
            }
            yaml += "    columns:\n"
            for column in random.pick(columnNames, count: 1 + random.below(5)) {
                yaml += "      \(column): \(columnType(using: &random))\n"
            }
        }
        return yaml
    }

    /// A column's type in schema.yaml, with an awkward default or nullable: one that may also
    /// be added to a shipped table.
    static func columnType(using random: inout SeededGenerator) -> String {
        switch random.below(6) {
        case 0: return "{ type: text, default: \(quoted(random.pick(texts, count: 1)[0])) }"
        case 1:
            let values = random.pick(enumValues, count: 1 + random.below(4))
            return
                "{ type: enum, values: [\(values.map(quoted).joined(separator: ", "))], default: \(quoted(values[random.below(values.count)])) }"
        case 2: return "{ type: uuid, default: \"0f8fad5b-d9cb-469f-a165-70867728950e\" }"
        case 3: return "{ type: json, default: { \(quoted(random.pick(texts, count: 1)[0])): [1, \"\\u202E\"] } }"
        case 4: return "{ type: double, default: -0.5 }"
        default: return ["int?", "bool?", "bytes?", "timestamp?", "text?"][random.below(5)]
        }
    }

    /// A YAML double-quoted scalar holding exactly `text`.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2000...0x206F).contains(scalar.value):
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// The seeded generator, so a failing run can be repeated from its printed seed.
extension SeededGenerator {
    /// `count` distinct items (fewer if the pool is smaller), in pool order.
    mutating func pick(_ pool: [String], count: Int) -> [String] {
        var chosen = Set<Int>()
        while chosen.count < min(count, pool.count) { chosen.insert(below(pool.count)) }
        return chosen.sorted().map { pool[$0] }
    }
}
