import Foundation
import HopeSyncModel

/// Sharing a scope (docs/PROTOCOL.md, "Sharing (scopes)"): membership changes go to the server
/// at once, never through the queue, since a change nobody can see yet could not be undone and
/// an app's "Shared with Ana" must be true when it says so. The server's rules decide; its
/// refusals come back as errors an app can show.
extension SyncEngine {
    /// Shares `scope` (a row of a scope table) with `userID` as `role`: adds them, adds them back
    /// after they left or were removed, or changes their role. Owners only.
    ///
    /// A scope row made on this device and not pushed yet is pushed first: only a scope the
    /// server has can have members. Throws `.notAllowed` when the user is not an owner of the
    /// scope or names themselves, or when the change would leave the scope without an owner;
    /// `.invalidRequest` for a row of a table that is not a scope table.
    public func share(_ scope: some SyncRecord, with userID: UUID, as role: MemberRole) async throws(SyncError) {
        try await changeMembership(MembershipChange(scopeID: scope.id, userID: userID, role: role), of: type(of: scope).table)
    }

    /// Removes `userID` from `scope`: they stop reading its rows at their next pull. Owners
    /// only (anyone may ``leave(_:)``); `.notAllowed` when the user is not an owner of the scope
    /// or `userID` is not a member.
    public func removeMember(_ userID: UUID, from scope: some SyncRecord) async throws(SyncError) {
        try await changeMembership(MembershipChange(scopeID: scope.id, userID: userID, role: nil), of: type(of: scope).table)
    }

    /// Ends the user's own membership of `scope`: its rows leave this device at the next pull,
    /// with the user's own rows in it (they stay the scope's). `.notAllowed` for the scope's last
    /// owner, who makes another member an owner first.
    public func leave(_ scope: some SyncRecord) async throws(SyncError) {
        try await changeMembership(MembershipChange(scopeID: scope.id, userID: store.userID, role: nil), of: type(of: scope).table)
    }

    /// How many times a change the server could not take at once (another request waiting for
    /// the scope, `55P03`; a deadlock, `40P01`) is sent, and the first wait between them.
    package static let membershipAttempts = 4
    package static let membershipRetryDelay: Duration = .milliseconds(200)

    /// Sends `change` of a scope of `scopeTable` and returns the membership rows the server wrote
    /// (none for a repeat). On success the rows are applied locally and a running engine syncs
    /// at once, so the members list and the scopes list follow.
    @discardableResult
    package func changeMembership(_ change: MembershipChange, of scopeTable: TableSchema) async throws(SyncError) -> [ColumnValues] {
        let (scope, members) = try store.sharing(of: scopeTable)
        var user = try await signedInUser()
        if try await placeOfScope(change.scopeID, in: scope) != .onServer {
            try await pushScope(change.scopeID, in: scope)
            user = try await signedInUser()
        }
        let rows = try await sendRetrying(change, in: members, of: scope, as: user)
        if change.role == nil, rows.isEmpty {
            // Row-level security lets a removal through only for an owner, or for the member
            // themselves; the membership already ended is a repeat, and a repeat changes nothing.
            let ended = try await store.onReader { store throws(SyncError) in
                try store.membershipEnded(of: change.userID, in: change.scopeID, table: members)
            }
            guard ended else {
                throw SyncError(
                    .notAllowed,
                    change.userID == store.userID
                        ? "You are not a member of this \(scope.name) row: there is nothing to leave"
                        : "Not an owner of this \(scope.name) row, or no such member: only an owner removes members")
            }
        }
        try await store.onWriter { store throws(SyncError) in try store.applyMembershipRows(rows, in: members) }
        if loop != nil { wakeUp() }
        return rows
    }

    private func placeOfScope(_ id: UUID, in scope: TableSchema) async throws(SyncError) -> ScopeRowPlace {
        try await store.onReader { store throws(SyncError) in try store.placeOfScope(id, in: scope) }
    }

    /// Pushes a scope row made on this device (a full pass), since the server refuses members of
    /// a scope it does not have. A pass that fails after the push went through still lets the
    /// change go.
    private func pushScope(_ id: UUID, in scope: TableSchema) async throws(SyncError) {
        var failure: SyncError?
        switch try await placeOfScope(id, in: scope) {
        case .absent:
            throw SyncError(.invalidRequest, "This \(scope.name) row is not in the local store: save it before sharing it")
        case .localOnly:
            do { _ = try await runPass() } catch { failure = error }
        case .onServer:
            return
        }
        guard try await placeOfScope(id, in: scope) != .onServer else { return }
        if let failure {
            throw SyncError(
                failure.code, "This \(scope.name) row is not on the server yet and syncing it failed: \(failure.message)",
                serverError: failure.serverError)
        }
        throw SyncError(
            .invalidRequest,
            "This \(scope.name) row is not on the server yet (its push waits or was refused: see the rejected list): share it once it has synced"
        )
    }

    /// Sends `change`, again after a short wait while the server says another request holds the
    /// scope; its refusals as ``membershipFailure(_:_:scope:)`` says.
    private func sendRetrying(
        _ change: MembershipChange, in members: TableSchema, of scope: TableSchema, as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        var delay = Self.membershipRetryDelay
        var attempt = 1
        while true {
            do {
                return try await transport.changeMembership(change, in: members, as: user)
            } catch {
                guard attempt < Self.membershipAttempts, error.code == .server, ["55P03", "40P01"].contains(error.serverError?.code) else {
                    throw Self.membershipFailure(error, change, scope: scope.name)
                }
            }
            do { try await configuration.sleep(delay) } catch { throw SyncError(.cancelled, "The membership change was cancelled") }
            attempt += 1
            delay *= 2
        }
    }

    /// The server's refusal of a membership change as the app sees it: what the rules forbid is
    /// `.notAllowed`, saying which rule; a malformed change (`22023`) `.invalidRequest`; the rest
    /// as it came. The server's own error stays beside.
    package static func membershipFailure(_ error: SyncError, _ change: MembershipChange, scope: String) -> SyncError {
        guard error.code == .server, let code = error.serverError?.code else { return error }
        let message: String
        switch code {
        case "42501" where change.role == nil:
            message = "Only an owner removes members: you are not an owner of this \(scope) row"
        case "42501":
            message = "Only an owner adds members or changes their roles: you are not an owner of this \(scope) row"
        case "HS001":
            message = "Nobody adds themselves or changes their own role: to stop being a member of this \(scope) row, leave it"
        case "HS002":
            message = "The last owner cannot leave or stop being an owner: make another member of this \(scope) row an owner first"
        case "22023":
            return SyncError(
                .invalidRequest, "The server refused the membership change on \(scope) as malformed", serverError: error.serverError)
        default:
            return error
        }
        return SyncError(.notAllowed, message, serverError: error.serverError)
    }
}
