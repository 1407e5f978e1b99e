import Foundation
import HopeSyncModel

/// Column values as the queue and the lists keep them in SQLite: JSON pairs, in order, whose
/// values carry their kind (`[["title",{"t":"Buy milk"}],["done",{"b":false}]]`), so a value
/// reads back as exactly the value written, whatever its type (an Int64 never passes a Double).
enum StoredValues {
    static func encode(_ values: ColumnValues) -> String {
        JSONValue.array(zip(values.columns, values.values).map { .array([.string($0), json($1)]) }).serialized()
    }

    static func decode(_ text: String) throws(SyncError) -> ColumnValues {
        guard case .array(let pairs)? = try? JSONValue(parsing: text) else { throw malformed }
        var columns: [String] = []
        var values: [SyncValue] = []
        for pair in pairs {
            guard case .array(let parts) = pair, parts.count == 2, case .string(let column) = parts[0] else { throw malformed }
            columns.append(column)
            values.append(try value(parts[1]))
        }
        return ColumnValues(columns: columns, values: values)
    }

    static func encodeList(_ names: [String]) -> String {
        JSONValue.array(names.map(JSONValue.string)).serialized()
    }

    static func decodeList(_ text: String) -> [String] {
        guard case .array(let items)? = try? JSONValue(parsing: text) else { return [] }
        return items.compactMap { if case .string(let name) = $0 { name } else { nil } }
    }

    /// Filters as `[["deleted_ms","isNull",null],["done","eq",{"b":false}]]`.
    static func encode(_ filters: [Filter]) -> String {
        JSONValue.array(filters.map { .array([.string($0.column), .string($0.op.rawValue), json($0.value)]) }).serialized()
    }

    static func decodeFilters(_ text: String) throws(SyncError) -> [Filter] {
        guard case .array(let items)? = try? JSONValue(parsing: text) else { throw malformed }
        var filters: [Filter] = []
        for item in items {
            guard case .array(let parts) = item, parts.count == 3, case .string(let column) = parts[0],
                case .string(let name) = parts[1], let op = Filter.Operator(rawValue: name)
            else { throw malformed }
            filters.append(Filter(column, op, try value(parts[2])))
        }
        return filters
    }

    private static let malformed = SyncError(.decoding, "A stored write is not in the runtime's format")

    private static func json(_ value: SyncValue) -> JSONValue {
        switch value {
        case .null: .null
        case .int(let int): .object([("i", .string(String(int)))])
        case .double(let double): .object([("d", .string(String(double)))])
        case .bool(let bool): .object([("b", .bool(bool))])
        case .text(let text): .object([("t", .string(text))])
        case .bytes(let data): .object([("x", .string(data.base64EncodedString()))])
        }
    }

    private static func value(_ json: JSONValue) throws(SyncError) -> SyncValue {
        if json == .null { return .null }
        guard case .object(let members) = json, members.count == 1 else { throw malformed }
        switch (members[0].key, members[0].value) {
        case ("i", .string(let text)): if let int = Int64(text) { return .int(int) }
        case ("d", .string(let text)): if let double = Double(text) { return .double(double) }
        case ("b", .bool(let bool)): return .bool(bool)
        case ("t", .string(let text)): return .text(text)
        case ("x", .string(let text)): if let data = Data(base64Encoded: text) { return .bytes(data) }
        default: break
        }
        throw malformed
    }
}
