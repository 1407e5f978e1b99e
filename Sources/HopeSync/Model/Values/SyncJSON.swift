import Foundation
import HopeSyncModel

/// Typed reading and writing of `json` columns, which generated rows hold as their JSON text:
///
/// ```swift
/// let settings = try SyncJSON.decode(Settings.self, from: activity.metadata ?? "null")
/// activity.metadata = try SyncJSON.text(of: settings)
/// ```
///
/// The text written is the canonical text the store keeps every json column in, whatever text
/// it is given (compact, keys sorted bytewise, numbers as PostgreSQL's jsonb prints them), so
/// devices and the server hold the same text.
public enum SyncJSON {
    /// `value` as JSON text, ready for a json column.
    public static func text<Value: Encodable>(of value: Value) throws -> String {
        // The encoder writes 1e-07 where jsonb holds 0.0000001, and sorts keys its own way.
        try JSONValue(parsing: JSONEncoder().encode(value)).canonicalText
    }

    /// A json column's text decoded as `type`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
