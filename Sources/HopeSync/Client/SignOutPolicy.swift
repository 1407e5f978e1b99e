/// What a ``SyncClient`` does with a user's local data when that user signs out (or another
/// user signs in on the device).
public enum SignOutPolicy: Sendable, Hashable {
    /// The user's database and files stay on the device; their next sign-in reopens them, with
    /// the writes that had not gone yet still queued.
    case keepData
    /// The user's database file and files folder are deleted once their engine has stopped.
    case clearData
}
