import Foundation
import HopeSyncModel

/// Rows to and from PostgREST's JSON: whole-row objects with keys in table column order,
/// bytea as `\x` hex text, json columns embedded as JSON, integers written and read exactly.
enum PostgRESTRowCoding {
    // MARK: Writing

    /// An upsert body: an array of objects that all have the same keys, in table column order
    /// (PostgREST refuses mixed keys with PGRST102).
    static func arrayBody(_ rows: [ColumnValues], of table: TableSchema) throws(SyncError) -> Data {
        guard let first = rows.first else { return Data("[]".utf8) }
        let columns = try orderedColumns(of: first, in: table)
        let names = Set(columns.map(\.name))
        var output = "["
        for (index, row) in rows.enumerated() {
            guard row.columns.count == columns.count, Set(row.columns) == names else {
                throw SyncError(.invalidRequest, "Rows upserted into \(table.name) together must have the same columns")
            }
            if index > 0 { output += "," }
            try writeObject(row, columns: columns, table: table.name, to: &output)
        }
        output += "]"
        return Data(output.utf8)
    }

    /// A PATCH body: one object of the values set, in table column order.
    static func objectBody(_ values: ColumnValues, of table: TableSchema) throws(SyncError) -> Data {
        var output = ""
        try writeObject(values, columns: orderedColumns(of: values, in: table), table: table.name, to: &output)
        return Data(output.utf8)
    }

    /// The table's columns that `values` holds, in table order; a column the table lacks is a
    /// caller's mistake, caught before anything is sent.
    private static func orderedColumns(of values: ColumnValues, in table: TableSchema) throws(SyncError) -> [ColumnSchema] {
        if let unknown = values.columns.first(where: { table.column(named: $0) == nil }) {
            throw SyncError(.invalidRequest, "Table \(table.name) has no column \(unknown)")
        }
        return table.columns.filter { values.columns.contains($0.name) }
    }

    private static func writeObject(
        _ values: ColumnValues, columns: [ColumnSchema], table: String, to output: inout String
    ) throws(SyncError) {
        output += "{"
        for (index, column) in columns.enumerated() {
            if index > 0 { output += "," }
            JSONValue.writeString(column.name, to: &output)
            output += ":"
            try writeValue(values[column.name] ?? .null, as: column.type, to: &output) { reason in
                SyncError(.encoding, "Column \(table).\(column.name) cannot be sent: \(reason)")
            }
        }
        output += "}"
    }

    private static func writeValue(
        _ value: SyncValue, as kind: ColumnType, to output: inout String, failure: (String) -> SyncError
    ) throws(SyncError) {
        switch value {
        case .null: output += "null"
        case .int(let number): output += String(number)
        case .double(let number) where number.isFinite: output += "\(number)"
        // JSON has no NaN or infinity; PostgreSQL reads their words as float8.
        case .double: JSONValue.writeString(value.postgresText ?? "null", to: &output)
        case .bool(let flag): output += flag ? "true" : "false"
        case .text(let text) where kind == .json:
            do {
                try JSONValue(parsing: text).write(to: &output, sortingKeys: false)
            } catch {
                throw failure("its text is not JSON (\(error.reason) at byte \(error.offset))")
            }
        case .text(let text): JSONValue.writeString(text, to: &output)
        case .bytes(let data): JSONValue.writeString(SyncValue.byteaText(data), to: &output)
        }
    }

    // MARK: Reading

    /// Why one row, or one value of it, cannot be read.
    struct RowFailure: Error {
        let column: String?
        let reason: String

        var description: String { column.map { "column \($0): \(reason)" } ?? reason }
    }

    /// Reads `columns` of one row object, in the order given.
    static func row(_ json: JSONValue, columns: [ColumnSchema]) throws(RowFailure) -> ColumnValues {
        guard case .object = json else { throw RowFailure(column: nil, reason: "the row is not a JSON object") }
        var values: [SyncValue] = []
        values.reserveCapacity(columns.count)
        for column in columns {
            guard let member = json[column.name] else { throw RowFailure(column: column.name, reason: "missing") }
            values.append(try value(member, of: column))
        }
        return ColumnValues(columns: columns.map(\.name), values: values)
    }

    /// One column's value, read as its kind says.
    static func value(_ json: JSONValue, of column: ColumnSchema) throws(RowFailure) -> SyncValue {
        func mismatch(_ expected: String) -> RowFailure { RowFailure(column: column.name, reason: "expected \(expected)") }
        if json == .null {
            guard column.isNullable else { throw RowFailure(column: column.name, reason: "null in a non-null column") }
            return .null
        }
        switch (column.type, json) {
        case (.text, .string(let text)):
            return .text(text)
        case (.file, .string(let text)):
            // Only a content-addressed name: it becomes a file name and a path in Storage.
            guard SyncFile(name: text) != nil else { throw mismatch("a file's name (<sha256>.<extension>)") }
            return .text(text)
        case (.timestamp, .string(let text)) where column.role == .version:
            return .text(text) // compared as the exact text the server sent
        case (.timestamp, .string(let text)):
            guard let timestamp = SyncTimestamp(text) else { throw mismatch("a timestamp with an offset") }
            return .text(timestamp.text) // the canonical form, whatever the server's time zone
        case (.uuid, .string(let text)):
            if UUID.isLowercaseText(text) { return .text(text) } // as PostgREST sends it: no new string
            guard let uuid = UUID(text: text) else { throw mismatch("a uuid") }
            return .text(uuid.lowercasedString)
        case (.enumeration(let cases), .string(let text)):
            guard cases.contains(text) else {
                throw RowFailure(column: column.name, reason: "'\(text.prefix(64))' is not a value this client knows")
            }
            return .text(text)
        case (.int, .number(let literal)):
            guard let number = Int64(literal) else { throw mismatch("an integer within 64 bits") }
            return .int(number)
        case (.double, .number(let literal)):
            guard let number = Double(literal) else { throw mismatch("a number") }
            return .double(number)
        case (.double, .string(let word)) where ["NaN", "Infinity", "-Infinity"].contains(word):
            return .double(Double(word)!)
        case (.bool, .bool(let flag)):
            return .bool(flag)
        case (.json, _):
            return .text(json.canonicalText)
        case (.bytes, .string(let text)):
            guard case .bytes(let data)? = SyncValue(byteaText: text) else { throw mismatch("bytea hex text (\\x...)") }
            return .bytes(data)
        case (.text, _), (.timestamp, _), (.enumeration, _), (.file, _): throw mismatch("a string")
        case (.uuid, _): throw mismatch("a uuid")
        case (.int, _): throw mismatch("an integer")
        case (.double, _): throw mismatch("a number")
        case (.bool, _): throw mismatch("true or false")
        case (.bytes, _): throw mismatch("bytea hex text (\\x...)")
        }
    }

    /// A pulled page, read straight from the answer's bytes (no tree of the page is built): every
    /// row that reads, and a report for every row that does not, so one bad row never stops the
    /// rest. A body that is not JSON fails the whole page.
    static func page(_ body: Data, of table: TableSchema) throws(SyncError) -> PulledPage {
        var page = PageReading(table)
        var reader = JSONReader(utf8: body)
        do {
            guard try reader.peek() == .array else {
                throw SyncError(.decoding, "The rows of \(table.name) did not come as a JSON array")
            }
            try reader.readArray { element throws(JSONSyntaxError) in try page.readRow(&element) }
            try reader.end()
        } catch let error as JSONSyntaxError {
            throw SyncError(.decoding, "The answer for \(table.name) is not JSON (\(error.reason) at byte \(error.offset))")
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.decoding, "The answer for \(table.name) could not be read: \(error)")
        }
        return page.result
    }

    /// The column pulls are ordered and paged by.
    static func sequenceColumn(of table: TableSchema) -> String {
        table.columns.first { $0.role == .serverSeq }?.name ?? ReservedColumn.serverSeq
    }

    /// Rows a write or a read by key returned, holding `columns`; any that does not read fails
    /// the call, since there is no page to report it in.
    static func rows(_ json: JSONValue, columns: [ColumnSchema], of table: String) throws(SyncError) -> [ColumnValues] {
        guard case .array(let elements) = json else {
            throw SyncError(.decoding, "The rows of \(table) did not come as a JSON array")
        }
        var rows: [ColumnValues] = []
        for element in elements {
            do {
                rows.append(try row(element, columns: columns))
            } catch {
                throw SyncError(.decoding, "A row of \(table) does not read: \(error.description)")
            }
        }
        return rows
    }

}

/// One page's rows as they are read, member by member.
struct PageReading {
    let table: TableSchema
    let names: [String]
    let keys: JSONNames
    let sequenceIndex: Int?
    let keyIndex: Int?
    var result = PulledPage(rows: [], undecodable: [], receivedCount: 0, lastServerSeq: nil)
    /// The row being read: each column's value, or why it does not read; a repeated key counts
    /// once, the last (as jsonb keeps it). One array for every row of the page.
    private var slots: [Result<SyncValue, PostgRESTRowCoding.RowFailure>?]

    init(_ table: TableSchema) {
        self.table = table
        names = table.columnNames
        keys = JSONNames(names)
        let columnIndex = Dictionary(table.columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        sequenceIndex = columnIndex[PostgRESTRowCoding.sequenceColumn(of: table)]
        keyIndex = columnIndex[table.primaryKey]
        slots = Array(repeating: nil, count: names.count)
    }

    mutating func readRow(_ element: inout JSONReader) throws(JSONSyntaxError) {
        result.receivedCount += 1
        guard try element.peek() == .object else {
            _ = try element.readCanonicalText()
            report(key: nil, serverSeq: nil, PostgRESTRowCoding.RowFailure(column: nil, reason: "the row is not a JSON object"))
            return
        }
        for index in slots.indices { slots[index] = nil }
        var serverSeq: Int64?
        var key: String?
        // PostgREST writes the members in the order the select named them: the table's, which
        // the reader tries first.
        try element.readObject(naming: keys) { place, member throws(JSONSyntaxError) in
            guard let index = place else {
                _ = try member.readCanonicalText() // a column this client does not know
                return
            }
            let column = table.columns[index]
            if column.type == .json, try !member.readNull() {
                slots[index] = .success(.text(try member.readCanonicalText()))
                return
            }
            let json = column.type == .json ? JSONValue.null : try member.readValue()
            if index == sequenceIndex, case .number(let literal) = json { serverSeq = Int64(literal) }
            if index == keyIndex, case .string(let id) = json { key = id }
            slots[index] = Result { () throws(PostgRESTRowCoding.RowFailure) in try PostgRESTRowCoding.value(json, of: column) }
        }
        if let serverSeq { result.lastServerSeq = max(result.lastServerSeq ?? serverSeq, serverSeq) }
        do throws(PostgRESTRowCoding.RowFailure) {
            var values: [SyncValue] = []
            values.reserveCapacity(names.count)
            for (index, slot) in slots.enumerated() {
                guard let slot else { throw PostgRESTRowCoding.RowFailure(column: names[index], reason: "missing") }
                values.append(try slot.get())
            }
            result.rows.append(ColumnValues(columns: names, values: values))
        } catch {
            report(key: key, serverSeq: serverSeq, error)
        }
    }

    private mutating func report(key: String?, serverSeq: Int64?, _ failure: PostgRESTRowCoding.RowFailure) {
        result.undecodable.append(UndecodableRow(table: table.name, key: key, serverSeq: serverSeq, reason: failure.description))
    }
}
