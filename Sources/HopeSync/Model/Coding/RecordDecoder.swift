import Foundation

/// Builds a row from its column values through its Decodable conformance (the inverse of
/// ``RecordEncoder``): the path of rows that do not code their columns themselves (hand-written
/// ones), and the reference the generated rows' own coding is tested against. Off the hot path
/// since generated rows code themselves, so it is written plainly.
struct RecordDecoder {
    func decode<Record: Decodable>(_ type: Record.Type, columns: [String], values: [SyncValue]) throws -> Record {
        try Record(from: ColumnsDecoder(values: RowValues(ColumnSlots(columns: columns, values: values))))
    }
}

/// The row being decoded, shared by the containers synthesized code asks for.
private final class RowValues {
    var slots: ColumnSlots

    init(_ slots: ColumnSlots) {
        self.slots = slots
    }

    subscript(column: String) -> SyncValue? {
        slots.index(of: column).map { slots.values[$0] }
    }
}

private struct ColumnsDecoder: Decoder {
    let values: RowValues
    var single: SyncValue = .null
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedColumns(values: values))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a column holds one value"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValue(value: single, codingPath: codingPath) }
}

private struct KeyedColumns<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let values: RowValues
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { values.slots.columns.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        (values[key.stringValue] ?? .null) == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try (values[key.stringValue] ?? .null).decoded(as: type, codingPath: [key])
    }

    // An optional column looked up once, not three times (contains, decodeNil, decode).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = values[key.stringValue], value != .null else { return nil }
        return try value.decoded(as: type, codingPath: [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "a column holds one value"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "a column holds one value"))
    }

    func superDecoder() throws -> any Decoder { ColumnsDecoder(values: values) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ColumnsDecoder(values: values) }
}

private struct SingleValue: SingleValueDecodingContainer {
    let value: SyncValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value.decoded(as: type, codingPath: codingPath) }
}

extension SyncValue {
    func decoded<T: Decodable>(as type: T.Type, codingPath: [any CodingKey]) throws -> T {
        func mismatch() -> DecodingError {
            .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "column holds \(self)"))
        }
        let result: Any?
        switch (type, self) {
        case (is UUID.Type, .text(let text)): result = UUID(text: text)
        case (is String.Type, .text(let text)): result = text
        case (is Int64.Type, .int(let int)): result = int
        case (is Int.Type, .int(let int)): result = Int(exactly: int)
        case (is Double.Type, .double(let double)): result = double
        case (is Double.Type, .int(let int)): result = Double(int)
        case (is Bool.Type, .bool(let bool)): result = bool
        case (is Bool.Type, .int(let int)): result = int != 0
        case (is Data.Type, .bytes(let data)): result = data
        case (is SyncTimestamp.Type, .text(let text)): result = SyncTimestamp(text)
        case (is UUID.Type, _), (is SyncTimestamp.Type, _), (is String.Type, _), (is Int64.Type, _), (is Int.Type, _),
            (is Double.Type, _), (is Bool.Type, _), (is Data.Type, _):
            throw mismatch()
        default:
            // String enums and other single-value wrappers decode through one value.
            return try T(from: ColumnsDecoder(values: RowValues(ColumnSlots(columns: [])), single: self, codingPath: codingPath))
        }
        guard let typed = result as? T else { throw mismatch() }
        return typed
    }
}
