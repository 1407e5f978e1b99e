/// Raw string literals (Swift `#"…"#`, Rust `r#"…"#`) need more `#`s than the longest run of
/// `#`s that follows a quote (which would end the literal) or, in Swift, a backslash (which
/// would start an escape or an interpolation, as `\#(x)` does inside `#"…"#`). One count serves
/// both languages: a `#` more than Rust needs changes nothing.
enum RawLiteral {
    static func hashCount(for text: String) -> Int {
        let quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        let hash = UInt8(ascii: "#")
        var longest = 0
        var run = -1
        for character in text.utf8 {
            if character == quote || character == backslash {
                run = 0
            } else if character == hash, run >= 0 {
                run += 1
                longest = max(longest, run)
            } else {
                run = -1
            }
        }
        return longest + 1
    }

    static func hashes(for text: String) -> String {
        String(repeating: "#", count: hashCount(for: text))
    }
}
