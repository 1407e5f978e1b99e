/// What a queued write of a version table does to its row.
///
/// More operations may come (a guarded insert, say): a `switch` over an operation needs a
/// `default`. `case .update:` matches as for an enum.
public struct MutationOperation: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The operation as the runtime stores it (`UPDATE`, `DELETE`, `UPSERT`).
    public let rawValue: String

    /// An operation this build knows; nil for any other text (one a newer build stored).
    public init?(rawValue: String) {
        guard Self.known.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(known rawValue: String) {
        self.rawValue = rawValue
    }

    /// An update of some columns.
    public static let update = MutationOperation(known: "UPDATE")
    /// A soft delete: a guarded update that sets `deleted_ms`, so other devices pull it.
    public static let delete = MutationOperation(known: "DELETE")
    /// A whole-row upsert (last writer wins): only ever on the rejected list.
    public static let upsert = MutationOperation(known: "UPSERT")

    private static let known: Set<String> = ["UPDATE", "DELETE", "UPSERT"]

    public var description: String { rawValue }
}
