import Foundation
import HopeSyncSQLite

/// The runtime's own tables, migrated with the app's in every store file. The store keeps them
/// all; the layers above own what goes in them (the queue and the lists are the conflicts
/// layer's). Append only: a shipped migration is never edited.
enum RuntimeMigrations {
    static let all = [bookkeeping, guardedWrites, rowRefresh, files, scopes, changedBy, unansweredSends]

    /// Metadata (device id, owner, clock) and the first rejected list.
    static let bookkeeping = LocalMigration(
        version: 1, name: "bookkeeping",
        sql: """
            CREATE TABLE _sync_meta (
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            );
            CREATE TABLE _sync_rejected (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                table_name TEXT NOT NULL,
                row_id TEXT NOT NULL,
                status INTEGER NOT NULL,
                code TEXT,
                message TEXT NOT NULL,
                details TEXT,
                hint TEXT,
                rejected_ms INTEGER NOT NULL
            );
            """)

    /// The runtime's bookkeeping for version tables: the write queue, the conflicted list, and the
    /// rejected list rebuilt to hold guarded writes too (SQLite cannot relax NOT NULL in place).
    /// Every entry names its user: the lists' bounds count every user's entries together.
    static let guardedWrites = LocalMigration(
        version: 2, name: "guarded_writes",
        sql: """
            CREATE TABLE _sync_mutations (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL,
                table_name TEXT NOT NULL,
                operation TEXT NOT NULL,
                row_id TEXT NOT NULL,
                body TEXT NOT NULL,
                base_version TEXT NOT NULL,
                base TEXT NOT NULL,
                filters TEXT NOT NULL,
                created_ms INTEGER NOT NULL
            );
            CREATE INDEX _sync_mutations_row ON _sync_mutations (table_name, row_id);

            CREATE TABLE _sync_conflicted (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL,
                table_name TEXT NOT NULL,
                operation TEXT NOT NULL,
                row_id TEXT NOT NULL,
                body TEXT,
                base TEXT NOT NULL,
                filters TEXT NOT NULL,
                server TEXT,
                server_version TEXT,
                changed_on_server TEXT NOT NULL,
                conflicting_columns TEXT NOT NULL,
                message TEXT NOT NULL,
                created_ms INTEGER NOT NULL,
                conflicted_ms INTEGER NOT NULL
            );

            CREATE TABLE _sync_rejected_v2 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL DEFAULT '',
                table_name TEXT NOT NULL,
                operation TEXT NOT NULL DEFAULT 'UPSERT',
                row_id TEXT NOT NULL,
                body TEXT,
                base_version TEXT,
                base TEXT,
                filters TEXT,
                retryable INTEGER NOT NULL DEFAULT 1,
                status INTEGER,
                code TEXT,
                message TEXT NOT NULL,
                details TEXT,
                hint TEXT,
                created_ms INTEGER,
                rejected_ms INTEGER NOT NULL
            );
            INSERT INTO _sync_rejected_v2 (id, table_name, row_id, status, code, message, details, hint, created_ms, rejected_ms)
                SELECT id, table_name, row_id, status, code, message, details, hint, rejected_ms, rejected_ms FROM _sync_rejected;
            DROP TABLE _sync_rejected;
            ALTER TABLE _sync_rejected_v2 RENAME TO _sync_rejected;
            """)

    /// Rows to fetch again by key: after the user settles a write the server never took, the
    /// device may hold values no pull will bring back (see SyncStore+Refresh.swift).
    static let rowRefresh = LocalMigration(
        version: 3, name: "row_refresh",
        sql: """
            CREATE TABLE _sync_refresh (
                table_name TEXT NOT NULL,
                row_id TEXT NOT NULL,
                PRIMARY KEY (table_name, row_id)
            );
            """)

    /// The files of file columns (SyncStore+Files.swift): one entry per object this device
    /// attached or a row names, with where it stands, keyed by bucket and content-addressed name.
    /// No path is kept: a file's place in the store's folder follows from its name, so moving
    /// the folder (an app container that moves on update) breaks nothing.
    static let files = LocalMigration(
        version: 4, name: "files",
        sql: """
            CREATE TABLE _sync_files (
                bucket TEXT NOT NULL,
                name TEXT NOT NULL,
                state TEXT NOT NULL,
                cached INTEGER NOT NULL DEFAULT 0,
                size INTEGER,
                attempts INTEGER NOT NULL DEFAULT 0,
                retry_ms INTEGER NOT NULL DEFAULT 0,
                error_code TEXT,
                error_status INTEGER,
                error_message TEXT,
                created_ms INTEGER NOT NULL,
                PRIMARY KEY (bucket, name)
            );
            CREATE INDEX _sync_files_due ON _sync_files (state, retry_ms);
            """)

    /// The shared scopes the user belongs to, as the last pull listed them (docs/PROTOCOL.md,
    /// "Sharing (scopes)"), and a cursor per (scope, table): within a stream, server_seq order
    /// is commit order, never across streams. `arriving` stays 1 from the pull that first
    /// listed the scope until one read every table of it to the end. The own stream's cursors
    /// stay in `_sync_cursors`.
    static let scopes = LocalMigration(
        version: 5, name: "scopes",
        sql: """
            CREATE TABLE _sync_scopes (
                scope_id TEXT PRIMARY KEY NOT NULL,
                scope_table TEXT NOT NULL,
                role TEXT NOT NULL,
                arriving INTEGER NOT NULL DEFAULT 1
            );
            CREATE TABLE _sync_stream_cursors (
                scope_id TEXT NOT NULL,
                table_name TEXT NOT NULL,
                server_seq INTEGER NOT NULL,
                PRIMARY KEY (scope_id, table_name)
            );
            """)

    /// Which user's change a conflicted or rejected write met (a shared row's `updated_by`,
    /// docs/CONFLICTS.md): null in the entries recorded before.
    static let changedBy = LocalMigration(
        version: 6, name: "changed_by",
        sql: """
            ALTER TABLE _sync_conflicted ADD COLUMN server_changed_by TEXT;
            ALTER TABLE _sync_rejected ADD COLUMN changed_by TEXT;
            """)

    /// A queued guarded write that was sent and got no answer may have landed: set before every
    /// send (so a send the app did not outlive counts too), cleared only by the write leaving the
    /// queue (decision 0050). Writes queued by earlier builds start at 0.
    static let unansweredSends = LocalMigration(
        version: 7, name: "unanswered_sends",
        sql: """
            ALTER TABLE _sync_mutations ADD COLUMN may_have_landed INTEGER NOT NULL DEFAULT 0;
            """)

    /// Empties this user's queue, lists and files (sign-out).
    static func clearBookkeeping(of userID: UUID, _ database: Database) throws {
        for table in ["_sync_mutations", "_sync_conflicted", "_sync_rejected"] {
            try database.execute("DELETE FROM \(table) WHERE user_id = ? OR user_id = ''", [.text(userID.lowercasedString)])
        }
        try database.execute("DELETE FROM _sync_files")
        try database.execute("DELETE FROM _sync_scopes")
        try database.execute("DELETE FROM _sync_stream_cursors")
    }
}
