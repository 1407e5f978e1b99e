import Foundation
import HopeSync
import HopeSyncModel

/// The server's triggers and policies (as Generated/supabase/schema.sql writes them): validation
/// of a whole request, last writer wins, the sequence, the version bump and the one-open-row rule.
extension InMemoryServer {
    /// Refuses the whole request as PostgREST would: an unknown column (PGRST204), a row owned
    /// by someone else (42501), a value the table's constraints refuse.
    func validate(_ rows: [ColumnValues], _ table: TableSchema, owner: String) throws(SyncError) {
        guard let first = rows.first else { return }
        guard rows.allSatisfy({ $0.columns == first.columns }) else {
            throw Self.refusal(400, "PGRST102", "All object keys must match")
        }
        try checkColumns(first.columns, table)
        for row in rows {
            let id = row[ReservedColumn.id].flatMap(\.text) ?? ""
            if row[ReservedColumn.owner] != .text(owner) {
                throw Self.refusal(403, "42501", "new row violates row-level security policy for table \"\(table.name)\"")
            }
            // A shared table's stored row is checked by its policies (InMemoryServer+Sharing.swift).
            if table.scope == nil, let existing = stores[table.name]?[id], existing.values[ReservedColumn.owner] != .text(owner) {
                throw Self.refusal(
                    403, "42501", "new row violates row-level security policy (USING expression) for table \"\(table.name)\"")
            }
            // A column the request leaves out keeps its stored value (or its default).
            for column in table.columns where ![.serverSeq, .version].contains(column.role) && row.columns.contains(column.name) {
                let value = row[column.name] ?? .null
                if value == .null, !column.isNullable {
                    throw Self.refusal(
                        400, "23502", "null value in column \"\(column.name)\" of relation \"\(table.name)\" violates not-null constraint")
                }
                if case .enumeration(let cases) = column.type, case .text(let text) = value, !cases.contains(text) {
                    throw Self.refusal(
                        400, "23514",
                        "new row for relation \"\(table.name)\" violates check constraint \"\(table.name)_\(column.name)_check\"")
                }
            }
            for refusal in refusals where refusal.table == table.name && refusal.matches(row) {
                throw SyncError(.server, "The server refused the request (\(refusal.error.status)).", serverError: refusal.error)
            }
            try checkClaims(of: row, table)
        }
    }

    /// As the triggers: a claim more than a day past the server's clock is refused (22008). For
    /// column merge, the upsert's proposed insert refuses a row whose newest stamp sent (or its
    /// pair, sent without stamps) is past it, and the update that follows refuses a column it
    /// would take past it; for whole rows, any write stamped past it. Without a clock there is
    /// no such limit.
    private func checkClaims(of row: ColumnValues, _ table: TableSchema) throws(SyncError) {
        guard let now = clock?(), table.conflict == .lww else { return }
        let horizon = WriteStamp(ms: now + HybridClock.maxAheadMs, deviceID: "")
        let values = Dictionary(uniqueKeysWithValues: zip(row.columns, row.values))
        let beyond: Bool
        if table.mergesColumns {
            let merge = RowMerge(table)
            let stored = (values[ReservedColumn.id]?.text).flatMap { stores[table.name]?[$0]?.values }
            let sent =
                values[ReservedColumn.columnStamps].map { $0 == .null } ?? true ? merge.wholeRowStamps(values) : merge.stamps(of: values)
            let storedStamps = stored.map(merge.stamps(of:))
            let claims = self.claims(values, over: stored, merge)
            let repeats = stored.map { Self.isWholeRow(values, over: $0) && WriteStamp(pairOf: values) == WriteStamp(pairOf: $0) } ?? false
            beyond =
                (sent.newest.map { $0 > horizon } ?? false)
                || (!repeats
                    && merge.stamped.contains { column in
                        guard let claim = claims[column], claim > horizon, stored != nil else { return false }
                        return storedStamps?[column].map { claim > $0 } ?? true
                    })
        } else {
            beyond = WriteStamp(pairOf: values).ms > horizon.ms
        }
        if beyond {
            throw Self.refusal(400, "22008", "the write is stamped more than a day past the server's clock: check the device's clock")
        }
    }

    func checkColumns(_ columns: [String], _ table: TableSchema) throws(SyncError) {
        for column in columns where table.column(named: column) == nil || droppedColumns[table.name]?.contains(column) == true {
            throw Self.refusal(400, "PGRST204", "Could not find the '\(column)' column of '\(table.name)' in the schema cache")
        }
    }

    /// Writes one row under the triggers' rules; returns the sequence numbers it took (none when
    /// the write lost). A column the request does not name keeps its stored value, as an
    /// upsert's `DO UPDATE SET` leaves it.
    func write(_ sent: [String: SyncValue], into table: TableSchema) -> [Int64] {
        let key = sent[ReservedColumn.id].flatMap(\.text) ?? ""
        let existing = stores[table.name]?[key]
        let values = keepingRenamedPairs(sent, over: existing?.values, in: table)
        var row = existing?.values.merging(values) { $1 } ?? values
        switch table.conflict {
        case .lww where table.mergesColumns:
            guard let merged = mergeColumns(values, over: existing?.values, table) else { return [] }
            row = merged
        case .lww:
            if let existing, !(WriteStamp(pairOf: row) > WriteStamp(pairOf: existing.values)) { return [] }
        case .version(let kind):
            // A write naming a version but the stored one is stale (a whole row pushed again
            // after its first push's answer was lost): the stored row wins, as in the trigger.
            if let existing, let sent = values[kind.columnName], sent != existing.values[kind.columnName] ?? .null { return [] }
            row[kind.columnName] = nextVersion(kind, after: existing?.values[kind.columnName])
        }
        if let existing { row[ReservedColumn.owner] = existing.values[ReservedColumn.owner] }
        if let rule = table.openRowRule { closeIfLate(&row, key: key, in: table, rule) }
        generate(&row, in: table.name, stamping: table.mergesColumns)
        sequence += 1
        stores[table.name, default: [:]][key] = StoredRow(values: row, seq: sequence)
        guard let rule = table.openRowRule else { return [sequence] }
        return [sequence] + closeEarlierOpenRows(before: row, key: key, in: table, rule)
    }

    /// What an upsert's update of a row that exists is sent: PostgreSQL runs the before-write
    /// trigger on the proposed insert first, and `DO UPDATE SET` takes the columns the request
    /// named from what that made of them: a merged row settled (a delete older than a column's
    /// write undone, the pair its newest stamp), and, outside column merge, the renamed pairs
    /// made equal (under column merge the trigger leaves them to the update, which sees the
    /// stamps as sent). A new row is the insert alone, as sent.
    ///
    /// Not the version: the insert gives it 1 (or now()), so PostgreSQL takes a whole row pushed
    /// again only while the stored version is 1, and never under a timestamp version. This server
    /// takes one that names the stored version, as the runtime expects of an edit made while a
    /// new row's first push was out: a known divergence, pinned by PostgresKnownIssuesTests.
    func proposedInsert(_ sent: [String: SyncValue], into table: TableSchema) -> [String: SyncValue] {
        guard stores[table.name]?[sent[ReservedColumn.id]?.text ?? ""] != nil else { return sent }
        let proposed = table.mergesColumns ? mergeColumns(sent, over: nil, table) ?? sent : keepingRenamedPairs(sent, over: nil, in: table)
        return Dictionary(uniqueKeysWithValues: sent.keys.map { ($0, proposed[$0] ?? .null) })
    }

    /// The column-merge trigger: a request without stamps (the whole-row protocol), or with
    /// exactly the stored ones, claims every column at its pair.
    private func mergeColumns(_ values: [String: SyncValue], over stored: [String: SyncValue]?, _ table: TableSchema) -> [String:
        SyncValue]?
    {
        let merge = RowMerge(table)
        let incoming = merge.row(values: values, stamps: claims(values, over: stored, merge))
        guard let stored else {
            var row = incoming
            merge.settle(&row)
            return merge.values(of: row)
        }
        // A whole-row write at the stored pair is a repeat (of a whole-row client, or of a
        // device whose stamps equal the server's): it changes nothing.
        if Self.isWholeRow(values, over: stored), WriteStamp(pairOf: values) == WriteStamp(pairOf: stored) { return nil }
        return merge.merge(incoming, into: merge.row(values: stored, stamps: merge.stamps(of: stored))).map(merge.values(of:))
    }

    /// What a write claims, column by column, as the trigger sees it: a whole-row write (a new
    /// row with no stamps, or an update whose stamps are the stored ones: PostgREST leaves an
    /// unnamed column as it is) claims every column at its pair.
    private func claims(_ values: [String: SyncValue], over stored: [String: SyncValue]?, _ merge: RowMerge) -> ColumnStamps {
        let sent = values[ReservedColumn.columnStamps]
        if Self.isWholeRow(values, over: stored) { return merge.wholeRowStamps(values) }
        return sent == .null ? ColumnStamps() : merge.stamps(of: values)
    }

    private static func isWholeRow(_ values: [String: SyncValue], over stored: [String: SyncValue]?) -> Bool {
        let sent = values[ReservedColumn.columnStamps]
        return sent == nil || sent == (stored.map { $0[ReservedColumn.columnStamps] ?? .null } ?? .null)
    }

    /// The before-write trigger's half of the one-open-row rule: an open row that arrives after
    /// a later-started open row of its owner (ties: the larger id) is closed at that row's
    /// start, its updated_ms one past the sender's so the close syncs back.
    private func closeIfLate(_ row: inout [String: SyncValue], key: String, in table: TableSchema, _ rule: OpenRowRule) {
        guard Self.isOpen(row, rule) else { return }
        let mine = OpenOrder(start: row[rule.start] ?? .null, key: key)
        let later = openRows(of: row[ReservedColumn.owner], in: table, rule, except: key)
            .map { OpenOrder(start: $0.value.values[rule.start] ?? .null, key: $0.key) }
            .filter { $0 > mine }
            .min()
        guard let later else { return }
        row[rule.end] = later.start
        closeByServer(&row, rule, table, after: nil)
    }

    /// The after-write trigger's half: a new open row closes its owner's earlier-started open
    /// rows at its start, each with a pair that beats its stored one and a new sequence number.
    private func closeEarlierOpenRows(before row: [String: SyncValue], key: String, in table: TableSchema, _ rule: OpenRowRule) -> [Int64] {
        guard Self.isOpen(row, rule) else { return [] }
        let mine = OpenOrder(start: row[rule.start] ?? .null, key: key)
        var taken: [Int64] = []
        for (closedKey, var closed) in openRows(of: row[ReservedColumn.owner], in: table, rule, except: key)
        where OpenOrder(start: closed.values[rule.start] ?? .null, key: closedKey) < mine {
            closed.values[rule.end] = row[rule.start] ?? .null
            if let kind = table.conflict.versionKind {
                closed.values[kind.columnName] = nextVersion(kind, after: closed.values[kind.columnName])
            } else {
                closeByServer(&closed.values, rule, table, after: WriteStamp(pairOf: row).ms)
            }
            sequence += 1
            closed.seq = sequence
            taken.append(sequence)
            stores[table.name]![closedKey] = closed
        }
        return taken
    }

    private func openRows(of owner: SyncValue?, in table: TableSchema, _ rule: OpenRowRule, except key: String) -> [(
        key: String, value: StoredRow
    )] {
        stores[table.name, default: [:]]
            .filter { $0.key != key && $0.value.values[ReservedColumn.owner] == owner && Self.isOpen($0.value.values, rule) }
            .map { ($0.key, $0.value) }
    }

    /// Stamps the server's own close of `rule.end`: device id '' (no device has it), one past
    /// what it closes (the end column's stamp, or the row's pair) or `after`, whichever is later.
    private func closeByServer(_ row: inout [String: SyncValue], _ rule: OpenRowRule, _ table: TableSchema, after: Int64?) {
        switch table.conflict {
        case .lww where table.mergesColumns:
            let merge = RowMerge(table)
            var merged = merge.row(values: row, stamps: merge.stamps(of: row))
            let ms = max((merge.stamp(rule.end, in: merged)?.ms ?? 0) + 1, after ?? 0)
            merge.setStamp(WriteStamp(ms: ms, deviceID: WriteStamp.serverDeviceID), rule.end, in: &merged)
            merge.settle(&merged)
            row = merge.values(of: merged)
        case .lww:
            row[ReservedColumn.updatedMs] = .int(max(WriteStamp(pairOf: row).ms + 1, after ?? 0))
            row[ReservedColumn.deviceId] = .text(WriteStamp.serverDeviceID)
        case .version:
            break // the version moves on every write anyway
        }
    }

    private func nextVersion(_ kind: VersionKind, after current: SyncValue?) -> SyncValue {
        switch kind {
        case .integer:
            if case .int(let version) = current ?? .null { return .int(version + 1) }
            return .int(1)
        case .timestamp:
            if !nextVersionStamps.isEmpty { return .text(nextVersionStamps.removeFirst()) }
            versionClock += 1
            return .text(Self.timestampText(microseconds: 1_790_000_000_000_000 + versionClock * 1_001))
        }
    }

    /// PostgREST's timestamptz text: microseconds with trailing zeros trimmed, offset with minutes.
    static func timestampText(microseconds: Int64) -> String {
        (SyncTimestamp(microsecondsSinceEpoch: microseconds) ?? .latest).text
    }

    static func isOpen(_ values: [String: SyncValue], _ rule: OpenRowRule) -> Bool {
        OpenRowRule.isOpen(end: values[rule.end] ?? .null, deleted: values[ReservedColumn.deletedMs])
    }
}

/// Open rows ordered by start, then id (both databases compare uuids as lowercase text).
struct OpenOrder: Comparable {
    let start: SyncValue
    let key: String

    static func < (lhs: OpenOrder, rhs: OpenOrder) -> Bool {
        switch (lhs.start, rhs.start) {
        case (.int(let a), .int(let b)) where a != b: return a < b
        case (.double(let a), .double(let b)) where a != b: return a < b
        case (.text(let a), .text(let b)) where a != b: return a < b
        default: return lhs.key < rhs.key
        }
    }
}
