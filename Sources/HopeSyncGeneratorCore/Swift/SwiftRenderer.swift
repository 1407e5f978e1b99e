import HopeSyncSchema

/// Swift: one row type per table, Codable and coding its column values itself
/// (`swift/record.swift.mustache`), and the table list with the local migrations embedded
/// (`swift/schema.swift.mustache`), so an app needs only these files and the runtime library.
package struct SwiftRenderer: Sendable {
    /// Where its files go in Generated/.
    package static let folder = "swift/"

    let templates: TemplateSet

    package init(templates: TemplateSet) {
        self.templates = templates
    }

    /// File name (relative to Generated/swift) -> contents.
    package func files(for schema: Schema, migrations: [(Int, String, String)]) throws -> [String: String] {
        var files: [String: String] = [:]
        var types: [String] = []
        for table in schema.clientTables {
            files["\(table.swiftTypeName).swift"] = try templates.render(recordContext(table))
            types.append(table.swiftTypeName)
            // A scope's membership table follows it, in the files and in the table list.
            if let members = table.membershipTable {
                files["\(members.swiftTypeName).swift"] = try templates.render(recordContext(members))
                types.append(members.swiftTypeName)
            }
        }
        files["GeneratedSchema.swift"] = try templates.render(
            SwiftSchemaContext(
                types: types,
                migrations: migrations.map { number, name, sql in
                    EmbeddedMigration(version: String(number), name: name, sql: SwiftLiteral.multiline(sql, indent: "                "))
                }, pullFunction: ServerFunctions.pull))
        return files
    }

    private func recordContext(_ table: Table) -> SwiftRecordContext {
        recordContext(
            table: table.name, type: table.swiftTypeName, about: table.addedScopeColumnNote.map { $0 + "." }, columns: table.syncedColumns,
            conflict: table.conflict, ordering: table.pullOrdering,
            openRowRule: table.openRowRule.map {
                "HopeSync.OpenRowRule(start: \(SwiftLiteral.string($0.start)), end: \(SwiftLiteral.string($0.end)))"
            } ?? "",
            scope: table.sharing.map { scopeLiteral($0, of: table) })
    }

    /// A membership table's row type (its conflict mode: ``MembershipTable/conflict``).
    private func recordContext(_ members: MembershipTable) -> SwiftRecordContext {
        recordContext(
            table: members.name, type: members.swiftTypeName,
            about:
                "The members of each `\(members.scopeTable)` row and their roles: hope-sync adds this table, the server writes it and a device only reads it.",
            columns: members.columns, conflict: MembershipTable.conflict, ordering: .exact, openRowRule: "",
            scope: ".membership(of: \(SwiftLiteral.string(members.scopeTable)), table: \(SwiftLiteral.string(members.name)))")
    }

    private func recordContext(
        table: String, type: String, about: String?, columns: [SyncedColumn], conflict: ConflictMode, ordering: PullOrdering,
        openRowRule: String,
        scope: String?
    ) -> SwiftRecordContext {
        // The stamps belong to the runtime: the app's row type never carries them.
        let properties = columns.enumerated().filter { $0.element.role != .columnStamps }
        return SwiftRecordContext(
            table: table,
            type: type,
            about: about,
            properties: properties.map { propertyContext($1, index: $0) },
            columns: columns.map { column in
                .init(name: column.name, property: column.role == .columnStamps ? nil : SwiftNames.propertyName(column.name))
            },
            columnCount: String(columns.count),
            enums: columns.compactMap(enumContext),
            schemaColumns: columns.map(columnSchemaLiteral),
            conflict: conflictLiteral(conflict),
            ordering: orderingLiteral(ordering),
            openRowRule: openRowRule,
            scope: scope)
    }

    private func scopeLiteral(_ sharing: TableSharing, of table: Table) -> String {
        let members = SwiftLiteral.string((table.scopeTable.map { MembershipTable.name(of: $0) }) ?? "")
        switch sharing {
        case .scope:
            return ".scope(\(SwiftLiteral.string(table.name)), members: \(members))"
        case .scoped(let column, let scopeTable):
            return ".scoped(by: \(SwiftLiteral.string(column)), in: \(SwiftLiteral.string(scopeTable)), members: \(members))"
        case .follows(let through, let column, let scopeTable):
            return
                ".follows(through: \(SwiftLiteral.string(through)), column: \(SwiftLiteral.string(column)), in: \(SwiftLiteral.string(scopeTable)), members: \(members))"
        }
    }

    private func propertyContext(_ column: SyncedColumn, index: Int) -> SwiftRecordContext.Property {
        let type = swiftType(column)
        let optional = column.isNullable || [.owner, .version, .serverSeq].contains(column.role)
        let name = SwiftNames.propertyName(column.name)
        return SwiftRecordContext.Property(
            name: name, column: column.name, index: String(index), renamed: name != column.name, type: optional ? type + "?" : type,
            default: defaultLiteral(column, optional: optional))
    }

    private func enumContext(_ column: SyncedColumn) -> SwiftRecordContext.Enumeration? {
        guard case .enumeration(let values) = column.type else { return nil }
        return SwiftRecordContext.Enumeration(
            name: SwiftNames.enumTypeName(column.name),
            cases: zip(values, SwiftNames.caseNames(values)).map { value, name in
                .init(case: name, raw: SwiftLiteral.string(value), renamed: name != value)
            })
    }

    private func swiftType(_ column: SyncedColumn) -> String {
        switch column.type {
        // The version column stays the exact text the server sent, which the guarded replay compares.
        case .timestamp where column.role == .version: "Swift.String"
        case .timestamp: "HopeSync.SyncTimestamp"
        case .text, .json: "Swift.String"
        case .uuid: "Foundation.UUID"
        case .int: "Swift.Int64"
        case .double: "Swift.Double"
        case .bool: "Swift.Bool"
        case .bytes: "Foundation.Data"
        case .enumeration: SwiftNames.enumTypeName(column.name)
        case .file: "HopeSync.SyncFile"
        }
    }

    /// The initializer's default: the column's schema default (`now` the current instant), nil
    /// for optionals, a fresh id, and placeholders the store overwrites when it stamps a write.
    private func defaultLiteral(_ column: SyncedColumn, optional: Bool) -> String? {
        switch column.role {
        case .id: return "Foundation.UUID()"
        case .updatedMs: return "0"
        case .deviceId: return "\"\""
        default: break
        }
        if let value = column.defaultValue {
            switch value {
            case .text(let text):
                switch column.type {
                case .enumeration(let values):
                    return values.firstIndex(of: text).map { "." + SwiftNames.caseNames(values)[$0] }
                case .uuid:
                    // Checked to be a UUID when the schema was read.
                    return "Foundation.UUID(uuidString: \(SwiftLiteral.string(text)))!"
                default:
                    return SwiftLiteral.string(text)
                }
            case .int(let number): return String(number)
            case .double(let number): return SQLLiteral.number(number)
            case .bool(let flag): return flag ? "true" : "false"
            case .json(let text): return SwiftLiteral.string(text)
            case .now: return "HopeSync.SyncTimestamp.now"
            }
        }
        return optional ? "nil" : nil
    }

    private func columnSchemaLiteral(_ column: SyncedColumn) -> String {
        var arguments = [SwiftLiteral.string(column.name), "." + kindLiteral(column.type)]
        if column.isNullable { arguments.append("nullable: true") }
        if column.role != .user { arguments.append("role: .\(column.role.rawValue)") }
        if column.type.bucket != nil, column.download != .eager { arguments.append("download: .\(column.download)") }
        return "HopeSync.ColumnSchema(\(arguments.joined(separator: ", ")))"
    }

    private func kindLiteral(_ type: ColumnType) -> String {
        if case .enumeration(let values) = type {
            return "enumeration([\(values.map(SwiftLiteral.string).joined(separator: ", "))])"
        }
        if let bucket = type.bucket { return "file(bucket: \(SwiftLiteral.string(bucket)))" }
        return type.keyword
    }

    private func orderingLiteral(_ ordering: PullOrdering) -> String {
        switch ordering {
        case .exact: ".exact"
        case .lookback(let distance): ".lookback(\(distance))"
        }
    }

    private func conflictLiteral(_ mode: ConflictMode) -> String {
        switch mode {
        case .lww: ".lww"
        case .version(let kind): ".version(.\(kind.rawValue))"
        }
    }
}
