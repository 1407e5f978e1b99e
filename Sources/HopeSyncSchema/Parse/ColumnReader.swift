/// The `columns:` of one table: `name: type`, `name: type?`, or a mapping.
extension SchemaReader {
    static let columnKeys = ["type", "nullable", "default", "references", "values", "bucket", "download", "was", "deprecated", "backfill"]

    /// Words people reach for from other databases, mapped to the schema's own.
    static let typeSynonyms = [
        "string": "text", "varchar": "text", "integer": "int", "bigint": "int", "boolean": "bool",
        "float": "double", "real": "double", "number": "double", "datetime": "timestamp",
        "date": "timestamp", "timestamptz": "timestamp", "blob": "bytes", "jsonb": "json", "attachment": "file", "image": "file",
        "photo": "file",
    ]

    mutating func readColumns(_ entry: YAMLEntry?, table: String, tableMark: YAMLMark, tableFields: [YAMLEntry]) -> (
        columns: [Column], names: [String]
    ) {
        guard let entry else {
            // A misspelt 'columns:' has been reported as such; saying it is missing adds nothing.
            guard !hasMisspelling(of: "columns", in: tableFields, allowed: Self.tableKeys) else { return ([], []) }
            log.error(
                tableMark, "table '\(table.abbreviated)' has no 'columns'",
                hint: "add 'columns:' with at least one column, such as 'name: text'")
            return ([], [])
        }
        guard
            let entries = mapping(entry.value, expected: "a mapping of columns", hint: "write each column as 'name: type' under 'columns:'")
        else {
            return ([], [])
        }
        guard !entries.isEmpty else {
            log.error(
                entry.keyMark, "table '\(table.abbreviated)' has no columns", hint: "declare at least one column, such as 'name: text'")
            return ([], [])
        }
        return (entries.compactMap { readColumn($0, table: table) }, entries.map(\.key))
    }

    private mutating func readColumn(_ entry: YAMLEntry, table: String) -> Column? {
        let name = entry.key
        locations.columns["\(table).\(name)"] = log.location(entry.keyMark)
        let isNameValid = checkName(name, as: .column, at: entry.keyMark)
        let column: Column?
        switch entry.value.content {
        case .scalar:
            column = readShorthand(entry.value, column: name)
        case .mapping(let fields):
            column = readColumnMapping(fields, column: name, at: entry.keyMark)
        case .sequence:
            log.error(
                entry.value.mark, "expected a type or a mapping for column '\(name.abbreviated)', found a list",
                hint: "write '\(name.abbreviated): text' or '\(name.abbreviated): { type: text, default: \"\" }'")
            column = nil
        }
        return isNameValid ? column : nil
    }

    /// `text` is NOT NULL, `text?` is nullable; neither has a default.
    private mutating func readShorthand(_ node: YAMLNode, column: String) -> Column? {
        guard case .string(let written) = node.scalar?.value else {
            log.error(
                node.mark, "expected a type for column '\(column.abbreviated)', found \(node.kindDescription)",
                hint: "write '\(column.abbreviated): text' or another type: \(ColumnType.keywords.joined(separator: ", "))")
            return nil
        }
        let isNullable = written.hasSuffix("?")
        let keyword = isNullable ? String(written.dropLast()) : written
        guard let type = readType(keyword, at: node.mark, column: column, values: nil, bucket: nil) else { return nil }
        return Column(name: column, type: type, isNullable: isNullable)
    }

    private mutating func readColumnMapping(_ fields: [YAMLEntry], column: String, at mark: YAMLMark) -> Column? {
        rejectUnknownKeys(fields, allowed: Self.columnKeys, in: "in column '\(column.abbreviated)'")
        let isNullable = fields["nullable"].flatMap { bool($0, for: "nullable") } ?? false
        let referencesNode = fields["references"]
        let references = referencesNode.flatMap { readReference($0, column: column) }
        guard let typeNode = fields["type"] else {
            log.error(
                mark, "column '\(column.abbreviated)' has no 'type'",
                hint: "add 'type:' with one of \(ColumnType.keywords.joined(separator: ", "))")
            return nil
        }
        guard let keyword = string(typeNode, for: "type", hint: "write one of \(ColumnType.keywords.joined(separator: ", "))") else {
            return nil
        }
        if keyword.hasSuffix("?") {
            log.error(
                typeNode.mark, "type '\(keyword.abbreviated)' ends with '?' in the mapping form",
                hint: "write 'type: \(keyword.dropLast())' and 'nullable: true'")
            return nil
        }
        let valuesEntry = fields.entry("values")
        if let valuesEntry, keyword != "enum" {
            log.error(valuesEntry.keyMark, "'values' applies only to enum columns", hint: "remove 'values', or write 'type: enum'")
        }
        let fileEntries = [fields.entry("bucket"), fields.entry("download")].compactMap { $0 }
        // An unknown type is reported as such; its keys would only repeat it.
        if keyword != "file", ColumnType.keywords.contains(keyword) {
            for entry in fileEntries {
                log.error(
                    entry.keyMark, "'\(entry.key)' applies only to file columns", hint: "remove '\(entry.key)', or write 'type: file'")
            }
        }
        guard let type = readType(keyword, at: typeNode.mark, column: column, values: valuesEntry, bucket: fields.entry("bucket"))
        else { return nil }
        var download = FileDownload.eager
        if type.bucket != nil, let entry = fields.entry("download") { download = readDownload(entry) ?? .eager }
        if let references, let referencesNode, type != .uuid {
            log.error(
                referencesNode.mark, "column '\(column.abbreviated)' references '\(references)' but is \(type.keyword)",
                hint: "a reference holds the other row's id: make the column 'type: uuid'")
        }
        let defaultValue = fields["default"].flatMap { readDefault($0, type: type, column: column) }
        var read = Column(
            name: column, type: type, isNullable: isNullable, defaultValue: defaultValue, references: references, download: download)
        read.isDeprecated = fields["deprecated"].flatMap { bool($0, for: "deprecated") } ?? false
        read.backfill = fields["backfill"].flatMap { readBackfill($0, column: column) }
        if let node = fields["was"] {
            if case .mapping(let former) = node.content {
                (read.was, read.retype) = readRetype(former, column: column, at: node.mark)
            } else {
                read.was = readFormerName(node, column: column)
            }
        }
        return read
    }

    /// `was: { name: old, type: int, to: "…", back: "…" }`: a rename that changes the type, with
    /// the PostgreSQL expressions that convert each way (`to` over the old name, `back` over the
    /// new one).
    private mutating func readRetype(_ fields: [YAMLEntry], column: String, at mark: YAMLMark) -> (String?, Retype?) {
        rejectUnknownKeys(fields, allowed: ["name", "type", "to", "back"], in: "in 'was' of column '\(column.abbreviated)'")
        let keywords = Retype.types.map(\.keyword)
        var parts: [String: String] = [:]
        for key in ["name", "type", "to", "back"] {
            guard let node = fields[key] else {
                log.error(
                    mark, "'was' of column '\(column.abbreviated)' has no '\(key)'",
                    hint: "write 'was: { name: old_name, type: int, to: \"old_name::text\", back: \"\(column)::bigint\" }'")
                return (nil, nil)
            }
            guard let text = string(node, for: key, hint: "write it as a string") else { return (nil, nil) }
            parts[key] = text
        }
        guard let name = fields["name"].flatMap({ readFormerName($0, column: column) }), let keyword = parts["type"] else {
            return (nil, nil)
        }
        guard let type = ColumnType(simpleKeyword: keyword), Retype.types.contains(type), let to = parts["to"], let back = parts["back"]
        else {
            log.error(
                fields["type"]?.mark ?? mark, "a retype converts between \(keywords.joined(separator: ", ")), not '\(keyword.abbreviated)'",
                hint: "devices convert the column with SQLite's CAST, which these types have; add a new column for others")
            return (nil, nil)
        }
        return (name, Retype(from: type, to: to, back: back))
    }

    /// `was: old`, the column's name before a rename (decision 0052): a name, and not its own.
    private mutating func readFormerName(_ node: YAMLNode, column: String) -> String? {
        guard let name = string(node, for: "was", hint: "write the column's shipped name, such as 'was: name'") else { return nil }
        guard checkName(name, as: .column, at: node.mark) else { return nil }
        if name == column {
            log.error(node.mark, "column '\(column.abbreviated)' says it was '\(name.abbreviated)', its own name", hint: "remove 'was'")
            return nil
        }
        return name
    }

    /// A type keyword; an enum takes its values from the `values` entry, a file its bucket from
    /// `bucket`.
    private mutating func readType(
        _ keyword: String, at mark: YAMLMark, column: String, values: YAMLEntry?, bucket: YAMLEntry?
    ) -> ColumnType? {
        switch keyword {
        case "text": return .text
        case "int": return .int
        case "double": return .double
        case "bool": return .bool
        case "uuid": return .uuid
        case "timestamp": return .timestamp
        case "json": return .json
        case "bytes": return .bytes
        case "enum":
            guard let values else {
                log.error(
                    mark, "enum column '\(column.abbreviated)' has no 'values'",
                    hint: "write '\(column.abbreviated): { type: enum, values: [first, second] }'")
                return nil
            }
            return readEnumValues(values).map(ColumnType.enumeration)
        case "file":
            guard let bucket else {
                log.error(
                    mark, "file column '\(column.abbreviated)' has no 'bucket'",
                    hint: "write '\(column.abbreviated): { type: file, bucket: photos }', naming the Storage bucket its files go in")
                return nil
            }
            return readBucket(bucket).map { ColumnType.file(bucket: $0) }
        default:
            let match = Self.typeSynonyms[keyword.lowercased()] ?? Suggestion.closest(to: keyword, among: ColumnType.keywords)
            log.error(
                mark, "unknown type '\(keyword.abbreviated)' for column '\(column.abbreviated)'",
                hint: match.map { "did you mean '\($0)'?" } ?? "the types are \(ColumnType.keywords.joined(separator: ", "))")
            return nil
        }
    }

    /// A bucket name: it is also the Storage bucket's id, part of its policies' names, and a
    /// literal in their SQL, so it keeps to lowercase letters, digits, '-' and '_'.
    private mutating func readBucket(_ entry: YAMLEntry) -> String? {
        guard let name = string(entry.value, for: "bucket", hint: "write a bucket name such as 'photos'") else { return nil }
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard allowed, let first = name.utf8.first, first != UInt8(ascii: "-"), first != UInt8(ascii: "_") else {
            log.error(
                entry.value.mark, "bucket name '\(name.abbreviated)' is not lowercase letters, digits, '-' and '_'",
                hint: "write lowercase letters, digits, '-' and '_', starting with a letter or digit, such as 'task-photos'")
            return nil
        }
        guard name.utf8.count <= Self.maxBucketLength else {
            log.error(
                entry.value.mark, "bucket name '\(name.abbreviated)' is \(name.utf8.count) bytes long",
                hint: "keep bucket names to \(Self.maxBucketLength) bytes: its policies' names must fit PostgreSQL's 63")
            return nil
        }
        return name
    }

    /// `<bucket>_select_own`, the longest policy name, fits 63 bytes.
    static let maxBucketLength = 52

    private mutating func readDownload(_ entry: YAMLEntry) -> FileDownload? {
        let keywords = FileDownload.allCases.map(\.keyword)
        guard let word = string(entry.value, for: "download", hint: "write one of \(keywords.joined(separator: ", "))") else {
            return nil
        }
        guard let mode = FileDownload(rawValue: word) else {
            log.error(
                entry.value.mark, "unknown download '\(word.abbreviated)'",
                hint: Suggestion.hint(for: word, among: keywords, listing: "write one of"))
            return nil
        }
        return mode
    }

    private mutating func readReference(_ node: YAMLNode, column: String) -> String? {
        guard let table = string(node, for: "references", hint: "write the name of a table declared under 'tables:'") else { return nil }
        guard declaredTables.contains(table) else {
            log.error(
                node.mark, "column '\(column.abbreviated)' references unknown table '\(table.abbreviated)'",
                hint: Suggestion.hint(for: table, among: declaredTables, listing: "the tables are"))
            return nil
        }
        return table
    }
}
