import Foundation
import HopeSyncTestSupport
import Testing

@testable import HopeSyncModel

/// The canonical text written straight from bytes is the tree's canonical text, for every
/// document, and refuses what the tree's parser refuses.
struct CanonicalWriterTests {
    @Test(arguments: [
        #"{"b":1,"a":2}"#,
        #" { "z" : [ 1 , 2.50 , -0 , 1E+400 ] , "a" : { "y" : null , "x" : true } } "#,
        #"{"a":1,"a":2,"b":{"c":3,"c":[4]}}"#,
        #"{"é":"ü","e":"\u00e9","\u0065":"dup","\n":"\t\"\\\/"}"#,
        #"["\ud83d\ude00","\u001f","plain",{}]"#,
        #"{"column_stamps":{"note":"000001700000000001:device-a","name":"000001700000000002:"}}"#,
        #"12345678901234567890123"#,
        #""text""#,
        #"[[],[{}],{"":""}]"#,
        " {\"b\": \"x\", \"a\": \"y\"}\n", "{}",
    ])
    func theSameTextAsTheTreeWrites(_ document: String) throws {
        #expect(try JSONValue.canonicalText(of: document) == JSONValue(parsing: document).canonicalText)
    }

    /// Flat objects of plain strings (a row's stamps) take a path of their own: as PostgreSQL's
    /// jsonb prints them, with a repeated key, and with more members than that path holds.
    @Test(arguments: [3, 63, 64, 65, 200])
    func flatObjectsOfAnySizeMatchTheTree(_ members: Int) throws {
        var generator = SeededGenerator(seed: UInt64(members))
        let keys = (0..<members).map { "column_\($0)" }.shuffled(using: &generator)
        let pairs = keys.map { #""\#($0)": "000001700000000001:device""# } + [#""\#(keys[0])": "000001700000000002:later""#]
        let document = "{" + pairs.joined(separator: ", ") + "}"
        let canonical = try JSONValue.canonicalText(of: document)
        #expect(try canonical == JSONValue(parsing: document).canonicalText)
        #expect(canonical.contains(#""\#(keys[0])":"000001700000000002:later""#))
    }

    @Test(arguments: [
        #"{"a":}"#, #"{"a" 1}"#, #"[1,]"#, "\"\u{01}\"", #"{"a":1} x"#, #"{"a":"b"} x"#, #"{"a":"b""#, #"[01]"#, #""\x""#, "[",
        #"{"a":"\ud83d"}"#,
    ])
    func refusesWhatTheTreeRefuses(_ document: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.canonicalText(of: document) }
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: document) }
    }

    @Test func nestingIsBoundedAsInTheTree() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.canonicalText(of: deep, maximumDepth: 39) }
        #expect(
            (try? JSONValue.canonicalText(of: deep, maximumDepth: 41)) == String(repeating: "[", count: 40)
                + String(repeating: "]", count: 40))
    }

    /// Random documents (seeded): nesting, repeated and escaped keys, every kind of value, numbers
    /// in every form JSON allows. Where jsonb cannot hold a document (a NUL, a number beyond
    /// numeric) the writer refuses it, saying so, while the tree reads it.
    @Test func randomDocumentsMatchTheTree() throws {
        var generator = SeededGenerator(seed: 20_261_201)
        var refused = 0
        for _ in 0..<2_000 {
            let document = Self.randomValue(&generator, depth: 0)
            let spaced = Bool.random(using: &generator) ? document.replacingOccurrences(of: ",", with: " , ") : document
            let tree = try JSONValue(parsing: spaced)
            do throws(JSONSyntaxError) {
                let canonical = try JSONValue.canonicalText(of: spaced)
                #expect(canonical == tree.canonicalText, "\(spaced)")
            } catch {
                #expect(error.kind != .syntax, "\(spaced)")
                refused += 1
            }
        }
        #expect(refused > 0 && refused < 400)
    }

    static func randomValue(_ generator: inout SeededGenerator, depth: Int) -> String {
        let keys = ["a", "b", "é", "\\u0061", "a\\nb", "\\\"", "", "zz", "B"]
        let strings = ["\"x\"", "\"\\u00e9\"", "\"ü\"", "\"\\\\\"", "\"\\/\"", "\"\\ud83d\\ude00\"", "\"\"", "\"a\\u0000\""]
        let numbers = [
            "0", "-0", "1.50", "1e5", "-12.5E-3", "9223372036854775808", "1E+2", "1.50e-1", "-0.0", "1e-7", "0e10", "-0e-5",
            "100e-2", "1e400", "1E-400", "1e0002", "0.000", "1e131072", "0e-16384",
        ]
        switch Int.random(in: depth > 3 ? 2..<5 : 0..<5, using: &generator) {
        case 0:
            let members = (0..<Int.random(in: 0..<5, using: &generator)).map { _ in
                "\"\(keys.randomElement(using: &generator)!)\":\(randomValue(&generator, depth: depth + 1))"
            }
            return "{" + members.joined(separator: ",") + "}"
        case 1:
            return "["
                + (0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomValue(&generator, depth: depth + 1) }
                .joined(separator: ",") + "]"
        case 2: return strings.randomElement(using: &generator)!
        case 3: return numbers.randomElement(using: &generator)!
        default: return ["true", "false", "null"].randomElement(using: &generator)!
        }
    }
}
