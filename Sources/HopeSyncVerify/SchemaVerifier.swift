import HopeSyncGeneratorCore
import HopeSyncPostgresClient
import HopeSyncSchema

/// Compares a live database with the schema: every table, column (and its type), trigger,
/// policy, index, grant, the sequence, row-level security, and the file columns' Storage buckets
/// with their policies. What it expects of triggers,
/// policies, grants, security and the sequence is read from the SQL the templates render, so
/// overridden templates verify as they are. Each finding carries the migration that makes the
/// missing object and the exact SQL of it, rendered by the same templates as the migration
/// files. Extra server columns are notes: old columns are kept on purpose, since clients in the
/// field may still send them.
package struct SchemaVerifier: Sendable {
    package let renderer: SupabaseRenderer
    /// How many days back the report counts the devices in the field.
    package var deviceDays: Int

    package init(renderer: SupabaseRenderer, deviceDays: Int = 30) {
        self.renderer = renderer
        self.deviceDays = deviceDays
    }

    /// Connects with a libpq URL and verifies; `migrations` name the file that makes each
    /// object. Throws ``PostgresError`` when it cannot connect or read the catalog (the message
    /// never holds the password).
    package func verify(_ schema: Schema, migrations: [Migration], databaseURL: String) throws -> VerificationReport {
        try verify(schema, history: MigrationHistory(migrations: migrations), connection: try Connection(url: databaseURL))
    }

    /// The same, naming migrations from Generated/schema.snapshot.json.
    package func verify(_ schema: Schema, snapshot: Snapshot?, databaseURL: String) throws -> VerificationReport {
        try verify(schema, history: MigrationHistory(snapshot: snapshot), connection: try Connection(url: databaseURL))
    }

    /// The same on an open connection, which must not be inside a transaction: the policies are
    /// compared in one of verify's own, rolled back (see ``PolicyDeparser``).
    package func verify(_ schema: Schema, migrations: [Migration], connection: Connection) throws -> VerificationReport {
        try verify(schema, history: MigrationHistory(migrations: migrations), connection: connection)
    }

    func verify(_ schema: Schema, history: MigrationHistory, connection: Connection) throws -> VerificationReport {
        let catalog = try LiveCatalog(reading: connection)
        let policies = try schema.tables.flatMap { RenderedObjects(parsing: try renderer.accessSQL($0)).policies }
        let check = CatalogCheck(
            renderer: renderer, catalog: catalog, history: history, schema: schema,
            renderedPolicies: try PolicyDeparser.deparse(policies, tables: Set(catalog.tables.keys), on: connection))
        var findings = try check.shared(schema)
        for table in schema.tables {
            findings += try check.table(table)
        }
        findings += try StorageCheck(renderer: renderer, history: history).findings(schema, on: connection)
        let census = try DeviceCensus(reading: connection, days: deviceDays, oldestWriter: schema.oldestWriter)
        return VerificationReport(findings: findings, tables: schema.tables.map(\.name), census: census)
    }

    /// The type as `format_type` prints it.
    static func catalogType(_ type: ColumnType) -> String {
        switch type {
        case .timestamp: "timestamp with time zone"
        default: type.postgresType
        }
    }
}
