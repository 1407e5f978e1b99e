import Foundation

/// PostgreSQL's text forms of values, shared by every transport so that a value reads and
/// writes the same whichever way it travels (PostgREST's JSON, or libpq's text format).
extension SyncValue {
    /// The value as PostgreSQL reads it in text form (a filter's value, a libpq text
    /// parameter); nil for null.
    public var postgresText: String? {
        self == .null ? nil : PostgRESTRowCoding.filterText(self)
    }

    /// Bytes from bytea's hex text (`\x` then two hex digits a byte); nil when it is not that.
    public init?(byteaText text: String) {
        guard let data = PostgRESTRowCoding.bytes(fromBytea: text) else { return nil }
        self = .bytes(data)
    }

    /// A json column's value: its canonical text (compact, keys sorted bytewise, a repeated key
    /// keeping its last value), as the HTTP transport keeps it; nil when `text` is not JSON.
    public init?(canonicalJSON text: String) {
        guard let json = try? JSONValue(parsing: text) else { return nil }
        self = .text(json.canonicalText)
    }
}
