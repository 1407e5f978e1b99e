import HopeSyncGeneratorCore
import HopeSyncPostgresClient
import HopeSyncSchema

/// The Storage side of the file columns: each bucket there and private, with the owner-only
/// policies on `storage.objects` that bucket.sql renders (compared as PostgreSQL deparses them,
/// as the tables' policies are).
struct StorageCheck {
    let renderer: SupabaseRenderer
    let history: MigrationHistory

    func findings(_ schema: Schema, on connection: Connection) throws -> [Finding] {
        guard !schema.buckets.isEmpty else { return [] }
        let hasStorage = try connection.execute("select pg_catalog.to_regclass('storage.objects') is not null").scalar == "t"
        var findings: [Finding] = []
        guard hasStorage else {
            for bucket in schema.buckets {
                findings.append(
                    try finding(
                        bucket, in: schema, .bucket, "storage bucket \(bucket) (the database has no storage.objects: is Storage enabled?)"))
            }
            return findings
        }
        let buckets = Dictionary(
            try connection.execute("select id, coalesce(public, false)::text from storage.buckets").rows.map { ($0[0]!, $0[1] == "true") },
            uniquingKeysWith: { first, _ in first })
        let live = try LiveCatalog.policies(inSchema: "storage", on: connection)["objects"] ?? [:]
        for bucket in schema.buckets {
            guard let isPublic = buckets[bucket] else {
                findings.append(try finding(bucket, in: schema, .bucket, "storage bucket \(bucket)"))
                continue
            }
            if isPublic {
                findings.append(
                    try finding(bucket, in: schema, .bucket, "storage bucket \(bucket) is public: anyone with a file's name can read it"))
            }
            // The policies on storage.objects, named as the deparser's copy of that table is.
            let rendered = RenderedObjects(parsing: try renderer.bucketSQL(bucket, in: schema)).policies.filter {
                $0.table == "storage.objects"
            }
            .map { RenderedObjects.Policy(name: $0.name, table: "objects", clauses: $0.clauses) }
            let wanted = try PolicyDeparser.deparse(rendered, tables: ["objects"], schema: "storage", on: connection)["objects"] ?? [:]
            for policy in rendered {
                let name = Self.unquoted(policy.name)
                guard let found = live[name] else {
                    findings.append(try finding(bucket, in: schema, .policy, "policy \(name) on storage.objects"))
                    continue
                }
                if let expected = wanted[name], found != expected {
                    findings.append(
                        try finding(
                            bucket, in: schema, .policy,
                            "policy \(name) on storage.objects is not the owner-only policy (it has \(found.describedDifference(from: expected)))"
                        ))
                }
            }
        }
        return findings
    }

    /// A finding about a bucket, fixed by its SQL; the migration that made it is the one that
    /// added its first file column.
    private func finding(_ bucket: String, in schema: Schema, _ kind: Finding.Kind, _ message: String) throws -> Finding {
        let column = schema.tables.lazy.flatMap { table in table.columns.map { (table.name, $0) } }.first { $0.1.type.bucket == bucket }
        return Finding(
            table: nil, kind: kind, message: message,
            migration: column.flatMap { history.adding(column: $0.1.name, to: $0.0) }, fix: try renderer.bucketSQL(bucket, in: schema))
    }

    static func unquoted(_ name: String) -> String {
        name.hasPrefix("\"") && name.hasSuffix("\"") ? String(name.dropFirst().dropLast()) : name
    }
}
