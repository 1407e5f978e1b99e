/// How concurrent writes to one row are settled.
public enum ConflictMode: Codable, Hashable, Sendable {
    /// Last writer wins on (updated_ms, device_id); deletes are soft (deleted_ms).
    case lww
    /// A server-moved version column guards queued updates and deletes.
    case version(VersionKind)

    public var versionKind: VersionKind? {
        if case .version(let kind) = self { return kind }
        return nil
    }

    /// The column a version table's guarded writes are checked against.
    public var versionColumn: String? { versionKind?.columnName }

    /// `lww`, `version-timestamp` or `version-integer`: one word, as schema snapshots keep it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        switch try container.decode(String.self) {
        case "lww": self = .lww
        case "version-timestamp": self = .version(.timestamp)
        case "version-integer": self = .version(.integer)
        case let other: throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown conflict mode \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .lww: try container.encode("lww")
        case .version(let kind): try container.encode("version-\(kind.rawValue)")
        }
    }
}

/// What one last-writer-wins write claims: every column it sets (`column`: each column is its
/// own register on (updated_ms, device_id), so concurrent edits of different columns both
/// survive) or the whole row (`row`: the seed's rule; the larger pair replaces every column).
public enum MergeMode: String, Codable, Hashable, Sendable, CaseIterable {
    case column
    case row
}

public enum VersionKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// `updated_at timestamptz`, moved by moddatetime on every update.
    case timestamp
    /// `version bigint`, bumped by one on every update.
    case integer

    public var columnName: String {
        switch self {
        case .timestamp: "updated_at"
        case .integer: "version"
        }
    }

    /// The version column's type.
    public var columnType: ColumnType { self == .timestamp ? .timestamp : .int }
}

/// How far behind its cursor a pull of a table starts.
public enum PullOrdering: Hashable, Sendable {
    /// The server commits one owner's rows in server_seq order: start at the cursor.
    case exact
    /// Commits may land out of order: start this many sequence numbers behind the cursor.
    case lookback(Int64)

    /// The lookback of a table declared `exact_ordering: false`: more than the writes one
    /// owner's concurrent transactions can have in flight.
    public static let defaultLookback: Int64 = 50

    /// Sequence numbers a pull starts behind its cursor.
    public var distance: Int64 {
        switch self {
        case .exact: 0
        case .lookback(let distance): distance
        }
    }
}
