/// Swift string literals that hold any text exactly. Raw literals (`#"…"#`) keep quotes and
/// backslashes as they are; what Swift source cannot hold verbatim is written as an escape
/// with the literal's `#`s: control characters (swiftc refuses a tab or a DEL in a literal,
/// reads a carriage return as a line break, and a multi-line literal would turn CR LF into LF).
enum SwiftLiteral {
    /// `"text"` on one line, or `#"text"#` when the text holds a quote or a backslash.
    static func string(_ text: String) -> String {
        let plain = !text.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || needsEscape($0, keepingLineFeeds: false) }
        if plain { return "\"" + text + "\"" }
        let hashes = RawLiteral.hashes(for: text)
        return hashes + "\"" + escaped(text, hashes: hashes, keepingLineFeeds: false) + "\"" + hashes
    }

    /// A `#"""` literal whose lines are indented by `indent` (which Swift strips again), so
    /// long text such as a migration reads as it is in its file.
    static func multiline(_ text: String, indent: String) -> String {
        let hashes = RawLiteral.hashes(for: text)
        let text = escaped(text, hashes: hashes, keepingLineFeeds: true)
        var body = ""
        body.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        for (index, line) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if index > 0 { body += "\n" }
            if !line.isEmpty { body += indent + String(decoding: line, as: UTF8.self) } // blank lines stay blank
        }
        return "\(hashes)\"\"\"\n\(body)\n\(indent)\"\"\"\(hashes)"
    }

    private static func escaped(_ text: String, hashes: String, keepingLineFeeds: Bool) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineFeeds: keepingLineFeeds) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingLineFeeds: keepingLineFeeds) {
                result += "\\\(hashes)u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingLineFeeds: Bool) -> Bool {
        if scalar == "\n" { return !keepingLineFeeds }
        return scalar.value < 0x20 || scalar.value == 0x7F
    }
}
