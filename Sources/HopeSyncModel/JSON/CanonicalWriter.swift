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
        // The common case written without copies: a row's `column_stamps`.
        if let flat = flatObjectText() {
            output += flat.utf8
            return
        }
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

    /// The canonical text of the flat object at `index`, read past it; nil, with nothing read,
    /// for any other value.
    mutating func flatObjectText() -> String? {
        guard let (text, end) = bytes.withUnsafeBufferPointer({ Self.flatObjectText($0, at: index) }) else { return nil }
        index = end
        return text
    }

    /// The canonical text of the flat object whose `{` is at `start` in `buffer` (every key and
    /// value a plain string; ``flatMemberLimit`` members at most), and where the object ends
    /// (one past its `}`); nil for any other value. Its members are ranges of the input, sorted
    /// by key and copied once, straight into the string.
    static func flatObjectText(_ buffer: UnsafeBufferPointer<UInt8>, at start: Int) -> (text: String, end: Int)? {
        // On the stack: a row's stamps are a dozen members or so.
        withUnsafeTemporaryAllocation(of: FlatMember.self, capacity: flatMemberLimit) { members in
            guard let (count, end) = flatMembers(of: buffer, at: start, into: members) else { return nil }
            let base = buffer.baseAddress!
            /// The keys' bytes compared with memcmp: -1, 0 or 1 as the first orders before, the
            /// same as, or after the second.
            func order(_ lhs: Range<Int>, _ rhs: Range<Int>) -> Int32 {
                let common = memcmp(base + lhs.lowerBound, base + rhs.lowerBound, min(lhs.count, rhs.count))
                return common != 0 ? common : Int32(lhs.count - rhs.count).signum()
            }
            // Insertion sort, stable: of a repeated key the last in document order ends last,
            // and wins below (jsonb keeps the last).
            for position in 1..<max(count, 1) {
                let member = members[position]
                var place = position
                while place > 0, order(members[place - 1].key, member.key) > 0 {
                    members[place] = members[place - 1]
                    place -= 1
                }
                members[place] = member
            }
            // The canonical text is never longer than the object.
            let text = String(unsafeUninitializedCapacity: end - start) { output in
                var written = 0
                func write(_ range: Range<Int>) {
                    UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(output)[written..<written + range.count])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[range]))
                    written += range.count
                }
                func write(_ byte: Unicode.Scalar) {
                    output[written] = UInt8(ascii: byte)
                    written += 1
                }
                write("{")
                for position in 0..<count
                where position + 1 == count || order(members[position + 1].key, members[position].key) != 0 {
                    if written > 1 { write(",") }
                    let (key, value) = members[position]
                    // Each string with its quotes: `"key"`, then `"value"`.
                    write(key.lowerBound - 1..<key.upperBound + 1)
                    write(":")
                    write(value.lowerBound - 1..<value.upperBound + 1)
                }
                write("}")
                return written
            }
            return (text, end)
        }
    }

    /// A member of a flat object: its key's and its value's bytes, quotes excluded.
    private typealias FlatMember = (key: Range<Int>, value: Range<Int>)

    /// Members a flat object may have on the fast path (their ranges fit on the stack); the
    /// general path takes objects of more.
    private static let flatMemberLimit = 24

    /// The members of the flat object whose `{` is at `start`, and where it ends (one past its
    /// `}`). Nil when a member is not two plain strings, or when there are more than `members`
    /// holds.
    private static func flatMembers(
        of buffer: UnsafeBufferPointer<UInt8>, at start: Int, into members: UnsafeMutableBufferPointer<FlatMember>
    ) -> (count: Int, end: Int)? {
        guard start < buffer.count, buffer[start] == UInt8(ascii: "{") else { return nil }
        var index = start + 1
        func consume(_ byte: Unicode.Scalar) -> Bool {
            index = whitespaceEnd(in: buffer, from: index)
            guard index < buffer.count, buffer[index] == UInt8(ascii: byte) else { return false }
            index += 1
            return true
        }
        func plainMember() -> Range<Int>? {
            index = whitespaceEnd(in: buffer, from: index)
            guard index < buffer.count, buffer[index] == UInt8(ascii: "\""), let plain = plainString(in: buffer, at: index) else {
                return nil
            }
            index = plain.upperBound + 1
            return plain
        }
        var count = 0
        if !consume("}") {
            repeat {
                guard count < members.count, let key = plainMember(), consume(":"), let value = plainMember() else { return nil }
                members[count] = (key, value)
                count += 1
            } while consume(",")
            guard consume("}") else { return nil }
        }
        return (count, index)
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
        // A flat object (a row's stamps) straight from the caller's bytes into the string.
        let flat: String?? = utf8.withContiguousStorageIfAvailable { buffer in
            guard maximumDepth > 0, let (text, end) = JSONParser.flatObjectText(buffer, at: JSONParser.whitespaceEnd(in: buffer, from: 0))
            else { return nil }
            return JSONParser.whitespaceEnd(in: buffer, from: end) == buffer.count ? text : nil
        }
        if let flat = flat ?? nil { return flat }
        var parser = JSONParser(copying: utf8, maximumDepth: maximumDepth)
        return String(decoding: try parser.canonicalDocument(), as: UTF8.self)
    }
}
