import Foundation

/// Column values as the queue and the lists keep them in SQLite: a JSON object whose values
/// carry their kind (`{"title":{"t":"Buy milk"},"done":{"b":false}}`), so a value reads back as
/// exactly the value written, whatever its type.
enum StoredValues {
    static func encode(_ values: ColumnValues) -> String {
        var text = "["
        for (index, (column, value)) in zip(values.columns, values.values).enumerated() {
            if index > 0 { text += "," }
            text += "[" + quotedJSON(column) + "," + encode(value) + "]"
        }
        return text + "]"
    }

    static func decode(_ text: String) throws -> ColumnValues {
        guard let pairs = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[Any]] else {
            throw SyncError(.decoding, "A stored write is not in the runtime's format")
        }
        var columns: [String] = [], values: [SyncValue] = []
        for pair in pairs {
            guard pair.count == 2, let column = pair[0] as? String else {
                throw SyncError(.decoding, "A stored write is not in the runtime's format")
            }
            columns.append(column)
            values.append(try decode(pair[1]))
        }
        return ColumnValues(columns: columns, values: values)
    }

    static func encodeList(_ names: [String]) -> String {
        "[" + names.map(quotedJSON).joined(separator: ",") + "]"
    }

    static func decodeList(_ text: String) -> [String] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String]) ?? []
    }

    private static func encode(_ value: SyncValue) -> String {
        switch value {
        case .null: "null"
        case .int(let int): #"{"i":"\#(int)"}"#
        case .double(let double): #"{"d":"\#(double)"}"#
        case .bool(let bool): #"{"b":\#(bool)}"#
        case .text(let text): #"{"t":"# + quotedJSON(text) + "}"
        case .bytes(let data): #"{"x":""# + data.base64EncodedString() + #""}"#
        }
    }

    private static func decode(_ json: Any) throws -> SyncValue {
        if json is NSNull { return .null }
        guard let object = json as? [String: Any], let (kind, raw) = object.first, object.count == 1 else {
            throw SyncError(.decoding, "A stored value is not in the runtime's format")
        }
        switch (kind, raw) {
        case ("i", let text as String): if let int = Int64(text) { return .int(int) }
        case ("d", let text as String): if let double = Double(text) { return .double(double) }
        case ("b", let bool as Bool): return .bool(bool)
        case ("t", let text as String): return .text(text)
        case ("x", let text as String): if let data = Data(base64Encoded: text) { return .bytes(data) }
        default: break
        }
        throw SyncError(.decoding, "A stored value is not in the runtime's format")
    }

    private static func quotedJSON(_ text: String) -> String {
        var output = ""
        JSONValue.writeString(text, to: &output)
        return output
    }
}

extension ColumnValues {
    /// These values restricted to `names` (in that order), leaving out names they lack.
    func subset(_ names: [String]) -> ColumnValues {
        var kept: [String] = []
        for name in names where columns.contains(name) && !kept.contains(name) { kept.append(name) }
        return ColumnValues(columns: kept, values: kept.map { self[$0]! })
    }

    /// These values with `other`'s laid over them (other's new columns appended).
    func merging(_ other: ColumnValues) -> ColumnValues {
        var result = self
        for (column, value) in zip(other.columns, other.values) {
            if let index = result.columns.firstIndex(of: column) {
                result.values[index] = value
            } else {
                result.columns.append(column)
                result.values.append(value)
            }
        }
        return result
    }
}
