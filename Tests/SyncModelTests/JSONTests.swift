import Foundation
import Testing

@testable import SyncModel

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

    @Test func invalidUTF8InAStringIsRefused() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: Data([0x22, 0xC3, 0x28, 0x22])) }
    }
}
