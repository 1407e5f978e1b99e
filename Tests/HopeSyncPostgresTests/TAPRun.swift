import Foundation
import HopeSyncPostgresClient

/// A pgTAP file run over one connection, as `supabase test db` runs it, and its TAP output read
/// back: the plan, each test's line, pgTAP's diagnostics.
struct TAPRun {
    let lines: [String]

    init(file: String, on connection: Connection) throws {
        let results = try connection.results(ofScript: file)
        let values: [String] = results.flatMap { result in result.rows.flatMap { row in row.values.compactMap { $0 } } }
        lines = values.flatMap { $0.split(separator: "\n").map(String.init) }
    }

    /// N of the `1..N` line, if there is exactly one.
    var planned: Int? {
        let plans = lines.filter { $0.hasPrefix("1..") }
        return plans.count == 1 ? Int(plans[0].dropFirst(3)) : nil
    }

    /// The lines of tests that passed, and those that failed (`not ok`).
    var passed: [String] { lines.filter { $0.hasPrefix("ok ") } }
    var failed: [String] { lines.filter { $0.hasPrefix("not ok ") } }

    /// Every test passed: the plan was met, the tests are numbered 1...N, none failed, and pgTAP
    /// had nothing to say at the end ("# Looks like you planned ...").
    var allPassed: Bool {
        guard let planned, planned > 0, failed.isEmpty, !lines.contains(where: { $0.hasPrefix("# Looks like") }) else { return false }
        return passed.map { $0.dropFirst(3).prefix { $0 != " " } } == (1...planned).map { Substring(String($0)) }
    }

    /// What to print when a run failed: everything but the passing lines.
    var report: String { lines.filter { !$0.hasPrefix("ok ") }.joined(separator: "\n") }
}
