import Foundation

/// Typed reading and writing of `json` columns, which generated rows hold as their JSON text:
///
/// ```swift
/// let settings = try SyncJSON.decode(Settings.self, from: activity.metadata ?? "null")
/// activity.metadata = try SyncJSON.text(of: settings)
/// ```
///
/// The text written is compact with sorted keys; the store keeps every json column in that
/// canonical form whatever text it is given, so devices and the server hold the same text.
public enum SyncJSON {
    /// `value` as JSON text, ready for a json column.
    public static func text<Value: Encodable>(of value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A json column's text decoded as `type`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
