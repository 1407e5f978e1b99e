import Foundation
import HopeSyncModel

/// The one place a value is checked before it is stored and queued: what the server or another
/// device could not hold exactly is refused at save, naming the table and column, instead of
/// being cut on the way or failing every push after it.
enum ValueCheck {
    /// What is checked in one column, found once per table (``TableSQL/valueChecks``).
    struct Column: Sendable {
        enum Kind: Sendable {
            /// Text only needs to be without NUL.
            case plain
            case file
            case timestamp
            /// The version column: the exact text the server sent (the guarded replay compares it).
            case version
            case json
        }

        let kind: Kind
        let refusesNull: Bool

        init(_ column: ColumnSchema) {
            switch column.type {
            case .timestamp: kind = column.role == .version ? .version : .timestamp
            case .json: kind = .json
            case _ where column.type.bucket != nil: kind = .file
            default: kind = .plain
            }
            refusesNull = !column.isNullable && column.role == .user
        }
    }

    /// Checks `values` (a row of `table` in table order, `checks` its columns') and makes them
    /// the values to store: JSON and timestamps in their canonical text, -0.0 as 0.0. Throws for
    /// the first value that cannot be stored.
    static func check(_ values: inout [SyncValue], _ checks: [Column], of table: TableSchema) throws(SyncError) {
        for index in checks.indices where index < values.count {
            // Made only for an error: every value of every save passes here.
            var name: String { "\(table.name).\(table.columns[index].name)" }
            switch values[index] {
            case .text(let text):
                if text.utf8.contains(0) { throw nul(name) }
                switch checks[index].kind {
                case .plain, .version: break
                case .file:
                    if SyncFile(name: text) == nil {
                        throw SyncError(.invalidRequest, "\(name) is not a file's name (<sha256>.<extension>): attach the file to get one")
                    }
                case .timestamp:
                    guard let timestamp = SyncTimestamp(text) else {
                        throw SyncError(
                            .invalidRequest, "\(name) is not a timestamp with an offset, such as 2026-10-18T13:00:27.486123+00:00")
                    }
                    values[index] = .text(timestamp.text)
                case .json:
                    values[index] = .text(try canonicalJSON(text, name))
                }
            case .double(let number):
                guard number.isFinite else {
                    throw SyncError(.invalidRequest, "\(name) is \(number), which JSON cannot carry to the server")
                }
                if number == 0 { values[index] = .double(0) } // -0.0 as 0.0: SQLite keeps no sign on zero
            case .null where checks[index].refusesNull:
                throw SyncError(.invalidRequest, "\(name) cannot be empty")
            default:
                break
            }
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
