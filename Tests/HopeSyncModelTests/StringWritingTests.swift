import Foundation
import HopeSyncTestSupport
import Testing

@testable import HopeSyncModel

/// JSON strings and bytewise order, written the fast way, give what the plain definitions give:
/// escapes scalar by scalar, and the lexicographic order of UTF-8 bytes.
struct StringWritingTests {
    /// Random strings (seeded) over what needs an escape, ASCII, and two-, three- and four-byte
    /// scalars.
    static func strings(count: Int, seed: UInt64) -> [String] {
        var random = SeededGenerator(seed: seed)
        let alphabet: [Unicode.Scalar] = [
            "\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}", "\u{7F}", "a", "Z", "0", ":", " ", "é", "\u{2028}", "€",
            "😀", "\u{FFFF}",
        ]
        return (0..<count).map { _ in
            String(String.UnicodeScalarView((0..<random.below(12)).map { _ in alphabet[random.below(alphabet.count)] }))
        }
    }

    /// The escaping as first written: scalar by scalar.
    static func reference(_ value: String) -> String {
        var output = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case let control where control.value < 0x20:
                output += "\\u00" + (control.value < 0x10 ? "0" : "") + String(control.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    @Test func stringsAreEscapedAsScalarByScalar() {
        for value in Self.strings(count: 2_000, seed: 23) {
            var text = "["
            JSONValue.writeString(value, to: &text)
            var bytes = Array("[".utf8)
            JSONValue.writeString(value, to: &bytes)
            #expect(text == "[" + Self.reference(value))
            #expect(bytes == Array(text.utf8))
        }
    }

    @Test func bytewiseOrderIsTheOrderOfUTF8Bytes() {
        let values = Self.strings(count: 300, seed: 24) + ["", "a", "ab", "b", "é", "e\u{301}"]
        for lhs in values {
            for rhs in values.prefix(60) {
                #expect(
                    lhs.precedesBytewise(rhs) == lhs.utf8.lexicographicallyPrecedes(rhs.utf8),
                    "\(lhs.debugDescription) \(rhs.debugDescription)")
            }
        }
    }
}
