import Foundation
import HopeSync
import HopeSyncModel

/// Test controls: the failures a real server and network can have, on demand.
extension InMemoryServer {
    /// Offline: every request fails as a network failure until back online.
    public func setOnline(_ online: Bool) {
        isOnline = online
    }

    /// The next `count` requests fail with `error` before reaching the data.
    public func failNextRequests(_ count: Int, with error: SyncError) {
        pendingFailures += Array(repeating: error, count: count)
    }

    /// The next `count` requests run, but their answers are lost (a network failure).
    public func loseNextAnswers(_ count: Int) {
        answersToLose += count
    }

    /// The next upsert takes its sequence numbers now but stays uncommitted (invisible) until
    /// ``commitHeldWrites()``: two transactions committing out of sequence order.
    public func holdNextWrite() {
        holdsNextWrite = true
    }

    public func commitHeldWrites() {
        heldSequences.removeAll()
        marks.merge(heldMarks) { $1 }
        heldMarks.removeAll()
    }

    /// The forgotten migration: requests naming `column` fail as PostgREST fails them.
    public func dropColumn(_ column: String, from table: String) {
        droppedColumns[table, default: []].insert(column)
    }

    public func restoreColumn(_ column: String, to table: String) {
        droppedColumns[table]?.remove(column)
    }

    /// A constraint or policy the rows must meet: a request with a matching row fails whole.
    public func refuseRows(in table: String, with error: ServerError, where matches: @escaping @Sendable (ColumnValues) -> Bool) {
        refusals.append(Refusal(table: table, matches: matches, error: error))
    }

    /// Stores a row the client cannot decode (a value from a newer schema), with a sequence number.
    public func insertUndecodableRow(in table: String, owner: UUID, id: UUID = UUID()) {
        sequence += 1
        undecodable[table, default: []].append(UndecodableEntry(owner: owner.lowercasedString, seq: sequence, key: id.lowercasedString))
        moveMark(of: owner.lowercasedString, held: false)
    }

    /// Stores `row` (every column but server_seq) as it is, past the rules, with a sequence
    /// number: a row written before the server had its rules, or by hand with them switched off.
    public func storeUnchecked(_ row: ColumnValues, in table: String) {
        sequence += 1
        let values = Dictionary(uniqueKeysWithValues: zip(row.columns, row.values).filter { $0.0 != ReservedColumn.serverSeq })
        stores[table, default: [:]][values[ReservedColumn.id]?.text ?? ""] = StoredRow(values: values, seq: sequence)
        if case .text(let owner)? = values[ReservedColumn.owner] { moveMark(of: owner, held: false) }
    }

    /// The committed rows of `table`, by id, each with every column (server_seq included).
    public func rows(of table: String) -> [String: ColumnValues] {
        guard let schema = tables[table] else { return [:] }
        // The retired columns too: generated, but columns of the server's table (0052).
        let columns = schema.columnNames + lifecycle.retired.filter { $0.table == table }.map(\.name)
        var result: [String: ColumnValues] = [:]
        for (key, row) in stores[table, default: [:]] where !heldSequences.contains(row.seq) {
            result[key] = ColumnValues(columns: columns, values: columns.map { row.value($0) })
        }
        return result
    }

    /// The last sequence number taken.
    public var lastSequence: Int64 { sequence }
}

extension InMemoryServer {
    /// Ends every injected fault: online, no pending failures or lost answers, held writes committed.
    public func clearFaults() {
        isOnline = true
        pendingFailures.removeAll()
        answersToLose = 0
        holdsNextWrite = false
        heldSequences.removeAll()
        marks.merge(heldMarks) { $1 }
        heldMarks.removeAll()
    }
}
