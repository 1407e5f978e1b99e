import Foundation

/// Replays the queued guarded writes in order: each is sent with `version = base` as one more
/// filter and asks for its row back; an empty answer is followed by one read by key, which
/// decides (``ReplayOutcome``). A write is sent at most three times in one pass.
struct GuardedReplay {
    let store: SyncStore
    let transport: any SyncTransport
    let credentials: Credentials
    let resolver: ResolverRunner

    static let maxSendsPerPass = 3

    func replay(into report: inout SyncReport) async throws(SyncError) {
        // A write whose row an earlier write of this pass touched is read again just before it is
        // sent: that one's answer may have moved its base.
        var touched: Set<String> = []
        for queued in try await store.onReader({ store throws(SyncError) in try store.queuedMutations() }) {
            // A write naming a file still to upload waits, and the writes behind it with it.
            if try await store.onReader({ store throws(SyncError) in try store.waitsForFileUpload(queued.body, in: queued.table) }) {
                break
            }
            let row = queued.table.name + "/" + queued.rowID.lowercasedString
            var write: QueuedMutation? = queued
            if !touched.insert(row).inserted {
                write = try await store.onReader { store throws(SyncError) in try store.queuedMutations(id: queued.id) }.first
            }
            if let write { try await replay(write, &report) }
        }
    }

    private func replay(_ queued: QueuedMutation, _ report: inout SyncReport) async throws(SyncError) {
        var write = queued
        var settledConflict = false
        for send in 1...Self.maxSendsPerPass {
            try await store.onWriter { [write] store throws(SyncError) in try store.recordSending(write) }
            let answer: [ColumnValues]
            do {
                answer = try await transport.guardedUpdate(
                    write.table, id: write.rowID, baseVersion: write.baseVersion, set: write.body,
                    extraFilters: write.filters, returning: write.returning, as: credentials
                )
            } catch  where error.isRowsFault {
                try await store.onWriter { [write] store throws(SyncError) in
                    try store.settleRejected(write, serverError: error.serverError, message: error.message)
                }
                report.rejected += 1
                return
            } catch {
                if error.provesNothingCommitted {
                    try? await store.onWriter { [write] store throws(SyncError) in try store.recordUnlanded(write) }
                }
                throw Self.stopped(error, write)
            }
            if let row = answer.first {
                try await store.onWriter { [write] store throws(SyncError) in try store.settleApplied(write, server: row) }
                report.synced += 1
                if settledConflict { report.conflictsResolved += 1 }
                return
            }
            let server: ColumnValues?
            do {
                server = try await transport.fetch(write.table, id: write.rowID, columns: write.readColumns, as: credentials)
            } catch {
                // The empty answer said the send did not land: only the read failed.
                try? await store.onWriter { [write] store throws(SyncError) in try store.recordUnlanded(write) }
                throw Self.stopped(error, write)
            }
            let outcome = ReplayOutcome(write, server: server)
            // Whose write the row holds (a soft-deleted row's: who deleted it), for the resolver
            // and the conflicted list.
            let changedBy = QueuedMutation.lastWriter(of: server)
            let lastSend = send == Self.maxSendsPerPass
            if case .gone(deleted: nil) = outcome, write.table.scope != nil,
                try await store.onWriter({ [write] store throws(SyncError) in
                    try store.scope(ofRow: write.rowID.lowercasedString, in: write.table)
                }) != nil
            {
                // A row of a scope is hidden, not gone (shared rows are only soft-deleted): access
                // to it ended, or it moved where the user cannot read it. Not a conflict for the
                // resolver: the write goes to the rejected list, and the copy is fetched again
                // (and so removed) at the next pass, or goes with its scope at this pass's pull.
                let message =
                    "This change to \(write.table.name) was never accepted, and the row is out of your reach now: access to its scope ended, or it moved where you cannot read it."
                try await store.onWriter { [write] store throws(SyncError) in try store.settleOutOfReach(write, message: message) }
                report.rejected += 1
                return
            }
            switch outcome {
            case .gone where write.operation == .delete, .filterMissed:
                try await store.onWriter { [write] store throws(SyncError) in try store.settleSynced(write, server: server) }
                report.synced += 1
                if write.operation == .delete { report.alreadyOnServer += 1 }
                return
            case .policyDenied:
                let message = "A policy on the server refused this write to \(write.table.name)"
                try await store.onWriter { [write] store throws(SyncError) in
                    try store.settleRejected(write, serverError: nil, message: message)
                }
                report.rejected += 1
                return
            case .alreadyApplied(let row):
                try await store.onWriter { [write] store throws(SyncError) in try store.settleApplied(write, server: row) }
                report.synced += 1
                report.alreadyOnServer += 1
                return
            case .staleBase(let row) where write.mayHaveLanded, .moved(let row, _, _) where write.mayHaveLanded:
                // Sent again or kept by the resolver, it could undo a later change (0050).
                return try await park(write, Self.mayHaveLanded(row, outcome), changedBy, &report)
            case .staleBase(let row) where !lastSend:
                // Typically this device's own earlier write: resent at the new version unasked.
                guard write.rebase(on: row) else { return try await park(write, Self.unversioned(row), changedBy, &report) }
            case .staleBase(let row):
                return try await park(write, Self.stillMoving(row, outcome), changedBy, &report)
            case .moved(let row, _, _) where lastSend:
                return try await park(write, Self.stillMoving(row, outcome), changedBy, &report)
            case .gone where lastSend:
                return try await park(
                    write, ConflictedEntry(server: nil, message: "The row is gone from the server"), changedBy, &report)
            case .gone, .moved:
                guard let resend = try await resolve(write, outcome, changedBy, &report) else { return }
                write = resend
                settledConflict = true
            }
        }
    }

    /// Asks the resolver about a row that moved or is gone, and settles its answer: the write to
    /// send again, or nil when it left the queue (kept server, or parked).
    private func resolve(
        _ write: QueuedMutation, _ outcome: ReplayOutcome, _ changedBy: UUID?, _ report: inout SyncReport
    ) async throws(SyncError)
        -> QueuedMutation?
    {
        let server: ColumnValues? = if case .moved(let row, _, _) = outcome { row } else { nil }
        let conflict = MutationConflict(
            mutationID: write.id, table: write.table.name, operation: write.operation, rowKey: write.rowKey,
            base: write.base, local: write.operation == .update ? write.body : nil, server: server,
            changedOnServer: Self.changedColumns(outcome), conflictingColumns: Self.conflicting(outcome), serverChangedBy: changedBy
        )
        let parked = ConflictedEntry(
            server: server, changedOnServer: conflict.changedOnServer, conflictingColumns: conflict.conflictingColumns,
            message: server == nil ? "The row is gone from the server" : "The row changed on the server since this write was made"
        )
        var resend = write
        switch try await resolver.resolve(conflict) {
        case .hold:
            try await park(write, parked, changedBy, &report)
            return nil
        case .keepServer:
            let deleted: ColumnValues? = if case .gone(let row) = outcome { row } else { nil }
            try await store.onWriter { store throws(SyncError) in try store.settleKeptServer(write, server: server, deleted: deleted) }
            report.conflictsKeptServer += 1
            return nil
        case .keepLocal:
            guard let server else {
                try await park(write, parked, changedBy, &report)
                return nil
            }
            guard resend.rebase(on: server) else {
                try await park(write, Self.unversioned(server), changedBy, &report)
                return nil
            }
        case .apply(let columns):
            guard let server, write.operation == .update, !columns.columns.isEmpty else {
                try await park(write, parked, changedBy, &report)
                return nil
            }
            resend.body = columns
            resend.base = resend.base.merging(server.subset(columns.columns))
            guard resend.rebase(on: server) else {
                try await park(write, Self.unversioned(server), changedBy, &report)
                return nil
            }
        }
        return resend
    }

    private func park(
        _ write: QueuedMutation, _ conflict: ConflictedEntry, _ changedBy: UUID?, _ report: inout SyncReport
    ) async throws(SyncError) {
        var conflict = conflict
        conflict.serverChangedBy = changedBy
        try await store.onWriter { [conflict] store throws(SyncError) in try store.settleParked(write, conflict) }
        if let entry = try await store.onReader({ store throws(SyncError) in try store.conflictedMutations() }).first(where: {
            $0.id == write.id
        }) {
            report.conflicted.append(entry)
        }
    }

    /// Why the pass stops with the write still first in the queue (so it holds the writes
    /// behind it): the status and code only, never the message, which may quote row values.
    private static func stopped(_ error: SyncError, _ write: QueuedMutation) -> SyncError {
        guard error.code == .server, !error.refusesThisBuild, !error.writesARetiredColumn, let server = error.serverError,
            SchemaDrift(server) == nil
        else {
            return error
        }
        let code = server.code.map { ", code \($0)" } ?? ""
        return SyncError(
            .syncFailed,
            "A queued write to \(write.table.name) failed (HTTP \(server.status)\(code)); it and the writes behind it wait",
            serverError: ServerError(status: server.status, code: server.code, message: "")
        )
    }

    private static func unversioned(_ server: ColumnValues) -> ConflictedEntry {
        ConflictedEntry(server: server, message: "The server's row came back without a version to send against")
    }

    private static func stillMoving(_ server: ColumnValues, _ outcome: ReplayOutcome) -> ConflictedEntry {
        ConflictedEntry(
            server: server, changedOnServer: changedColumns(outcome), conflictingColumns: conflicting(outcome),
            message: "The row kept changing on the server: \(maxSendsPerPass) sends in one pass did not land"
        )
    }

    private static func mayHaveLanded(_ server: ColumnValues, _ outcome: ReplayOutcome) -> ConflictedEntry {
        ConflictedEntry(
            server: server, changedOnServer: changedColumns(outcome), conflictingColumns: conflicting(outcome),
            message:
                "An earlier send of this write got no answer, so it may have landed before the row changed on the server: it waits here instead of going over a change that may be later"
        )
    }

    private static func changedColumns(_ outcome: ReplayOutcome) -> [String] {
        if case .moved(_, let changed, _) = outcome { return changed }
        return []
    }

    private static func conflicting(_ outcome: ReplayOutcome) -> [String] {
        if case .moved(_, _, let conflicting) = outcome { return conflicting }
        return []
    }
}
