import Foundation

/// The one place a value is checked before it is stored and queued: what the server or another
/// device could not hold exactly is refused at save, naming the table and column, instead of
/// being cut on the way or failing every push after it.
enum ValueCheck {
    /// The values to store for `values` (JSON and timestamps in their canonical text, -0.0 as
    /// 0.0), or an error.
    static func checked(_ values: [SyncValue], of table: TableSchema) throws(SyncError) -> [SyncValue] {
        var result = values
        for (index, column) in table.columns.enumerated() where index < values.count {
            result[index] = try checked(values[index], column, table)
        }
        return result
    }

    private static func checked(_ value: SyncValue, _ column: ColumnSchema, _ table: TableSchema) throws(SyncError) -> SyncValue {
        // Made only for an error: every value of every save passes here.
        var name: String { "\(table.name).\(column.name)" }
        switch value {
        case .text(let text):
            if text.utf8.contains(0) { throw nul(name) }
            if column.type.bucket != nil, SyncFile(name: text) == nil {
                throw SyncError(.invalidRequest, "\(name) is not a file's name (<sha256>.<extension>): attach the file to get one")
            }
            if column.type == .timestamp {
                // The version column stays the exact text the server sent: the guarded replay compares it.
                guard column.role != .version else { return value }
                guard let timestamp = SyncTimestamp(text) else {
                    throw SyncError(.invalidRequest, "\(name) is not a timestamp with an offset, such as 2026-10-18T13:00:27.486123+00:00")
                }
                return .text(timestamp.text)
            }
            guard column.type == .json else { return value }
            return .text(try canonicalJSON(text, name))
        case .double(let number):
            guard number.isFinite else {
                throw SyncError(.invalidRequest, "\(name) is \(number), which JSON cannot carry to the server")
            }
            return number == 0 ? .double(0) : value // -0.0 as 0.0: SQLite keeps no sign on zero
        case .null where !column.isNullable && column.role == .user:
            throw SyncError(.invalidRequest, "\(name) cannot be empty")
        default:
            return value
        }
    }

    private static func nul(_ name: String) -> SyncError {
        SyncError(.invalidRequest, "\(name) holds a NUL character, which PostgreSQL text cannot store")
    }

    /// The text jsonb would hold, canonical; refused as PostgreSQL would refuse it as jsonb.
    private static func canonicalJSON(_ text: String, _ name: String) throws(SyncError) -> String {
        do throws(JSONSyntaxError) {
            return try JSONValue.canonicalText(of: text, maximumDepth: JSONValue.maximumColumnDepth)
        } catch {
            let place = "\(error.reason) at byte \(error.offset)"
            switch error.kind {
            case .nul: throw nul(name) // \u0000: jsonb's strings are PostgreSQL text
            case .numberOutOfRange: throw SyncError(.invalidRequest, "\(name) holds \(place), which PostgreSQL's jsonb cannot store")
            case .syntax:
                throw SyncError(
                    .invalidRequest, "\(name) is not JSON, or nests deeper than \(JSONValue.maximumColumnDepth) levels (\(place))")
            }
        }
    }
}
