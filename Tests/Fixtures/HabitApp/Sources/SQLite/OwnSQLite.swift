import Locking

/// The app's own `SQLite` module, as SQLite.swift names its (hope-sync's is HopeSyncSQLite).
public enum OwnSQLite {
    public static let name = "SQLite"
    public static let uses = OwnLocking.name
}
