import Foundation
import HopeSyncSchema

/// SQL text for values: the one place literals are escaped, for SQLite and PostgreSQL alike.
/// Identifiers need no quoting: the parser admits only plain lowercase identifiers.
enum SQLLiteral {
    /// `'it''s'`: standard SQL, understood by both databases.
    static func string(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `'a', 'b'`: for CHECK (x IN (...)).
    static func list(_ values: [String]) -> String {
        values.map(string).joined(separator: ", ")
    }

    /// Integers and doubles as SQL numbers. Doubles always carry a fraction or exponent so no
    /// database reads them as integers.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) + ".0" }
        return "\(value)"
    }
}
