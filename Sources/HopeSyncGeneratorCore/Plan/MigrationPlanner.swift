import HopeSyncModel
import HopeSyncSchema

/// Turns the difference between the newest migration's schema and schema.yaml into at most one
/// new migration (drizzle-kit's approach: no database needed).
package enum MigrationPlanner {
    /// The next migration, or nil when schema.yaml adds nothing and no table's server code
    /// (`serverCode`: table name -> checksum of its rendered functions and triggers) nor what
    /// the tables share (`sharedCode`, its checksum) changed since the snapshot recorded it.
    package static func nextMigration(
        after snapshot: Snapshot?, for parsed: ParsedSchema, serverCode: [String: String] = [:], sharedCode: String? = nil
    ) throws(SchemaError) -> Migration? {
        try checkOldestWriter(parsed, shipped: snapshot)
        var changes = try diff(after: snapshot, for: parsed)
        changes += lastWriterColumns(shipped: snapshot, in: parsed.schema)
        for table in parsed.schema.tables {
            guard let recorded = snapshot?.serverCode?[table.name], let current = serverCode[table.name], recorded != current,
                !changes.contains(.replaceTriggers(table)), !changes.contains(.createTable(table))
            else { continue }
            changes.append(.replaceTriggers(table))
        }
        changes += globalServerIndexes(shipped: snapshot, in: parsed.schema)
        // A snapshot without the shared code's checksum predates it: its server lacks it.
        let sharedChanged = sharedCode != nil && snapshot.map { !$0.migrations.isEmpty && $0.sharedServerCode != sharedCode } ?? false
        guard !changes.isEmpty || sharedChanged else { return nil }
        let number = (snapshot?.migrations.last?.number ?? 0) + 1
        let name = changes.isEmpty ? "update_shared_server_code" : name(for: changes, isFirst: number == 1)
        return Migration(number: number, name: name, changes: changes, schema: parsed.schema, replacesSharedCode: sharedChanged)
    }

    /// `oldest_writer` names a build that exists: at most the newest migration this run leaves
    /// (a floor above it would refuse every build's writes, the one being made too).
    static func checkOldestWriter(_ parsed: ParsedSchema, shipped snapshot: Snapshot?) throws(SchemaError) {
        guard let floor = parsed.schema.oldestWriter else { return }
        let shipped = snapshot?.migrations.last?.number ?? 0
        // Setting or moving the floor re-creates the shared code: a migration of its own.
        let newest = snapshot?.schema.oldestWriter == floor ? shipped : shipped + 1
        guard floor > newest else { return }
        throw SchemaError([
            Diagnostic(
                SourceLocation(file: parsed.locations.file, line: 1, column: 1),
                "oldest_writer \(floor) is newer than this schema's newest migration (\(newest)): no build could write",
                hint:
                    "set it to the schema version of the oldest build that may still write (each build's version is its newest migration's number); `generate verify --devices` counts the devices on each"
            )
        ])
    }

    /// What schema.yaml changes since the snapshot, each step of the lifecycle judged against
    /// the migration that recorded the step before it.
    package static func diff(after snapshot: Snapshot?, for parsed: ParsedSchema) throws(SchemaError) -> [SchemaChange] {
        try SchemaDiff.changes(
            from: snapshot?.schema ?? Schema(tables: []), to: parsed,
            introducedIn: { record in snapshot?.migrations.first { $0.changes.contains(record) }?.number })
    }

    /// schema.yaml's schema with what only the snapshot knows: each table's retired columns,
    /// those retired before and those `changes` retire, the deprecated tables schema.yaml
    /// let go of (decision 0052), and the backfills that ran (decision 0053).
    package static func carried(_ schema: Schema, from snapshot: Snapshot?, changes: [SchemaChange]) -> Schema {
        var carried = schema
        // A deprecated table schema.yaml no longer names (the diff let it go), where it was.
        for (index, table) in (snapshot?.schema.tables ?? []).enumerated()
        where table.isDeprecated && schema.table(named: table.name) == nil {
            carried.tables.insert(table, at: min(index, carried.tables.count))
        }
        for index in carried.tables.indices {
            let name = carried.tables[index].name
            // A table being renamed shipped under its old name (decision 0054).
            let shipped = snapshot?.schema.table(named: name) ?? carried.tables[index].was.flatMap { snapshot?.schema.table(named: $0) }
            carried.tables[index].formerNames = formerNames(of: carried.tables[index], shipped: shipped, changes: changes)
            carried.tables[index] = Backfill.carried(carried.tables[index], from: shipped)
            carried.tables[index].retired =
                (shipped?.retired ?? [])
                + changes.compactMap { change in
                    if case .retireColumn(let retired, let table) = change, table.name == name { retired } else { nil }
                }
        }
        return carried
    }

    /// The shipped unique indexes that the server still holds unique across all owners: those
    /// of a snapshot that does not list them as per owner. (An index that changed or went away
    /// is refused by the diff; a new one is made per owner.)
    static func globalServerIndexes(shipped snapshot: Snapshot?, in schema: Schema) -> [SchemaChange] {
        guard let snapshot else { return [] }
        let perOwner = Set(snapshot.perOwnerIndexes ?? [])
        return snapshot.schema.tables.flatMap { shipped -> [SchemaChange] in
            guard let table = schema.table(named: shipped.name) else { return [] }
            return shipped.indexes.filter { index in
                index.isUnique && table.indexes.contains(index) && !perOwner.contains("\(table.name).\(index.name)")
            }.map { .replaceServerIndex($0, on: table) }
        }
    }

    /// `updated_by` for the tables shared before hope-sync recorded who wrote a shared row last:
    /// the shipped server columns do not list it (a snapshot recording no order predates it).
    static func lastWriterColumns(shipped snapshot: Snapshot?, in schema: Schema) -> [SchemaChange] {
        guard let snapshot else { return [] }
        return snapshot.schema.tables.compactMap { shipped -> SchemaChange? in
            guard shipped.sharing != nil, let table = schema.table(named: shipped.name), table.sharing != nil,
                snapshot.serverColumns?[table.name]?.contains(ReservedColumn.updatedBy) != true
            else { return nil }
            return .addColumn(SyncedColumn(.updatedBy), to: table)
        }
    }

    /// Named after the change: `initial`, `create_tags`, `sessions_add_note`,
    /// `sessions_add_note_mood`, `sessions_add_index_started_ms`, `update_sessions_tasks`,
    /// `tags_update_unique_per_owner`.
    static func name(for changes: [SchemaChange], isFirst: Bool) -> String {
        if isFirst { return "initial" }
        var tables: [String] = []
        var parts: [String] = []
        for change in changes {
            let table = change.table.name
            switch change {
            case .createTable: parts.append("create")
            case .addColumn(let column, _): parts.append(column.name)
            case .addIndex(let index, _): parts.append("index_" + index.columns.joined(separator: "_"))
            case .replaceTriggers: parts.append("triggers")
            case .replaceServerIndex: parts.append("per_owner")
            case .shareTable: parts.append("sharing")
            case .renameColumn(let column, _): parts.append("rename_\(column.twin ?? "")_\(column.name)")
            case .deprecateColumn(let column, _): parts.append("deprecate_\(column.name)")
            case .retireColumn(let retired, _): parts.append("retire_\(retired.column.name)")
            case .deprecateTable: parts.append("deprecate_table")
            case .renameTable(let table): parts.append("rename_from_\(table.was ?? "")")
            case .finishTableRename(_, let old): parts.append("finish_rename_from_\(old)")
            }
            if !tables.contains(table) { tables.append(table) }
        }
        let steps = parts.filter { ["rename_", "deprecate_", "retire_", "finish_rename_"].contains(where: $0.hasPrefix) }
        let added = parts.filter { $0 != "triggers" && $0 != "per_owner" && !steps.contains($0) }
        let name: String
        if tables.count > 1 {
            name = "update_" + tables.joined(separator: "_")
        } else if parts == ["create"] {
            name = "create_" + tables[0]
        } else if !steps.isEmpty {
            // `habits_rename_name_title`, `habits_deprecate_color_retire_name`.
            name = tables[0] + "_" + (steps + added.map { "add_" + $0 }).joined(separator: "_")
        } else if !added.isEmpty {
            name = tables[0] + "_add_" + added.joined(separator: "_")
        } else {
            // Only server code changes: `sessions_update_triggers`, `tags_update_unique_per_owner`.
            let updates = ["triggers", "per_owner"].filter(parts.contains).map { $0 == "per_owner" ? "unique_per_owner" : $0 }
            name = tables[0] + "_update_" + updates.joined(separator: "_")
        }
        return String(name.prefix(60))
    }
}
