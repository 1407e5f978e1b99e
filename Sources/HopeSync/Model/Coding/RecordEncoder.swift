import Foundation

/// Turns a row into its column values through its Encodable conformance: UUIDs as lowercase
/// text, Bool as `.bool`, Data as `.bytes`, string enums as their raw text, a missing optional as
/// `.null`. The path of rows that do not code their columns themselves, and the reference for
/// those that do (see ``RecordDecoder``).
struct RecordEncoder {
    func encode<Record: Encodable>(_ record: Record, columns: [String]) throws -> [SyncValue] {
        let storage = ValueStorage(columns: columns)
        try record.encode(to: ColumnsEncoder(storage: storage))
        return storage.slots.values
    }
}

final class ValueStorage {
    var slots: ColumnSlots
    var single: SyncValue = .null

    init(columns: [String]) {
        slots = ColumnSlots(columns: columns)
    }

    func set(_ value: SyncValue, for key: some CodingKey) throws {
        guard let index = slots.index(of: key.stringValue) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [key], debugDescription: "\(key.stringValue) is not a column of the table"))
        }
        slots.values[index] = value
    }
}

private struct ColumnsEncoder: Encoder {
    let storage: ValueStorage
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedColumns(storage: storage))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        preconditionFailure("a row encodes as keyed columns")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValue(storage: storage) }
}

private struct KeyedColumns<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: ValueStorage
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { try storage.set(.null, for: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try storage.set(.bool(value), for: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try storage.set(.text(value), for: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try storage.set(.double(value), for: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try storage.set(.int(value), for: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try storage.set(.int(Int64(value)), for: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try storage.set(try SyncValue.encoding(value), for: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<
        NestedKey
    > {
        preconditionFailure("columns hold scalar values")
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        preconditionFailure("columns hold scalar values")
    }

    mutating func superEncoder() -> any Encoder { preconditionFailure("columns hold scalar values") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure("columns hold scalar values") }
}

private struct SingleValue: SingleValueEncodingContainer {
    let storage: ValueStorage
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { storage.single = .null }
    mutating func encode(_ value: Bool) throws { storage.single = .bool(value) }
    mutating func encode(_ value: String) throws { storage.single = .text(value) }
    mutating func encode(_ value: Double) throws { storage.single = .double(value) }
    mutating func encode(_ value: Int64) throws { storage.single = .int(value) }
    mutating func encode(_ value: Int) throws { storage.single = .int(Int64(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { storage.single = try SyncValue.encoding(value) }
}

extension SyncValue {
    /// One column's value from a Swift value of any type a generated row uses.
    static func encoding<T: Encodable>(_ value: T) throws -> SyncValue {
        switch value {
        case let uuid as UUID: return .text(uuid.lowercasedString)
        case let timestamp as SyncTimestamp: return .text(timestamp.text)
        case let data as Data: return .bytes(data)
        case let int as Int64: return .int(int)
        case let string as String: return .text(string)
        case let bool as Bool: return .bool(bool)
        case let double as Double: return .double(double)
        default:
            // String enums and other single-value wrappers encode through one value.
            let storage = ValueStorage(columns: [])
            try value.encode(to: ColumnsEncoder(storage: storage))
            return storage.single
        }
    }
}
