import SyncSchema

// Placeholder until the server-SQL work lands (issue 3).
public struct SupabaseRenderer: Sendable {
    let templates: TemplateSet

    public init(templates: TemplateSet) {
        self.templates = templates
    }

    public func migrationSQL(_ migration: Migration) throws -> String {
        "-- migration \(migration.fileStem)\n"
    }

    public func schemaSQL(_ schema: Schema) throws -> String {
        "-- schema\n"
    }
}
