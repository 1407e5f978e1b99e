import Foundation
import Testing

/// Compares text with a committed file under Tests/HopeSyncTransportTests/Golden/. With
/// `RECORD_GOLDEN=1` in the environment the file is (re)written and the test fails once, so a
/// recording is always looked at before it is committed.
func expectGolden(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden").appendingPathComponent(name + ".txt")
    if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
        try actual.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("Recorded \(name).txt: check it, then run again without RECORD_GOLDEN", sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
        Issue.record("No golden file \(name).txt (record it with RECORD_GOLDEN=1); actual:\n\(actual)", sourceLocation: sourceLocation)
        return
    }
    #expect(actual == expected, "differs from \(name).txt", sourceLocation: sourceLocation)
}

extension RecordedRequest {
    /// The request as a golden file holds it: the request line, the headers by name (lowercase:
    /// Foundation on Linux capitalizes them, Apple's keeps them as set), a blank line, the body.
    var goldenText: String {
        var lines = ["\(method) \(url)"]
        lines += headers.map { (name: $0.key.lowercased(), value: $0.value) }.sorted { $0.name < $1.name }.map { "\($0.name): \($0.value)" }
        lines.append("")
        lines.append(body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        return lines.joined(separator: "\n") + "\n"
    }
}
