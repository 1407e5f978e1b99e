/// The app's own `Locking` module (hope-sync's is HopeSyncLocking).
public enum OwnLocking {
    public static let name = "Locking"
}
