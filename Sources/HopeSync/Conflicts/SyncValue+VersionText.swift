extension SyncValue {
    /// A version as the exact text the server sent (integers as their digits).
    package var versionText: String? {
        switch self {
        case .text(let text): text
        case .int(let int): String(int)
        default: nil
        }
    }
}
