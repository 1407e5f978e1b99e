/// What a synced column holds. schema.yaml names it by ``keyword``; each database stores it as
/// its own type (``sqliteType``, ``postgresType``), and the runtime reads it back by this kind.
public enum ColumnType: Hashable, Sendable {
    case text
    case int
    case double
    case bool
    case uuid
    case timestamp
    case json
    case bytes
    /// A string restricted to these values (a CHECK constraint on both databases).
    case enumeration([String])
    /// A file kept in this Supabase Storage bucket: the column holds its content-addressed name
    /// (`<sha256>.<extension>`), the object lives at `<user_id>/<name>` in the bucket, and each
    /// device keeps a copy of its own (docs/PROTOCOL.md, "Files").
    case file(bucket: String)

    /// The name schema.yaml uses for the type.
    public var keyword: String {
        switch self {
        case .text: "text"
        case .int: "int"
        case .double: "double"
        case .bool: "bool"
        case .uuid: "uuid"
        case .timestamp: "timestamp"
        case .json: "json"
        case .bytes: "bytes"
        case .enumeration: "enum"
        case .file: "file"
        }
    }

    public static let keywords = ["text", "int", "double", "bool", "uuid", "timestamp", "json", "bytes", "enum", "file"]

    /// The bucket of a file column.
    public var bucket: String? {
        if case .file(let bucket) = self { return bucket }
        return nil
    }

    /// The type a keyword names, for every type but `enum` and `file` (which need their values
    /// and bucket).
    public init?(simpleKeyword keyword: String) {
        switch keyword {
        case "text": self = .text
        case "int": self = .int
        case "double": self = .double
        case "bool": self = .bool
        case "uuid": self = .uuid
        case "timestamp": self = .timestamp
        case "json": self = .json
        case "bytes": self = .bytes
        default: return nil
        }
    }

    /// The device's column type: SQLite keeps bools as 0/1 and everything textual as TEXT.
    public var sqliteType: String {
        switch self {
        case .text, .uuid, .timestamp, .json, .enumeration, .file: "TEXT"
        case .int, .bool: "INTEGER"
        case .double: "REAL"
        case .bytes: "BLOB"
        }
    }

    /// The server's column type, as the generated Supabase SQL declares it.
    public var postgresType: String {
        switch self {
        case .text, .enumeration, .file: "text"
        case .int: "bigint"
        case .double: "double precision"
        case .bool: "boolean"
        case .uuid: "uuid"
        case .timestamp: "timestamptz"
        case .json: "jsonb"
        case .bytes: "bytea"
        }
    }
}

/// When a device fetches the files a file column names: as soon as a pulled row names one
/// (`eager`, the default: the device then shows it offline), or when the app first asks for it
/// (`on_read`: large files few screens show).
public enum FileDownload: String, Codable, Hashable, Sendable, CaseIterable {
    case eager
    case onRead = "on_read"

    /// How schema.yaml writes it.
    public var keyword: String { rawValue }
}
