import Locking

/// The app's own `Postgres` module (hope-sync's libpq wrapper is HopeSyncPostgresClient).
public enum OwnPostgres {
    public static let name = "Postgres"
    public static let uses = OwnLocking.name
}
