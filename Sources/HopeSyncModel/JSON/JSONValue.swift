import Foundation

/// A JSON value: a page of rows as PostgREST sends it, a json column's document, a default in
/// schema.yaml. Numbers keep their literal text, so a bigint above 2^53 stays exact; only the
/// canonical text rewrites them, as PostgreSQL's numeric prints them.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in the order they were read.
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.elementsEqual(b) { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member named `key` (the last one, as jsonb keeps it), when this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }
}

/// Why a text is not JSON, or is JSON that PostgreSQL's jsonb cannot hold: the byte offset and
/// what was expected or found there (never the text itself).
public struct JSONSyntaxError: Error, Equatable {
    public let offset: Int
    public let reason: String
    public var kind: Kind = .syntax

    public enum Kind: Equatable, Sendable {
        /// The text is not JSON.
        case syntax
        /// A string holds U+0000 (written `\u0000`): jsonb's strings are PostgreSQL text.
        case nul
        /// A number that PostgreSQL's `numeric`, which jsonb holds numbers in, cannot hold.
        case numberOutOfRange
    }
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259), rejecting trailing bytes and nesting deeper than
    /// `maximumDepth` (a page of rows holds a json column's value two levels down).
    public init(parsing data: Data, maximumDepth: Int = JSONValue.maximumDocumentDepth) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: [UInt8](data), maximumDepth: maximumDepth)
        self = try parser.parseDocument()
    }

    public init(parsing text: String, maximumDepth: Int = JSONValue.maximumDocumentDepth) throws(JSONSyntaxError) {
        try self.init(parsing: Data(text.utf8), maximumDepth: maximumDepth)
    }

    /// Deep enough for any page of rows; guards the stack against hostile nesting.
    public static let maximumDocumentDepth = 512
    /// The deepest a json column's value may nest, checked when it is saved: every part of the
    /// system (a page of rows, Foundation's encoder, PostgreSQL) reads and writes it.
    public static let maximumColumnDepth = 256

    /// The one canonical text of a json document, on every device, in every default and on the
    /// server's side of the comparison: compact, members sorted by their keys' UTF-8 bytes,
    /// numbers as jsonb prints them (numeric's text: no exponent, the scale kept, `-0` as `0`).
    /// What jsonb cannot hold (a NUL, a number beyond numeric) is written as it stands;
    /// ``canonicalText(of:maximumDepth:)`` refuses it.
    public var canonicalText: String { serialized(sortingKeys: true) }

    /// Compact JSON text. With `sortingKeys`, the canonical text of a json column: object members
    /// ordered by key (duplicate keys collapse to the last, as jsonb does), numbers rewritten as
    /// numeric prints them. Without it, numbers stay as they came.
    public func serialized(sortingKeys: Bool = false) -> String {
        var output = ""
        write(to: &output, sortingKeys: sortingKeys)
        return output
    }

    public func write(to output: inout String, sortingKeys: Bool) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let literal): output += sortingKeys ? JSONValue.canonicalNumber(literal) : literal
        case .string(let value): JSONValue.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output, sortingKeys: sortingKeys)
            }
            output += "]"
        case .object(var members):
            if sortingKeys {
                var lastByKey: [String: JSONValue] = [:]
                for member in members { lastByKey[member.key] = member.value }
                members = lastByKey.sorted { $0.key.precedesBytewise($1.key) }
                    .map { (key: $0.key, value: $0.value) }
            }
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output, sortingKeys: sortingKeys)
            }
            output += "}"
        }
    }

    /// Escapes only what JSON requires: the quote, the backslash and control characters.
    public static func writeString(_ value: String, to output: inout String) {
        // Most strings (names, keys, stamps, uuids) need no escape: appended whole, not scalar by
        // scalar, which was most of what writing a row's column_stamps cost.
        guard value.utf8.contains(where: needsEscape) else {
            output += "\""
            output += value
            output += "\""
            return
        }
        var utf8: [UInt8] = []
        writeString(value, to: &utf8)
        output += String(decoding: utf8, as: UTF8.self)
    }

    /// The same, appended as UTF-8.
    public static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        writeEscaped(value, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// A JSON string's contents, without its quotes. Every byte that needs an escape is ASCII, and
    /// no byte of a multi-byte UTF-8 sequence is, so the bytes are escaped one by one.
    public static func writeEscaped(_ value: String, to output: inout [UInt8]) {
        guard value.utf8.contains(where: needsEscape) else {
            output += value.utf8
            return
        }
        for byte in value.utf8 {
            guard needsEscape(byte) else {
                output.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): output += #"\""#.utf8
            case UInt8(ascii: "\\"): output += #"\\"#.utf8
            case UInt8(ascii: "\n"): output += #"\n"#.utf8
            case UInt8(ascii: "\r"): output += #"\r"#.utf8
            case UInt8(ascii: "\t"): output += #"\t"#.utf8
            case 0x08: output += #"\b"#.utf8
            case 0x0C: output += #"\f"#.utf8
            default: output += ("\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)).utf8
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
