import Foundation

/// Canonical JSON written straight from a document's bytes, with no tree in between: what a
/// pull does for every json column and every row's `column_stamps`, and a save for every json
/// value. The output is exactly ``JSONValue/canonicalText`` of the parsed document (tests hold
/// the two together); numbers already in numeric's text and plain strings are copied as they
/// came, and objects are rebuilt, their members sorted by key. What jsonb cannot hold (a NUL, a
/// number beyond numeric) is refused, since PostgreSQL would refuse it.
extension JSONParser {
    mutating func canonicalDocument() throws(JSONSyntaxError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        try writeCanonical(depth: 0, into: &output)
        skipWhitespace()
        guard index == bytes.count else { throw failure("the end of the text") }
        return output
    }

    mutating func writeCanonical(depth: Int, into output: inout [UInt8]) throws(JSONSyntaxError) {
        guard depth < maximumDepth else { throw JSONSyntaxError(offset: index, reason: "nested too deeply") }
        skipWhitespace()
        guard index < bytes.count else { throw failure("a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try writeObject(depth: depth, into: &output)
        case UInt8(ascii: "["):
            index += 1
            output.append(UInt8(ascii: "["))
            if !consume("]") {
                repeat {
                    try writeCanonical(depth: depth + 1, into: &output)
                    output.append(UInt8(ascii: ","))
                } while consume(",")
                output.removeLast()
                guard consume("]") else { throw failure("',' or ']'") }
            }
            output.append(UInt8(ascii: "]"))
        case UInt8(ascii: "\""): try writeString(into: &output)
        case UInt8(ascii: "t"):
            try expectWord("true")
            output += "true".utf8
        case UInt8(ascii: "f"):
            try expectWord("false")
            output += "false".utf8
        case UInt8(ascii: "n"):
            try expectWord("null")
            output += "null".utf8
        default: try writeCanonicalNumber(into: &output)
        }
    }

    /// Members written in the order of their keys' UTF-8 bytes; of a repeated key only the last
    /// stays, as jsonb keeps it.
    private mutating func writeObject(depth: Int, into output: inout [UInt8]) throws(JSONSyntaxError) {
        if writeFlatObject(into: &output) { return }
        index += 1
        // Each member's key (its value's bytes, to sort by) and where its canonical text went.
        var members: [(key: ArraySlice<UInt8>, written: Range<Int>)] = []
        var written: [UInt8] = []
        if !consume("}") {
            repeat {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("a member name") }
                let start = written.count
                let key = try writeString(into: &written)
                guard consume(":") else { throw failure("':'") }
                written.append(UInt8(ascii: ":"))
                try writeCanonical(depth: depth + 1, into: &written)
                members.append((key, start..<written.count))
            } while consume(",")
            guard consume("}") else { throw failure("',' or '}'") }
        }
        // A stable order keeps repeated keys in document order, so the last of each run wins.
        let order = members.indices.sorted { lhs, rhs in
            members[lhs].key == members[rhs].key ? lhs < rhs : members[lhs].key.lexicographicallyPrecedes(members[rhs].key)
        }
        output.append(UInt8(ascii: "{"))
        var first = true
        for (position, member) in order.enumerated()
        where position + 1 == order.count || members[order[position + 1]].key != members[member].key {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output += written[members[member].written]
        }
        output.append(UInt8(ascii: "}"))
    }

    /// The common case written without copies: an object whose keys and values are all plain
    /// strings (a row's `column_stamps`). Its members are ranges of the input, sorted by key and
    /// copied once. False, with nothing read, for any other object.
    private mutating func writeFlatObject(into output: inout [UInt8]) -> Bool {
        let start = index
        // A row's stamps are a dozen members or so; the array grows past that if it must.
        var members: [(key: Range<Int>, value: Range<Int>)] = []
        members.reserveCapacity(16)
        index += 1
        func plainMember(_ parser: inout JSONParser) -> Range<Int>? {
            parser.skipWhitespace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\""),
                let plain = parser.plainString()
            else { return nil }
            parser.index = plain.upperBound + 1
            return plain
        }
        if !consume("}") {
            repeat {
                guard let key = plainMember(&self), consume(":"), let value = plainMember(&self) else {
                    index = start
                    return false
                }
                members.append((key, value))
            } while consume(",")
            guard consume("}") else {
                index = start
                return false
            }
        }
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            /// The keys' bytes compared with memcmp: -1, 0 or 1 as the first orders before, the
            /// same as, or after the second.
            func order(_ lhs: Range<Int>, _ rhs: Range<Int>) -> Int32 {
                let common = memcmp(base + lhs.lowerBound, base + rhs.lowerBound, min(lhs.count, rhs.count))
                return common != 0 ? common : Int32(lhs.count - rhs.count).signum()
            }
            // Insertion sort, stable: of a repeated key the last in document order ends last, and
            // wins below (jsonb keeps the last).
            var sorted = Array(members.indices)
            for position in sorted.indices.dropFirst() {
                let member = sorted[position]
                var place = position
                while place > 0, order(members[sorted[place - 1]].key, members[member].key) > 0 {
                    sorted[place] = sorted[place - 1]
                    place -= 1
                }
                sorted[place] = member
            }
            output.reserveCapacity(output.count + index - start)
            output.append(UInt8(ascii: "{"))
            var first = true
            for (position, member) in sorted.enumerated()
            where position + 1 == sorted.count || order(members[sorted[position + 1]].key, members[member].key) != 0 {
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                let (key, value) = members[member]
                // Each string with its quotes: `"key"`, then `"value"`.
                output.append(contentsOf: UnsafeBufferPointer(start: base + key.lowerBound - 1, count: key.count + 2))
                output.append(UInt8(ascii: ":"))
                output.append(contentsOf: UnsafeBufferPointer(start: base + value.lowerBound - 1, count: value.count + 2))
            }
            output.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// Writes a string's canonical text (quotes included) and returns its value's UTF-8 bytes. A
    /// printable ASCII string without escapes is both as it stands; any other is decoded and
    /// written again.
    @discardableResult
    private mutating func writeString(into output: inout [UInt8]) throws(JSONSyntaxError) -> ArraySlice<UInt8> {
        if let plain = plainString() {
            index = plain.upperBound + 1
            output += bytes[plain.lowerBound - 1...plain.upperBound]
            return bytes[plain]
        }
        let start = index
        let value = try parseString()
        // Only an escape can put U+0000 in a string: the parser refuses a raw control character.
        if value.utf8.contains(0) {
            throw JSONSyntaxError(offset: start, reason: "a NUL character (\\u0000)", kind: .nul)
        }
        JSONValue.writeString(value, to: &output)
        return ArraySlice(value.utf8)
    }
}

extension JSONValue {
    /// The canonical text of the JSON document `text`, written without building a tree; the
    /// same as `JSONValue(parsing: text).canonicalText`, faster, and refusing (with a `kind` other
    /// than `.syntax`) what jsonb cannot hold.
    public static func canonicalText(of text: String, maximumDepth: Int = JSONValue.maximumDocumentDepth) throws(JSONSyntaxError) -> String
    {
        try canonicalText(ofUTF8: Array(text.utf8), maximumDepth: maximumDepth)
    }

    /// The canonical text of the JSON document in `utf8` (a database driver's buffer, say).
    public static func canonicalText<Bytes: Collection<UInt8>>(
        ofUTF8 utf8: Bytes, maximumDepth: Int = JSONValue.maximumDocumentDepth
    ) throws(JSONSyntaxError) -> String {
        var parser = JSONParser(bytes: Array(utf8), maximumDepth: maximumDepth)
        return String(decoding: try parser.canonicalDocument(), as: UTF8.self)
    }
}
