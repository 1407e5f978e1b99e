/// What a queued write of a version table does to its row.
public enum MutationOperation: String, Sendable, Equatable, Codable {
    case update = "UPDATE"
    /// A soft delete: a guarded update that sets `deleted_ms`, so other devices pull it.
    case delete = "DELETE"
    /// A whole-row upsert (last writer wins): only ever on the rejected list.
    case upsert = "UPSERT"
}
