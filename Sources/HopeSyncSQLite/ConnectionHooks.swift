import CHopeSyncSQLite
import Foundation
import HopeSyncLocking

/// What SQLite's callbacks tell about one connection: which tables a statement reads (the
/// authorizer, while it is prepared), and on a connection that tracks changes, which tables
/// each committed transaction changed (the update, commit and rollback hooks). Touched only by
/// whoever holds the connection.
final class ConnectionHooks {
    /// The tables each cached statement reads, by SQL: a cached statement is prepared once,
    /// so its region is kept for every later use.
    private var regions: [String: DatabaseRegion] = [:]
    /// Non-nil while a statement is prepared: what its SQLITE_READ actions name.
    private var preparing: DatabaseRegion?
    /// Non-nil while ``Database/recordingReads(_:)`` runs: the regions of the statements used.
    var recording: DatabaseRegion?
    private var lastActionWasDrop = false

    private(set) var changes: CommittedChanges?
    private var transactionTables: Set<String> = []
    private var committedTables: Set<String> = []
    /// The table the update hook saw last (already in `transactionTables`), compared byte for
    /// byte: a page of a thousand rows makes one String, not a thousand.
    private var lastTable: UnsafeMutablePointer<CChar>?

    deinit { free(lastTable) }

    func install(on handle: OpaquePointer) {
        sqlite3_set_authorizer(
            handle,
            { context, action, first, _, _, _ in
                Unmanaged<ConnectionHooks>.fromOpaque(context!).takeUnretainedValue().authorize(action, first)
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called before the connection closes: a statement that outlives the connection object
    /// must not reach this one.
    func uninstall(from handle: OpaquePointer) {
        sqlite3_set_authorizer(handle, nil, nil)
        guard changes != nil else { return }
        sqlite3_update_hook(handle, nil, nil)
        sqlite3_commit_hook(handle, nil, nil)
        sqlite3_rollback_hook(handle, nil, nil)
    }

    // MARK: Reads

    /// Prepares a statement through `prepare`, recording the tables it reads under `sql`
    /// (nil: a statement for one use, recorded only for the read in progress).
    func prepare<T, Failure: Error>(_ sql: String?, _ prepare: () throws(Failure) -> T) throws(Failure) -> T {
        preparing = DatabaseRegion()
        defer { preparing = nil }
        let statement = try prepare()
        let region = preparing ?? .fullDatabase
        if let sql { regions[sql] = region }
        recording?.formUnion(region)
        return statement
    }

    /// A cached statement is used again.
    func reuse(_ sql: String) {
        if recording != nil { recording?.formUnion(regions[sql] ?? .fullDatabase) }
    }

    /// SQL run without a statement prepared here (sqlite3_exec): what it reads is unknown.
    func runUnprepared() {
        if recording != nil { recording = .fullDatabase }
    }

    private func authorize(_ action: Int32, _ first: UnsafePointer<CChar>?) -> Int32 {
        let afterDrop = lastActionWasDrop
        lastActionWasDrop = Self.drops.contains(action)
        switch action {
        case SQLITE_READ:
            if preparing != nil, let first { preparing?.insert(table: String(cString: first)) }
            return SQLITE_OK
        case SQLITE_DELETE where changes != nil:
            // `DELETE FROM t` with no WHERE empties t at once, and the update hook never hears of
            // it (the truncate optimization); SQLITE_IGNORE keeps the delete, row by row. A DROP
            // asks for SQLITE_DELETE right after its own action and would be skipped by
            // SQLITE_IGNORE, so it passes, as do SQLite's own tables (sqlite_master, …).
            guard !afterDrop, let first, strncmp(first, "sqlite_", 7) != 0 else { return SQLITE_OK }
            return SQLITE_IGNORE
        default:
            return SQLITE_OK
        }
    }

    private static let drops: Set<Int32> = [
        SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE,
    ]

    // MARK: Changes

    /// Starts recording the tables that committed transactions change. The update hook does not
    /// report WITHOUT ROWID tables; the store has none.
    func trackChanges(on handle: OpaquePointer) -> CommittedChanges {
        if let changes { return changes }
        let changes = CommittedChanges()
        self.changes = changes
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(
            handle,
            { context, _, _, table, _ in
                guard let table else { return }
                Unmanaged<ConnectionHooks>.fromOpaque(context!).takeUnretainedValue().changed(table)
            }, context)
        sqlite3_commit_hook(
            handle,
            { context in
                Unmanaged<ConnectionHooks>.fromOpaque(context!).takeUnretainedValue().committed()
                return 0
            }, context)
        sqlite3_rollback_hook(
            handle, { context in Unmanaged<ConnectionHooks>.fromOpaque(context!).takeUnretainedValue().rolledBack() }, context)
        return changes
    }

    /// Hands the tables of the transactions committed so far to ``CommittedChanges``. Called
    /// when an access to the connection ends, after every commit in it has completed: the commit
    /// hook runs before the commit does, and an observer told too early could read a snapshot
    /// without the change and never be told again.
    func publish() {
        guard let changes, !committedTables.isEmpty else { return }
        changes.add(committedTables)
        committedTables = []
    }

    private func changed(_ table: UnsafePointer<CChar>) {
        if let lastTable, strcmp(lastTable, table) == 0 { return }
        free(lastTable)
        lastTable = strdup(table)
        transactionTables.insert(String(cString: table).lowercased())
    }

    private func committed() {
        committedTables.formUnion(transactionTables)
        rolledBack()
    }

    /// Also after a commit: `lastTable` must name a table of the open transaction.
    private func rolledBack() {
        transactionTables = []
        free(lastTable)
        lastTable = nil
    }
}

/// The tables changed by transactions committed on a connection, until someone takes them.
public final class CommittedChanges: Sendable {
    private let tables = Locked<Set<String>>([])

    func add(_ changed: Set<String>) {
        tables.withLock { $0.formUnion(changed) }
    }

    /// The tables changed since the last call (each commit's tables are taken once).
    public func take() -> DatabaseRegion {
        DatabaseRegion(
            tables: tables.withLock { tables in
                defer { tables = [] }
                return tables
            })
    }
}
