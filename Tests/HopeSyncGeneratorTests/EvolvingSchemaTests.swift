import Foundation
import HopeSyncGenerator
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncTestSupport
import Testing

/// Random schemas from RandomSchemaTests' pools, evolved over several `generate` runs: tables
/// added, columns added anywhere in schema.yaml, indexes (unique ones over a new column), a
/// row-merge table turned to column merge, exact ordering switched. Every prefix of the final
/// migrations and then the final schema.sql, and each earlier run's schema.sql and then the
/// final one, end where all the migrations end, column order included. A few schemas per run
/// (seeded by the run, printed on failure); `HOPE_RANDOM_SCHEMAS=n` runs more.
@Suite struct EvolvingSchemaTests {
    @Test func everyWayToAnEvolvedSchemasDatabaseEndsAlike() throws {
        let count = ProcessInfo.processInfo.environment["HOPE_RANDOM_SCHEMAS"].flatMap(Int.init) ?? 3
        let seed = UInt64(Date().timeIntervalSince1970)
        var random = SeededGenerator(seed: seed)
        var evolved = 0
        for index in 0..<count {
            var schema = EvolvingSchema(using: &random)
            var tree = GeneratedTree()
            var pastes: [String] = []
            var history: [String] = []
            for step in 0..<4 {
                var next = schema
                if step > 0 { next.evolve(using: &random) }
                do {
                    tree = try generate(next.yaml, existing: tree).tree
                } catch is SchemaError {
                    // A name the generator refuses (RandomSchemaTests keeps those rare): try
                    // another change, or another schema when the first run is refused.
                    if step == 0 { break } else { continue }
                }
                schema = next
                history.append(next.yaml)
                pastes.append(try #require(tree["supabase/schema.sql"]))
            }
            guard pastes.count > 1 else { continue }
            evolved += 1
            let problems = try UpgradePaths.problems(in: tree.files, earlierSchemaSQL: Array(pastes.dropLast()))
            #expect(
                problems.isEmpty,
                "evolving schema \(index) of seed \(seed), each run's schema.yaml:\n\(history.joined(separator: "---\n"))\n\(problems.joined(separator: "\n"))"
            )
        }
        #expect(evolved * 2 >= count, "seed \(seed): only \(evolved) of \(count) schemas evolved")
    }
}

/// A schema.yaml as tables of lines, so that a run can add to it where a person would.
struct EvolvingSchema {
    struct Table {
        var name: String
        var version: String?
        var rowMerge = false
        var exactOrdering = true
        var columns: [(name: String, type: String)] = []
        var indexes: [String] = []
    }

    var tables: [Table] = []

    init(using random: inout SeededGenerator) {
        for _ in 0..<(1 + random.below(2)) { addTable(using: &random) }
    }

    var yaml: String {
        var yaml = "tables:\n"
        for table in tables {
            yaml += "  \(table.name):\n"
            if let version = table.version { yaml += "    conflict: { mode: version, version: \(version) }\n" }
            if table.rowMerge { yaml += "    merge: row\n" }
            if !table.exactOrdering { yaml += "    exact_ordering: false\n" }
            yaml += "    columns:\n" + table.columns.map { "      \($0.name): \($0.type)\n" }.joined()
            if !table.indexes.isEmpty { yaml += "    indexes:\n" + table.indexes.map { "      - \($0)\n" }.joined() }
        }
        return yaml
    }

    /// One or two additive changes, each what a person might make between two releases.
    mutating func evolve(using random: inout SeededGenerator) {
        for _ in 0..<(1 + random.below(2)) {
            let table = random.below(tables.count)
            switch random.below(6) {
            case 0: addTable(using: &random)
            case 1, 2: addColumn(to: table, type: RandomSchemaTests.columnType(using: &random), using: &random)
            case 3:
                // A unique index may only come with a new column that every existing row holds as NULL.
                if let column = addColumn(to: table, type: "int?", using: &random) {
                    tables[table].indexes.append("{ columns: [\(column)], unique: true }")
                }
            case 4:
                let column = tables[table].columns[random.below(tables[table].columns.count)].name
                if !tables[table].indexes.contains(where: { $0.hasPrefix("{ columns: [\(column)]") }) {
                    tables[table].indexes.append("{ columns: [\(column)] }")
                }
            default:
                if tables[table].rowMerge { tables[table].rowMerge = false } else { tables[table].exactOrdering.toggle() }
            }
        }
    }

    private mutating func addTable(using random: inout SeededGenerator) {
        let unused = RandomSchemaTests.tableNames.filter { name in !tables.contains { $0.name == name } }
        guard !unused.isEmpty else { return }
        var table = Table(name: unused[random.below(unused.count)])
        switch random.below(4) {
        case 0: table.version = random.below(2) == 0 ? "integer" : "timestamp"
        case 1: table.rowMerge = true
        default: break
        }
        tables.append(table)
        for _ in 0..<(1 + random.below(3)) {
            addColumn(to: tables.count - 1, type: RandomSchemaTests.columnType(using: &random), using: &random)
        }
    }

    /// A new column at any place among the table's columns: the server adds it last anyway.
    @discardableResult
    private mutating func addColumn(to table: Int, type: String, using random: inout SeededGenerator) -> String? {
        let unused = RandomSchemaTests.columnNames.filter { name in !tables[table].columns.contains { $0.name == name } }
        guard !unused.isEmpty else { return nil }
        let name = unused[random.below(unused.count)]
        tables[table].columns.insert((name, type), at: random.below(tables[table].columns.count + 1))
        return name
    }
}
