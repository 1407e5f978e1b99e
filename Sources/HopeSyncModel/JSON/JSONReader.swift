import Foundation

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
        try readMembers { parser throws(JSONSyntaxError) in
            try parser.parseString()
        } member: { key, reader throws(JSONSyntaxError) in
            try member(key, &reader)
        }
    }

    /// Calls `member` with each member's place in `names` (nil for a key not there), in
    /// document order; it must read the member's value. A key is matched on its bytes, the
    /// place after the previous member's first: no string is made for a row's column names.
    public mutating func readObject(
        naming names: JSONNames, _ member: (Int?, inout JSONReader) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        var next = 0
        try readMembers { parser throws(JSONSyntaxError) -> Int? in
            let place: Int?
            if let plain = parser.plainString() {
                parser.index = plain.upperBound + 1
                place = parser.bytes.withUnsafeBufferPointer { names.place(of: UnsafeBufferPointer(rebasing: $0[plain]), from: next) }
            } else {
                place = names.place(of: try parser.parseString())
            }
            if let place { next = place + 1 }
            return place
        } member: { place, reader throws(JSONSyntaxError) in
            try member(place, &reader)
        }
    }

    /// An object's members: `key` reads each key (its opening quote next), `member` its value.
    private mutating func readMembers<Key>(
        key: (inout JSONParser) throws(JSONSyntaxError) -> Key, member: (Key, inout JSONReader) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        try enter("{")
        if !parser.consume("}") {
            repeat {
                parser.skipWhitespace()
                guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else {
                    throw parser.failure("a member name")
                }
                let name = try key(&parser)
                guard parser.consume(":") else { throw parser.failure("':'") }
                try member(name, &self)
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
        parser.skipWhitespace()
        // A row's stamps: straight into the string.
        if depth < parser.maximumDepth, let flat = parser.flatObjectText() { return flat }
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

/// The member names a reader expects (a table's columns), as bytes to match keys against.
public struct JSONNames: Sendable {
    private let names: [String]
    private let utf8: [[UInt8]]

    public init(_ names: [String]) {
        self.names = names
        utf8 = names.map { Array($0.utf8) }
    }

    /// The place of the name whose UTF-8 is `key`: `hint` first, then every other.
    func place(of key: UnsafeBufferPointer<UInt8>, from hint: Int) -> Int? {
        func matches(_ place: Int) -> Bool {
            utf8[place].withUnsafeBufferPointer { name in
                name.count == key.count && (key.isEmpty || memcmp(name.baseAddress!, key.baseAddress!, key.count) == 0)
            }
        }
        if hint < utf8.count, matches(hint) { return hint }
        return utf8.indices.first(where: matches)
    }

    /// The place of `key`, read with its escapes.
    func place(of key: String) -> Int? { names.firstIndex(of: key) }
}
