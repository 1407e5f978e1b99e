/// The identifiers of SQL text, outside string literals and comments, and the objects its
/// `create` statements make.
struct SQLTokens {
    private(set) var identifiers: [String] = []
    private(set) var created: [(kind: String, name: String)] = []

    init(_ sql: String) {
        let bytes = Array(sql.utf8)
        var words: [String] = [] // identifiers and "." in order, for reading `create` statements
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                index = Self.end(of: bytes, from: index, closing: UInt8(ascii: "'"))
            } else if byte == UInt8(ascii: "\"") {
                let end = Self.end(of: bytes, from: index, closing: UInt8(ascii: "\""))
                let name = String(decoding: bytes[(index + 1)..<max(index + 1, end - 1)], as: UTF8.self)
                identifiers.append(name)
                words.append(name)
                index = end
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if Self.isIdentifierStart(byte) {
                let start = index
                while index < bytes.count,
                    Self.isIdentifierStart(bytes[index]) || Self.isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "$")
                {
                    index += 1
                }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                identifiers.append(word)
                words.append(word.lowercased())
            } else {
                if byte == UInt8(ascii: ".") { words.append(".") } else if byte == UInt8(ascii: ";") { words.append(";") }
                index += 1
            }
        }
        created = Self.createdObjects(words)
    }

    /// `create [or replace] [unique] <kind> [if not exists] [public.]<name>`.
    private static func createdObjects(_ words: [String]) -> [(kind: String, name: String)] {
        let kinds: Set<String> = ["table", "index", "sequence", "function", "view"]
        let skipped: Set<String> = ["or", "replace", "unique", "if", "not", "exists", "public", ".", "concurrently"]
        var result: [(kind: String, name: String)] = []
        var index = 0
        while index < words.count {
            defer { index += 1 }
            guard words[index] == "create" else { continue }
            var next = index + 1
            while next < words.count, skipped.contains(words[next]) { next += 1 }
            guard next < words.count, kinds.contains(words[next]) else { continue }
            let kind = words[next]
            next += 1
            while next < words.count, skipped.contains(words[next]) { next += 1 }
            if next < words.count { result.append((kind, words[next])) }
        }
        return result
    }

    /// The index after a quoted run that started at `start`, a doubled quote staying inside.
    static func end(of bytes: [UInt8], from start: Int, closing quote: UInt8) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == quote {
                if index + 1 < bytes.count, bytes[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return index
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
