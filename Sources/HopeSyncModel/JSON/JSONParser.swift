import Foundation

/// A recursive-descent parser over UTF-8 bytes.
struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    let maximumDepth: Int

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// A parser of `utf8`'s bytes. Callers in other modules reach this unspecialized: an array
    /// is taken as it is, another contiguous collection (Data, a driver's buffer) copied with one
    /// memcpy, not a byte at a time through the protocol.
    init<Bytes: Collection<UInt8>>(copying utf8: Bytes, maximumDepth: Int) {
        let bytes = utf8 as? [UInt8] ?? utf8.withContiguousStorageIfAvailable { Array($0) } ?? Array(utf8)
        self.init(bytes: bytes, maximumDepth: maximumDepth)
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw failure("the end of the text") }
        return value
    }

    func failure(_ expected: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, reason: index < bytes.count ? "expected \(expected)" : "the text ended early")
    }

    mutating func skipWhitespace() {
        index = bytes.withUnsafeBufferPointer { Self.whitespaceEnd(in: $0, from: index) }
    }

    /// Where the whitespace from `index` ends in `buffer`.
    static func whitespaceEnd(in buffer: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        var index = index
        while index < buffer.count {
            switch buffer[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        return index
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < maximumDepth else { throw JSONSyntaxError(offset: index, reason: "nested too deeply") }
        skipWhitespace()
        guard index < bytes.count else { throw failure("a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null
        default: return .number(try parseNumber())
        }
    }

    mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
        guard bytes[index...].starts(with: word.utf8) else {
            // A body cut short inside the word ended early; anything else is the wrong word.
            if word.utf8.starts(with: bytes[index...]) { index = bytes.count }
            throw failure(word)
        }
        index += word.utf8.count
    }

    /// A scalar, not a Character: a Character's ASCII value is worked out on every call, and every
    /// member and element of a page passes here.
    mutating func consume(_ byte: Unicode.Scalar) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: byte) else { return false }
        index += 1
        return true
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        if consume("]") { return .array(elements) }
        repeat {
            elements.append(try parseValue(depth: depth + 1))
        } while consume(",")
        guard consume("]") else { throw failure("',' or ']'") }
        return .array(elements)
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        if consume("}") { return .object(members) }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("a member name") }
            let key = try parseString()
            guard consume(":") else { throw failure("':'") }
            members.append((key, try parseValue(depth: depth + 1)))
        } while consume(",")
        guard consume("}") else { throw failure("',' or '}'") }
        return .object(members)
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> String {
        String(decoding: bytes[try scanNumber().literal], as: UTF8.self)
    }

    /// Where the parts of a number lie in `bytes`.
    struct NumberParts {
        /// The whole literal, kept as written.
        var literal: Range<Int>
        var integerDigits: Range<Int>
        /// Empty when there is no point.
        var fractionDigits: Range<Int>
        /// The exponent's sign and digits, nil when there is none.
        var exponent: Range<Int>?
    }

    /// Reads the number at `index`.
    mutating func scanNumber() throws(JSONSyntaxError) -> NumberParts {
        let start = index
        func digits(_ parser: inout JSONParser) -> Range<Int> {
            let first = parser.index
            while parser.index < parser.bytes.count, (0x30...0x39).contains(parser.bytes[parser.index]) { parser.index += 1 }
            return first..<parser.index
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerDigits = digits(&self)
        guard !integerDigits.isEmpty else { throw failure("a value") }
        guard integerDigits.count == 1 || bytes[integerDigits.lowerBound] != UInt8(ascii: "0") else {
            throw JSONSyntaxError(offset: integerDigits.lowerBound, reason: "a number with a leading zero")
        }
        var fractionDigits = index..<index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fractionDigits = digits(&self)
            guard !fractionDigits.isEmpty else { throw failure("a digit") }
        }
        var exponent: Range<Int>?
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            let exponentStart = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard !digits(&self).isEmpty else { throw failure("a digit") }
            exponent = exponentStart..<index
        }
        return NumberParts(literal: start..<index, integerDigits: integerDigits, fractionDigits: fractionDigits, exponent: exponent)
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        if let plain = plainString() {
            index = plain.upperBound + 1
            return String(decoding: bytes[plain], as: UTF8.self)
        }
        index += 1
        var utf8: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                // String(validating:) would need macOS 15; Foundation's check works everywhere.
                guard let text = String(bytes: utf8, encoding: .utf8) else {
                    throw JSONSyntaxError(offset: index, reason: "a string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw JSONSyntaxError(offset: index - 1, reason: "a control character in a string")
            default:
                utf8.append(byte)
            }
        }
        throw failure("'\"'")
    }

    /// The bytes of the string starting at `index` (its opening quote) when they are printable
    /// ASCII with no escape: then they are the string itself, and its canonical form (most
    /// strings a page holds: uuids, timestamps, stamps). Nil otherwise; `index` is not moved.
    func plainString() -> Range<Int>? {
        // Over the buffer, not the array: no bounds check a byte on the bytes of every string.
        bytes.withUnsafeBufferPointer { Self.plainString(in: $0, at: index) }
    }

    /// ``plainString()`` of the string whose opening quote is at `index` in `buffer`.
    static func plainString(in buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> Range<Int>? {
        var end = index + 1
        while end < buffer.count {
            switch buffer[end] {
            case UInt8(ascii: "\""): return index + 1..<end
            case UInt8(ascii: "\\"), 0..<0x20, 0x80...: return nil
            default: end += 1
            }
        }
        return nil
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard index < bytes.count else { throw failure("an escape") }
        let escape = bytes[index]
        index += 1
        let simple: UInt8? =
            switch escape {
            case UInt8(ascii: "\""): 0x22
            case UInt8(ascii: "\\"): 0x5C
            case UInt8(ascii: "/"): 0x2F
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        if let byte = simple {
            utf8.append(byte)
            return
        }
        guard escape == UInt8(ascii: "u") else { throw JSONSyntaxError(offset: index - 1, reason: "an unknown escape") }
        var scalar = try parseHex4()
        if (0xD800..<0xDC00).contains(scalar) {
            // A high surrogate must be followed by an escaped low one.
            guard bytes[index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
                throw failure("a low surrogate")
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw failure("a low surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        // Only a low surrogate with no high one before it is no scalar: jsonb refuses it too.
        guard let unicode = Unicode.Scalar(scalar) else {
            throw JSONSyntaxError(offset: index - 6, reason: "a low surrogate with no high surrogate before it")
        }
        UTF8.encode(unicode) { utf8.append($0) }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("four hex digits") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = hexDigitValue(byte) else { throw failure("four hex digits") }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}
