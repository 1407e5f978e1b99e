import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncPostgresClient

/// Rows from PostgreSQL's text format into the values the HTTP transport would have read from
/// the same rows: uuids lowercase, timestamps as PostgREST writes them, json canonical, bytea
/// as bytes. A pulled page is read in place from libpq's buffers: a string is made only for a
/// value that is one.
enum PostgresRowDecoding {
    /// Why one value cannot be read (never quoting more than a short prefix of it).
    struct Failure: Error {
        let column: String
        let reason: String

        var description: String { "column \(column): \(reason)" }
    }

    /// A pulled page: every row that reads, and a report for every row that does not.
    static func page(_ result: borrowing ResultRows, of table: TableSchema, sequence: String) -> PulledPage {
        let sequenceIndex = table.columns.firstIndex { $0.name == sequence }
        let keyIndex = table.columns.firstIndex { $0.name == table.primaryKey }
        var rows: [ColumnValues] = []
        var undecodable: [UndecodableRow] = []
        var lastServerSeq: Int64?
        rows.reserveCapacity(result.count)
        // One names array for the page: rows sharing it compare equal to the table's at once.
        let names = table.columnNames
        for row in 0..<result.count {
            let serverSeq = sequenceIndex.flatMap { result.bytes(row: row, column: $0) }.flatMap(integer)
            if let serverSeq { lastServerSeq = max(lastServerSeq ?? serverSeq, serverSeq) }
            do {
                rows.append(ColumnValues(columns: names, values: try values(result, row: row, columns: table.columns)))
            } catch {
                let key = keyIndex.flatMap { result.bytes(row: row, column: $0) }.map { String(decoding: $0, as: UTF8.self) }
                undecodable.append(UndecodableRow(table: table.name, key: key, serverSeq: serverSeq, reason: error.description))
            }
        }
        return PulledPage(rows: rows, undecodable: undecodable, receivedCount: result.count, lastServerSeq: lastServerSeq)
    }

    /// Rows a write or a read by key returned; one that does not read fails the call.
    static func rows(_ result: borrowing ResultRows, columns: [ColumnSchema], of table: String) -> Result<[ColumnValues], SyncError> {
        let names = columns.map(\.name)
        var rows: [ColumnValues] = []
        for row in 0..<result.count {
            do {
                rows.append(ColumnValues(columns: names, values: try values(result, row: row, columns: columns)))
            } catch {
                return .failure(SyncError(.decoding, "A row of \(table) does not read: \(error.description)"))
            }
        }
        return .success(rows)
    }

    /// One row's values, read in place.
    private static func values(_ result: borrowing ResultRows, row: Int, columns: [ColumnSchema]) throws(Failure) -> [SyncValue] {
        var values: [SyncValue] = []
        values.reserveCapacity(columns.count)
        for (index, column) in columns.enumerated() {
            values.append(try value(result.bytes(row: row, column: index), of: column))
        }
        return values
    }

    /// One column's value from its text's bytes (nil for SQL NULL).
    static func value(_ bytes: UnsafeBufferPointer<UInt8>?, of column: ColumnSchema) throws(Failure) -> SyncValue {
        func mismatch(_ expected: String) -> Failure { Failure(column: column.name, reason: "expected \(expected)") }
        guard let bytes else {
            guard column.isNullable else { throw Failure(column: column.name, reason: "null in a non-null column") }
            return .null
        }
        func text() -> String { String(decoding: bytes, as: UTF8.self) }
        switch column.type {
        case .text, .timestamp:
            return .text(text())
        case .file:
            guard SyncFile(name: text()) != nil else { throw mismatch("a file's name (<sha256>.<extension>)") }
            return .text(text())
        case .uuid:
            guard UUID.isLowercaseText(bytes) else { throw mismatch("a uuid") }
            return .text(text())
        case .enumeration(let cases):
            let value = text()
            guard cases.contains(value) else {
                throw Failure(column: column.name, reason: "'\(value.prefix(64))' is not a value this client knows")
            }
            return .text(value)
        case .int:
            guard let number = integer(bytes) else { throw mismatch("an integer within 64 bits") }
            return .int(number)
        case .double:
            guard let number = Double(text()) else { throw mismatch("a number") }
            return .double(number)
        case .bool:
            switch bytes.count == 1 ? bytes[0] : 0 {
            case UInt8(ascii: "t"): return .bool(true)
            case UInt8(ascii: "f"): return .bool(false)
            default: throw mismatch("t or f")
            }
        case .json:
            guard let canonical = try? JSONValue.canonicalText(ofUTF8: bytes) else { throw mismatch("JSON") }
            return .text(canonical)
        case .bytes:
            guard let value = SyncValue(byteaText: text()) else { throw mismatch("bytea hex text (\\x...)") }
            return value
        }
    }

    /// A decimal integer as int8out writes it (an optional '-', then digits), within 64 bits.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let negative = bytes.first == UInt8(ascii: "-")
        let digits = bytes.dropFirst(negative ? 1 : 0)
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            magnitude = magnitude * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

}
