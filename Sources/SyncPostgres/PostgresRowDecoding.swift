import Foundation
import Postgres
import SyncRuntime

/// Rows from PostgreSQL's text format into the values the HTTP transport would have read from
/// the same rows: uuids lowercase, timestamps as PostgREST writes them, json canonical, bytea
/// as bytes.
enum PostgresRowDecoding {
    /// Why one value cannot be read (never quoting more than a short prefix of it).
    struct Failure: Error {
        let column: String
        let reason: String

        var description: String { "column \(column): \(reason)" }
    }

    /// A pulled page: every row that reads, and a report for every row that does not.
    static func page(_ result: QueryResult, of table: TableSchema, sequence: String) -> PulledPage {
        let sequenceIndex = table.columns.firstIndex { $0.name == sequence }
        let keyIndex = table.columns.firstIndex { $0.name == table.primaryKey }
        var rows: [ColumnValues] = []
        var undecodable: [UndecodableRow] = []
        var lastServerSeq: Int64?
        rows.reserveCapacity(result.rows.count)
        for row in result.rows {
            let serverSeq = sequenceIndex.flatMap { row[$0] }.flatMap { Int64($0) }
            if let serverSeq { lastServerSeq = max(lastServerSeq ?? serverSeq, serverSeq) }
            do {
                rows.append(try values(row, columns: table.columns))
            } catch {
                let key = keyIndex.flatMap { row[$0] }
                undecodable.append(UndecodableRow(table: table.name, key: key, serverSeq: serverSeq, reason: error.description))
            }
        }
        return PulledPage(rows: rows, undecodable: undecodable, receivedCount: result.rows.count, lastServerSeq: lastServerSeq)
    }

    /// Rows a write or a read by key returned; one that does not read fails the call.
    static func rows(_ result: QueryResult, columns: [ColumnSchema], of table: String) throws(SyncError) -> [ColumnValues] {
        var rows: [ColumnValues] = []
        for row in result.rows {
            do {
                rows.append(try values(row, columns: columns))
            } catch {
                throw SyncError(.decoding, "A row of \(table) does not read: \(error.description)")
            }
        }
        return rows
    }

    private static func values(_ row: QueryResult.Row, columns: [ColumnSchema]) throws(Failure) -> ColumnValues {
        var values: [SyncValue] = []
        values.reserveCapacity(columns.count)
        for (index, column) in columns.enumerated() {
            values.append(try value(row[index], of: column))
        }
        return ColumnValues(columns: columns.map(\.name), values: values)
    }

    /// One column's value from its text (nil for SQL NULL), read as the column's kind says.
    static func value(_ text: String?, of column: ColumnSchema) throws(Failure) -> SyncValue {
        func mismatch(_ expected: String) -> Failure { Failure(column: column.name, reason: "expected \(expected)") }
        guard let text else {
            guard column.isNullable else { throw Failure(column: column.name, reason: "null in a non-null column") }
            return .null
        }
        switch column.type {
        case .text, .timestamp:
            return .text(text)
        case .uuid:
            guard isLowercaseUUID(text) else { throw mismatch("a uuid") }
            return .text(text)
        case .enumeration(let cases):
            guard cases.contains(text) else {
                throw Failure(column: column.name, reason: "'\(text.prefix(64))' is not a value this client knows")
            }
            return .text(text)
        case .int:
            guard let number = Int64(text) else { throw mismatch("an integer within 64 bits") }
            return .int(number)
        case .double:
            guard let number = Double(text) else { throw mismatch("a number") }
            return .double(number)
        case .bool:
            switch text {
            case "t": return .bool(true)
            case "f": return .bool(false)
            default: throw mismatch("t or f")
            }
        case .json:
            guard let value = SyncValue(canonicalJSON: text) else { throw mismatch("JSON") }
            return value
        case .bytes:
            guard let value = SyncValue(byteaText: text) else { throw mismatch("bytea hex text (\\x...)") }
            return value
        }
    }

    /// Whether `text` is a uuid as uuid_out writes it (8-4-4-4-12 lowercase hex digits): a
    /// byte check, since a pull reads several uuids a row.
    static func isLowercaseUUID(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count == 36 else { return false }
            for (index, byte) in bytes.enumerated() {
                switch index {
                case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
                default:
                    guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    else {
                        return false
                    }
                }
            }
            return true
        } ?? (UUID(uuidString: text)?.uuidString.lowercased() == text)
    }
}
