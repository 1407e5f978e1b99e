import Foundation
import HopeSyncPostgresCluster

/// `bench generate`: `generate --check` as a whole process, as CI and build steps run it, on a
/// generated 200-table schema beside the project's own schema.yaml; median of several runs.
enum GenerateCheck {
    static let runs = 15

    static func run() async throws -> [Figure] {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("generate")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw BenchmarkError("no generate binary beside bench: run `swift build -c release` first")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hope-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let large = scratch.appendingPathComponent("large")
        try FileManager.default.createDirectory(at: large, withIntermediateDirectories: true)
        try Data(largeSchema(tables: 200).utf8).write(to: large.appendingPathComponent("schema.yaml"))
        let project = scratch.appendingPathComponent("project")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        for item in ["schema.yaml", "Generated"] {
            try FileManager.default.copyItem(at: Repository.root.appendingPathComponent(item), to: project.appendingPathComponent(item))
        }
        guard try generate(binary, ["--schema", large.appendingPathComponent("schema.yaml").path]) == 0 else {
            throw BenchmarkError("generate failed on the 200-table schema")
        }

        print("generate --check, whole process, median of \(runs) runs")
        var medians: [Double] = []
        for (label, folder) in [("project schema.yaml (4 tables)", project), ("generated schema (200 tables)", large)] {
            let schema = folder.appendingPathComponent("schema.yaml").path
            var times: [Double] = []
            for _ in 0..<runs {
                var status: Int32 = 0
                times.append(try Measure.seconds { status = try generate(binary, ["--schema", schema, "--check"]) })
                guard status == 0 else { throw BenchmarkError("generate --check exited \(status) on \(label)") }
            }
            medians.append(Measure.median(times))
            print("  \(label.padded(32)) \(Measure.format(medians.last! * 1000)) ms")
        }
        print("  ratio 200 tables / project: \(Measure.format(medians[1] / medians[0], digits: 2))x (budget: under 200 ms)")
        return [
            Figure("generate.check_ms_project", medians[0] * 1000, aim: nil, digits: 1),
            Figure("generate.check_ms_200_tables", medians[1] * 1000, aim: 200, digits: 1),
        ]
    }

    /// 200 tables of 8 columns each, covering every type, both conflict modes and indexes.
    static func largeSchema(tables: Int) -> String {
        var yaml = "tables:\n"
        for index in 0..<tables {
            yaml += """
                  table_\(index):
                    \(index % 5 == 0 ? "conflict: version\n    " : "")columns:
                      title: text
                      notes: text?
                      amount: { type: double, default: 0 }
                      count: { type: int, default: 1 }
                      flag: { type: bool, default: false }
                      ref_id: { type: uuid, references: table_0, nullable: true }
                      kind: { type: enum, values: [a, b, c], default: a }
                      payload: json?
                    indexes:
                      - columns: [title]

                """
        }
        return yaml
    }

    private static func generate(_ binary: URL, _ arguments: [String]) throws -> Int32 {
        try Subprocess.run(.init(binary.path, arguments, output: .discard, error: .discard)).status
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
