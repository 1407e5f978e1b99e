import Foundation

/// A Swift type a generated row holds in a column, with its one conversion to and from the
/// column's ``SyncValue``: UUIDs as lowercase text, Bool as `.bool`, Data as `.bytes`,
/// timestamps and files as their text, string enums as their raw text, nil as `.null`.
///
/// A generated row's ``SyncRecord/columnValues()`` and ``SyncRecord/init(columnValues:)`` are
/// one line per column over these, with no Codable in between. The values, and the errors for
/// values of the wrong kind, are the Codable path's (`RecordEncoder`, `RecordDecoder`), which
/// hand-written rows still go through.
public protocol SyncColumnValue {
    /// The value as the column holds it.
    var columnValue: SyncValue { get }

    /// The Swift value of `columnValue`, the value of the column `key`. A value of another kind
    /// throws the `DecodingError` the Codable path throws, its coding path `[key]`.
    init(columnValue: SyncValue, column key: some CodingKey) throws
}

/// A row's values in table order, as a generated row's ``SyncRecord/init(columnValues:)``
/// reads them: `try row.value(3, CodingKeys.startedMs)`.
public struct ColumnRow {
    public let values: [SyncValue]

    /// Throws when `values` is not one value per column (`count` columns).
    @inlinable public init(_ values: [SyncValue], count: Int) throws {
        guard values.count == count else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "a row of \(count) columns, given \(values.count) values"))
        }
        self.values = values
    }

    /// The value at `index`, the column `key`.
    @inlinable public func value<Value: SyncColumnValue, Key: CodingKey>(_ index: Int, _ key: Key) throws -> Value {
        try Value(columnValue: values[index], column: key)
    }
}

extension DecodingError {
    /// What the Codable path throws for a column whose value is not of `type`'s kind.
    @usableFromInline static func mismatch(_ type: Any.Type, _ value: SyncValue, _ key: some CodingKey) -> DecodingError {
        .typeMismatch(type, .init(codingPath: [key], debugDescription: "column holds \(value)"))
    }
}

extension Optional: SyncColumnValue where Wrapped: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { self?.columnValue ?? .null }

    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        if case .null = columnValue {
            self = nil
        } else {
            self = try Wrapped(columnValue: columnValue, column: key)
        }
    }
}

extension String: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { .text(self) }

    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        guard case .text(let text) = columnValue else { throw DecodingError.mismatch(String.self, columnValue, key) }
        self = text
    }
}

extension Int64: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { .int(self) }

    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        guard case .int(let int) = columnValue else { throw DecodingError.mismatch(Int64.self, columnValue, key) }
        self = int
    }
}

extension Double: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { .double(self) }

    /// An integer reads as a Double too, as the Codable path reads it.
    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        switch columnValue {
        case .double(let double): self = double
        case .int(let int): self = Double(int)
        default: throw DecodingError.mismatch(Double.self, columnValue, key)
        }
    }
}

extension Bool: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { .bool(self) }

    /// An integer reads as a Bool too (non-zero is true), as the Codable path reads it.
    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        switch columnValue {
        case .bool(let bool): self = bool
        case .int(let int): self = int != 0
        default: throw DecodingError.mismatch(Bool.self, columnValue, key)
        }
    }
}

extension Data: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { .bytes(self) }

    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        guard case .bytes(let data) = columnValue else { throw DecodingError.mismatch(Data.self, columnValue, key) }
        self = data
    }
}

extension UUID: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { .text(lowercasedString) }

    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        guard case .text(let text) = columnValue, let uuid = UUID(text: text) else {
            throw DecodingError.mismatch(UUID.self, columnValue, key)
        }
        self = uuid
    }
}

extension SyncTimestamp: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { .text(text) }

    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        guard case .text(let text) = columnValue, let timestamp = SyncTimestamp(text) else {
            throw DecodingError.mismatch(SyncTimestamp.self, columnValue, key)
        }
        self = timestamp
    }
}

extension SyncFile: SyncColumnValue {
    @inlinable public var columnValue: SyncValue { .text(name) }

    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        guard case .text(let text) = columnValue else { throw DecodingError.mismatch(String.self, columnValue, key) }
        guard let file = SyncFile(name: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "not a file name (<sha256>.<extension>)"))
        }
        self = file
    }
}

/// A generated row's enums: the raw text.
extension SyncColumnValue where Self: RawRepresentable, RawValue == String {
    @inlinable public var columnValue: SyncValue { .text(rawValue) }

    @inlinable public init(columnValue: SyncValue, column key: some CodingKey) throws {
        guard case .text(let text) = columnValue else { throw DecodingError.mismatch(String.self, columnValue, key) }
        guard let value = Self(rawValue: text) else {
            // The standard library's words for a raw value that names no case.
            throw DecodingError.dataCorrupted(
                .init(codingPath: [key], debugDescription: "Cannot initialize \(Self.self) from invalid String value \(text)"))
        }
        self = value
    }
}
