/// pgTAP's plan, the number of tests a file runs, counted from the rendered SQL rather than
/// declared beside the template: a test added to or taken from a template (the user's own
/// included) changes the plan with it.
enum PgTAPPlan {
    /// The calls of pgTAP's test functions in `sql`, outside quotes and comments (the tests'
    /// statements run inside dollar quotes, and their descriptions are string literals).
    static func count(in sql: String) -> Int {
        let bytes = Array(sql.utf8)
        var count = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                index = SQLTokens.end(of: bytes, from: index, closing: byte)
            } else if bytes[index...].starts(with: "--".utf8) {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if bytes[index...].starts(with: "/*".utf8) {
                index = (find("*/".utf8, in: bytes, from: index + 2) ?? bytes.count) + 2
            } else if let tag = dollarQuote(in: bytes, at: index) {
                index = (find(tag, in: bytes, from: index + tag.count) ?? bytes.count) + tag.count
            } else if SQLTokens.isIdentifierStart(byte) {
                let start = index
                while index < bytes.count, SQLTokens.isIdentifierStart(bytes[index]) || SQLTokens.isDigit(bytes[index]) { index += 1 }
                let name = String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
                if index < bytes.count, bytes[index] == UInt8(ascii: "("), isTest(name) { count += 1 }
            } else {
                index += 1
            }
        }
        return count
    }

    /// pgTAP's test functions: each call is one test. (`plan`, `finish`, `diag` and the like
    /// are not; nor are SQL's own functions.)
    static func isTest(_ name: String) -> Bool {
        tests.contains(name) || testPrefixes.contains { name.hasPrefix($0) } || testSuffixes.contains { name.hasSuffix($0) }
    }

    private static let tests: Set<String> = [
        "ok", "is", "isnt", "pass", "fail", "matches", "imatches", "doesnt_match", "doesnt_imatch", "alike", "ialike", "unalike",
        "unialike", "can",
    ]
    private static let testPrefixes = ["has_", "hasnt_", "is_", "isnt_", "col_", "throws_", "policy_"]
    private static let testSuffixes = [
        "_ok", "_is", "_isnt", "_are", "_eq", "_ne", "_has", "_hasnt", "_like", "_matching", "_within", "_returns", "_labels",
    ]

    /// `$tag$` (or `$$`) opening a dollar-quoted string at `index`.
    private static func dollarQuote(in bytes: [UInt8], at index: Int) -> [UInt8]? {
        guard bytes[index] == UInt8(ascii: "$") else { return nil }
        var end = index + 1
        if end < bytes.count, SQLTokens.isIdentifierStart(bytes[end]) {
            while end < bytes.count, SQLTokens.isIdentifierStart(bytes[end]) || SQLTokens.isDigit(bytes[end]) { end += 1 }
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "$") else { return nil }
        return Array(bytes[index...end])
    }

    private static func find(_ needle: some Collection<UInt8>, in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index...].starts(with: needle) { return index }
            index += 1
        }
        return nil
    }
}
