import Foundation

/// One column's value as the server and the device both hold it. JSON columns travel as their
/// JSON text, uuids as lowercase text, timestamps as the exact text the server sent.
public enum SyncValue: Sendable, Hashable {
    case null
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case text(String)
    case bytes(Data)
}

/// Column values in a fixed order (the order requests are written in, so bodies are
/// byte-for-byte reproducible).
public struct ColumnValues: Sendable, Hashable {
    public var columns: [String]
    public var values: [SyncValue]

    public init(columns: [String], values: [SyncValue]) {
        precondition(columns.count == values.count, "one value per column")
        self.columns = columns
        self.values = values
    }

    public init(_ pairs: KeyValuePairs<String, SyncValue>) {
        self.columns = pairs.map(\.key)
        self.values = pairs.map(\.value)
    }

    public subscript(column: String) -> SyncValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }
}
