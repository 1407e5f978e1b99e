import HopeSyncSchema

/// A numbered migration: the changes that take the schema of the previous migration to
/// `schema`. Rendered once for SQLite and once for Supabase.
public struct Migration: Equatable, Sendable {
    /// 1, 2, 3 ... never reused; the files are `NNNN_name.sql`.
    public var number: Int
    /// Named after the change, e.g. `sessions_add_note`; `initial` for the first.
    public var name: String
    package var changes: [SchemaChange]
    /// The whole schema after this migration.
    package var schema: Schema
    /// It re-creates what every table shares (the sequence's functions, the marks, the pull
    /// function), because that renders differently now.
    package var replacesSharedCode: Bool

    package init(number: Int, name: String, changes: [SchemaChange], schema: Schema, replacesSharedCode: Bool = false) {
        self.number = number
        self.name = name
        self.changes = changes
        self.schema = schema
        self.replacesSharedCode = replacesSharedCode
    }

    /// How the snapshot records ``replacesSharedCode`` among the changes (a record no table
    /// change reads back).
    package static let sharedCodeRecord = "shared server code"

    /// The changes in the order both databases apply them: a table starting to be shared last,
    /// since it needs the columns the same migration adds (`sharing tasks` is found before
    /// `column tasks.list_id`, and the snapshot keeps that order).
    var appliedChanges: [SchemaChange] {
        changes.filter { !$0.sharesTable } + changes.filter(\.sharesTable)
    }

    /// The changes as the snapshot records them.
    var recordedChanges: [String] {
        changes.map(\.recorded) + backfills.map(\.record) + (replacesSharedCode ? [Self.sharedCodeRecord] : [])
    }

    /// `0002_sessions_add_note`.
    public var fileStem: String { Self.fileStem(number: number, name: name) }

    static func fileStem(number: Int, name: String) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name
    }
}

extension SchemaChange {
    fileprivate var sharesTable: Bool {
        if case .shareTable = self { true } else { false }
    }
}
