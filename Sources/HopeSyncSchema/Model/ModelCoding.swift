/// Flat JSON for the model, as `schema.snapshot.json` holds it: a column is one object whose
/// default is a plain JSON value read back through the column's type. Readable in review, and
/// several times cheaper to encode and decode than the synthesized nesting of enum payloads,
/// which matters because `generate --check` runs in every build.
extension Column {
    private enum Key: String, CodingKey {
        case name, type, values, bucket, nullable, `default`, references, download, was, deprecated, retype, backfill
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        name = try container.decode(String.self, forKey: .name)
        let keyword = try container.decode(String.self, forKey: .type)
        if keyword == "enum" {
            type = .enumeration(try container.decode([String].self, forKey: .values))
        } else if keyword == "file" {
            type = .file(bucket: try container.decode(String.self, forKey: .bucket))
        } else if let simple = ColumnType(simpleKeyword: keyword) {
            type = simple
        } else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown type \(keyword)")
        }
        isNullable = try container.decodeIfPresent(Bool.self, forKey: .nullable) ?? false
        references = try container.decodeIfPresent(String.self, forKey: .references)
        download = try container.decodeIfPresent(FileDownload.self, forKey: .download) ?? .eager
        was = try container.decodeIfPresent(String.self, forKey: .was)
        isDeprecated = try container.decodeIfPresent(Bool.self, forKey: .deprecated) ?? false
        retype = try container.decodeIfPresent(Retype.self, forKey: .retype)
        backfill = try container.decodeIfPresent(String.self, forKey: .backfill)
        guard container.contains(.default) else {
            defaultValue = nil
            return
        }
        switch type {
        case .int: defaultValue = .int(try container.decode(Int64.self, forKey: .default))
        case .double: defaultValue = .double(try container.decode(Double.self, forKey: .default))
        case .bool: defaultValue = .bool(try container.decode(Bool.self, forKey: .default))
        case .timestamp: defaultValue = .now
        case .json: defaultValue = .json(try container.decode(String.self, forKey: .default))
        case .text, .enumeration, .uuid, .bytes, .file: defaultValue = .text(try container.decode(String.self, forKey: .default))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .name)
        try container.encode(type.keyword, forKey: .type)
        if case .enumeration(let values) = type { try container.encode(values, forKey: .values) }
        if let bucket = type.bucket { try container.encode(bucket, forKey: .bucket) }
        if isNullable { try container.encode(true, forKey: .nullable) }
        switch defaultValue {
        case nil: break
        case .text(let text)?: try container.encode(text, forKey: .default)
        case .int(let number)?: try container.encode(number, forKey: .default)
        case .double(let number)?: try container.encode(number, forKey: .default)
        case .bool(let flag)?: try container.encode(flag, forKey: .default)
        case .now?: try container.encode("now", forKey: .default)
        case .json(let text)?: try container.encode(text, forKey: .default)
        }
        try container.encodeIfPresent(references, forKey: .references)
        if download != .eager { try container.encode(download, forKey: .download) }
        try container.encodeIfPresent(was, forKey: .was)
        if isDeprecated { try container.encode(true, forKey: .deprecated) }
        try container.encodeIfPresent(retype, forKey: .retype)
        try container.encodeIfPresent(backfill, forKey: .backfill)
    }
}

/// `{"from": "int", "to": "…", "back": "…"}`.
extension Retype: Codable {
    private enum Key: String, CodingKey {
        case from, to, back
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let keyword = try container.decode(String.self, forKey: .from)
        guard let type = ColumnType(simpleKeyword: keyword) else {
            throw DecodingError.dataCorruptedError(forKey: .from, in: container, debugDescription: "unknown type \(keyword)")
        }
        self.init(from: type, to: try container.decode(String.self, forKey: .to), back: try container.decode(String.self, forKey: .back))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(from.keyword, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(back, forKey: .back)
    }
}

extension Table {
    private enum Key: String, CodingKey {
        case name, swiftName, conflict, merge, exactOrdering, columns, indexes, rules, sharing, retired, deprecated, was, formerNames
    }

    /// A snapshot written before column merge existed has no `merge`: its lww tables merged whole
    /// rows, which is what they still are until a migration adds their stamps.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        name = try container.decode(String.self, forKey: .name)
        swiftName = try container.decodeIfPresent(String.self, forKey: .swiftName)
        conflict = try container.decode(ConflictMode.self, forKey: .conflict)
        merge = try container.decodeIfPresent(MergeMode.self, forKey: .merge) ?? (conflict == .lww ? .row : .column)
        exactOrdering = try container.decode(Bool.self, forKey: .exactOrdering)
        columns = try container.decode([Column].self, forKey: .columns)
        indexes = try container.decode([Index].self, forKey: .indexes)
        rules = try container.decode([TableRule].self, forKey: .rules)
        sharing = try container.decodeIfPresent(TableSharing.self, forKey: .sharing)
        retired = try container.decodeIfPresent([RetiredColumn].self, forKey: .retired) ?? []
        isDeprecated = try container.decodeIfPresent(Bool.self, forKey: .deprecated) ?? false
        was = try container.decodeIfPresent(String.self, forKey: .was)
        formerNames = try container.decodeIfPresent([String].self, forKey: .formerNames) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(swiftName, forKey: .swiftName)
        try container.encode(conflict, forKey: .conflict)
        if conflict == .lww { try container.encode(merge, forKey: .merge) }
        try container.encode(exactOrdering, forKey: .exactOrdering)
        try container.encode(columns, forKey: .columns)
        try container.encode(indexes, forKey: .indexes)
        try container.encode(rules, forKey: .rules)
        try container.encodeIfPresent(sharing, forKey: .sharing)
        if !retired.isEmpty { try container.encode(retired, forKey: .retired) }
        if isDeprecated { try container.encode(true, forKey: .deprecated) }
        try container.encodeIfPresent(was, forKey: .was)
        if !formerNames.isEmpty { try container.encode(formerNames, forKey: .formerNames) }
    }
}

/// `{"scope": true}`, `{"scope": "list_id", "of": "task_lists"}` or
/// `{"scope": "list_id", "of": "task_lists", "through": "task_id"}`: schema.yaml's words.
extension TableSharing: Codable {
    private enum Key: String, CodingKey {
        case scope, of, through
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if (try? container.decode(Bool.self, forKey: .scope)) == true {
            self = .scope
            return
        }
        let column = try container.decode(String.self, forKey: .scope)
        let scopeTable = try container.decode(String.self, forKey: .of)
        if let through = try container.decodeIfPresent(String.self, forKey: .through) {
            self = .follows(through: through, column: column, scopeTable: scopeTable)
        } else {
            self = .scoped(by: column, scopeTable: scopeTable)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .scope:
            try container.encode(true, forKey: .scope)
        case .scoped(let column, let scopeTable):
            try container.encode(column, forKey: .scope)
            try container.encode(scopeTable, forKey: .of)
        case .follows(let through, let column, let scopeTable):
            try container.encode(column, forKey: .scope)
            try container.encode(scopeTable, forKey: .of)
            try container.encode(through, forKey: .through)
        }
    }
}
