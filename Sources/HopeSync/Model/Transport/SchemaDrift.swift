/// What the server lacks that the client has, read from PostgREST's and PostgreSQL's refusals
/// (PGRST204, 42703, PGRST205, 42P01): the server needs the generated migration. Reported as
/// a status, never retried every few seconds.
public struct SchemaDrift: Sendable, Hashable, CustomStringConvertible {
    public let table: String?
    public let column: String?

    package init(table: String?, column: String?) {
        self.table = table
        self.column = column
    }

    package init?(_ error: ServerError) {
        switch error.code {
        case "PGRST204":
            // "Could not find the 'x' column of 't' in the schema cache"
            let quoted = Self.quoted(error.message, by: "'")
            column = quoted.first
            table = quoted.dropFirst().first
        case "42703":
            // "column t.x does not exist" (a select), or "column \"x\" of relation \"t\" does not exist"
            let quoted = Self.quoted(error.message, by: "\"")
            if quoted.count >= 2 {
                (column, table) = (quoted[0], quoted[1])
            } else if let name = error.message.split(separator: " ").dropFirst().first, name.contains(".") {
                let parts = name.split(separator: ".", maxSplits: 1)
                (table, column) = (String(parts[0]), String(parts[1]))
            } else {
                (table, column) = (nil, quoted.first)
            }
        case "PGRST205", "42P01":
            // "Could not find the table 'public.t' in the schema cache", "relation \"public.t\" does not exist"
            table = (Self.quoted(error.message, by: "'") + Self.quoted(error.message, by: "\"")).first
            column = nil
        default:
            return nil
        }
    }

    public var description: String {
        switch (table, column) {
        case (let table?, let column?): "The server's table \(table) has no column \(column): apply the migration that adds it"
        case (nil, let column?): "The server has no column \(column): apply the migration that adds it"
        case (let table?, nil): "The server has no table \(table): apply the migration that creates it"
        case (nil, nil): "The server's schema is behind the client's: apply the pending migrations"
        }
    }

    /// One error naming everything the server lacks, table by table, with the first refusal
    /// as the server's error.
    static func error(_ refusals: [ServerError]) -> SyncError {
        var drifts: [SchemaDrift] = []
        for drift in refusals.compactMap(SchemaDrift.init) where !drifts.contains(drift) { drifts.append(drift) }
        let message =
            drifts.count == 1
            ? drifts[0].description
            : "The server's schema is behind this app's: "
                + drifts.map { [$0.table, $0.column].compactMap { $0 }.joined(separator: ".") }.joined(separator: ", ")
                + " missing; apply the migrations that add them (`generate verify` names them)"
        return SyncError(.schemaDrift, message, serverError: refusals[0])
    }

    /// The texts between pairs of `quote` in `message`, in order.
    private static func quoted(_ message: String, by quote: Character) -> [String] {
        let parts = message.split(separator: quote, omittingEmptySubsequences: false)
        return stride(from: 1, to: parts.count - 1, by: 2).map { String(parts[$0]) }
    }
}
