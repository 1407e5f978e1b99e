import Foundation
import Testing

@testable import HopeSyncModel

/// The one JSON reader and writer (transports, local storage, schema defaults), used instead of
/// JSONSerialization so integers stay exact and bodies are written byte for byte.
struct JSONTests {
    @Test func numbersKeepTheirLiteralText() throws {
        let value = try JSONValue(parsing: "[9223372036854775807, -0, 1.50, 1E+400, 12345678901234567890123]")
        #expect(
            value
                == .array([
                    .number("9223372036854775807"), .number("-0"), .number("1.50"), .number("1E+400"), .number("12345678901234567890123"),
                ]))
        #expect(value.serialized() == "[9223372036854775807,-0,1.50,1E+400,12345678901234567890123]")
    }

    @Test func stringsDecodeEveryEscape() throws {
        let value = try JSONValue(parsing: #""a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac\ud83d\ude00""#)
        #expect(value == .string("a\"b\\c/d\u{08}\u{0C}\n\r\té€😀"))
    }

    @Test func writingEscapesOnlyWhatJSONRequires() {
        #expect(JSONValue.string("q\"b\\n\n\u{01}\u{1F}é😀/").serialized() == #""q\"b\\n\n\u0001\u001fé😀/""#)
    }

    @Test func canonicalTextSortsKeysAndKeepsTheLastOfADuplicate() throws {
        let value = try JSONValue(parsing: #" { "b" : 1 , "a" : { "z" : [ ] , "y" : { } } , "b" : 2 } "#)
        #expect(value.serialized() == #"{"b":1,"a":{"z":[],"y":{}},"b":2}"#)
        #expect(value.serialized(sortingKeys: true) == #"{"a":{"y":{},"z":[]},"b":2}"#)
        #expect(value["b"] == .number("2"))
    }

    @Test(arguments: [
        ("", "the text ended early"),
        ("[1,", "the text ended early"),
        (#"{"a" 1}"#, "expected ':'"),
        ("[1 2]", "expected ',' or ']'"),
        ("01", "a number with a leading zero"),
        ("-", "the text ended early"),
        ("1.", "the text ended early"),
        ("[1]x", "expected the end of the text"),
        ("tru", "the text ended early"),
        ("nul!", "expected null"),
        (#""\x""#, "an unknown escape"),
        (#""\ud800""#, "expected a low surrogate"),
        ("\"a\u{01}\"", "a control character in a string"),
        ("<html>", "expected a value"),
    ])
    func malformedTextIsRefusedWithAReason(text: String, reason: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError(offset: 512, reason: "nested too deeply")) { try JSONValue(parsing: deep) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(try JSONValue(parsing: fine).serialized() == fine)
    }

    /// What PostgreSQL 15 prints for `select '<literal>'::jsonb::text`: numeric's text, with no
    /// exponent and the literal's scale (JSONAsPostgresHoldsItTests hold this against the server).
    @Test(arguments: [
        ("1E+2", "100"), ("1.50", "1.50"), ("1.5e1", "15"), ("1.50e-1", "0.150"), ("-0", "0"), ("-0.0", "0.0"),
        ("1e-7", "0.0000001"), ("0e10", "0"), ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("1e400", "1" + String(repeating: "0", count: 400)), ("1E-400", "0." + String(repeating: "0", count: 399) + "1"),
        ("-0e-5", "0.00000"), ("100e-2", "1.00"), ("12.3e-1", "1.23"), ("-1.5E-0", "-1.5"), ("-12.5E-3", "-0.0125"),
        ("1e000000000000000000000002", "100"), ("0e1073741822", "0"), ("-0.000e3", "0"), ("9.99e2", "999"),
        ("1e131071", "1" + String(repeating: "0", count: 131_071)), ("1e-16383", "0." + String(repeating: "0", count: 16_382) + "1"),
    ])
    func canonicalNumbersAreNumericsText(literal: String, printed: String) throws {
        #expect(try JSONValue.canonicalText(of: literal) == printed)
        #expect(try JSONValue(parsing: "[\(literal)]").canonicalText == "[\(printed)]")
        #expect(try JSONValue(parsing: literal).serialized() == literal, "only the canonical text rewrites numbers")
    }

    /// JSON that jsonb cannot hold: the tree reads it (it is JSON); the canonical writer, which
    /// writes what jsonb would print, refuses it with its kind.
    @Test(arguments: [
        ("1e131072", JSONSyntaxError.Kind.numberOutOfRange), ("10e131071", .numberOutOfRange), ("1e-16384", .numberOutOfRange),
        ("0e-16384", .numberOutOfRange), ("1.0e-16383", .numberOutOfRange), ("0e1073741823", .numberOutOfRange),
        ("-1e2147483648", .numberOutOfRange), ("1e99999999999999999999", .numberOutOfRange),
        ("1" + String(repeating: "0", count: 131_072), .numberOutOfRange),
        ("0." + String(repeating: "0", count: 16_384), .numberOutOfRange),
        (#"{"k":"\u0000"}"#, .nul), (#"{"a\u0000b":1}"#, .nul), (#"["x\u0000"]"#, .nul),
    ])
    func whatJSONBCannotHoldHasNoCanonicalText(document: String, kind: JSONSyntaxError.Kind) throws {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.canonicalText(of: document) }
        do {
            _ = try JSONValue.canonicalText(of: document)
        } catch {
            #expect(error.kind == kind)
        }
        let tree = try JSONValue(parsing: document)
        #expect(tree.canonicalText.utf8.count == document.utf8.count, "written as it stands")
    }

    @Test func aLoneLowSurrogateIsRefusedWithAReason() {
        #expect(throws: JSONSyntaxError(offset: 2, reason: "a low surrogate with no high surrogate before it")) {
            try JSONValue(parsing: #"["\udc00"]"#)
        }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Data([0x22, 0xC3, 0x28, 0x22])) }
    }
}
