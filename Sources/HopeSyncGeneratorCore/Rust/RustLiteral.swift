/// Rust string literals that hold any text exactly and compile without a warning. A raw
/// literal (`r#"…"#`) keeps the text readable; rustc refuses a bare carriage return in any
/// literal and denies the bidirectional-override characters (`text_direction_codepoint_in_literal`),
/// so text holding one is written as an ordinary literal with escapes instead.
enum RustLiteral {
    static func string(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else {
            let hashes = RawLiteral.hashes(for: text)
            return "r\(hashes)\"\(text)\"\(hashes)"
        }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result.unicodeScalars.append(scalar)
            case _ where needsEscape(scalar) || scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A carriage return, or a character that reorders the text around it when displayed
    /// (U+202A…U+202E, U+2066…U+2069), which rustc denies so source cannot deceive a reviewer.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\r" || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
