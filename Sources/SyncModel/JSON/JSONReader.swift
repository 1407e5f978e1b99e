/// Reads a JSON document from its bytes one value at a time, for callers that turn a large
/// document straight into their own values (a page of rows) with no tree in between. Nested
/// values a caller does not walk are taken whole: as a tree (``readValue()``) or as their
/// canonical text (``readCanonicalText()``).
public struct JSONReader {
    private var parser: JSONParser
    private var depth = 0

    public init<Bytes: Collection<UInt8>>(utf8: Bytes, maximumDepth: Int = JSONValue.maximumDocumentDepth) {
        parser = JSONParser(copying: utf8, maximumDepth: maximumDepth)
    }

    /// What the next value is, without reading it.
    public enum Kind: Equatable, Sendable {
        case object, array, other
    }

    public mutating func peek() throws(JSONSyntaxError) -> Kind {
        parser.skipWhitespace()
        guard parser.index < parser.bytes.count else { throw parser.failure("a value") }
        switch parser.bytes[parser.index] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        default: return .other
        }
    }

    /// Calls `element` for each element of the array that comes next; it must read exactly one value.
    public mutating func readArray(_ element: (inout JSONReader) throws(JSONSyntaxError) -> Void) throws(JSONSyntaxError) {
        try enter("[")
        if !parser.consume("]") {
            repeat { try element(&self) } while parser.consume(",")
            guard parser.consume("]") else { throw parser.failure("',' or ']'") }
        }
        depth -= 1
    }

    /// Calls `member` with each member's key, in document order; it must read the member's value.
    public mutating func readObject(_ member: (String, inout JSONReader) throws(JSONSyntaxError) -> Void) throws(JSONSyntaxError) {
        try enter("{")
        if !parser.consume("}") {
            repeat {
                parser.skipWhitespace()
                guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else {
                    throw parser.failure("a member name")
                }
                let key = try parser.parseString()
                guard parser.consume(":") else { throw parser.failure("':'") }
                try member(key, &self)
            } while parser.consume(",")
            guard parser.consume("}") else { throw parser.failure("',' or '}'") }
        }
        depth -= 1
    }

    /// Reads the next value when it is `null`; false, with nothing read, for any other value.
    public mutating func readNull() throws(JSONSyntaxError) -> Bool {
        guard try peek() == .other, parser.bytes[parser.index] == UInt8(ascii: "n") else { return false }
        try parser.expectWord("null")
        return true
    }

    /// The next value as a tree (a scalar costs no more than itself).
    public mutating func readValue() throws(JSONSyntaxError) -> JSONValue {
        try parser.parseValue(depth: depth)
    }

    /// The next value's canonical text (``JSONValue/canonicalText``), written from its bytes.
    public mutating func readCanonicalText() throws(JSONSyntaxError) -> String {
        var output: [UInt8] = []
        try parser.writeCanonical(depth: depth, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Checks that nothing but whitespace follows the document.
    public mutating func end() throws(JSONSyntaxError) {
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("the end of the text") }
    }

    private mutating func enter(_ opening: Unicode.Scalar) throws(JSONSyntaxError) {
        guard depth < parser.maximumDepth else { throw JSONSyntaxError(offset: parser.index, reason: "nested too deeply") }
        guard parser.consume(opening) else { throw parser.failure("'\(opening)'") }
        depth += 1
    }
}
