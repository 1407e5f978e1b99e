import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema

/// A test database holding a rendered schema, with helpers that write as the runtime does
/// (whole rows, PostgREST's merge-duplicates upsert) and read back what the server holds.
struct ServerDatabase {
    let database: TestDatabase
    let connection: Connection

    /// A fresh database with schema.sql of `schema` applied (its columns in the order
    /// TestSchema's migrations make them, where they make the table).
    /// `alone`: in the cluster only the suites that ask for it use (see PostgresCluster).
    static func make(_ schema: Schema = TestSchema.current, alone: Bool = false) throws -> ServerDatabase {
        let database = try PostgresCluster.createDatabase(alone: alone)
        let connection = try database.connect()
        try connection.execute(script: try TestSchema.renderer.schemaSQL(schema, columnOrder: TestSchema.columnOrder))
        return ServerDatabase(database: database, connection: connection)
    }

    /// PostgREST's upsert: `insert ... on conflict (id) do update set` every column sent.
    /// Every row must have the same columns; nil is NULL.
    @discardableResult
    static func upsert(_ table: String, _ rows: [[String: String?]], on connection: Connection) throws -> Int {
        let columns = rows[0].keys.sorted()
        var parameters: [String?] = []
        let tuples = rows.map { row in
            "("
                + columns.map { column in
                    parameters.append(row[column] ?? nil)
                    return "$\(parameters.count)"
                }.joined(separator: ", ") + ")"
        }
        let updates = columns.filter { $0 != "id" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let sql =
            "insert into public.\(table) (\(columns.joined(separator: ", "))) values \(tuples.joined(separator: ", ")) on conflict (id) do update set \(updates)"
        return try connection.execute(sql, parameters).affectedRows
    }

    /// Upserts as `user` in one request.
    @discardableResult
    func upsert(_ table: String, as user: UUID, _ rows: [[String: String?]]) throws -> Int {
        try connection.request(asUser: user) { try Self.upsert(table, rows, on: $0) }
    }

    /// The stored row, read as the superuser (no policies in the way).
    func row(_ table: String, _ id: UUID) throws -> QueryResult.Row? {
        try connection.execute("select * from public.\(table) where id = $1", [id.text]).rows.first
    }

    /// The SQLSTATE the server refuses an upsert of `row` with; nil when it takes it.
    func refusal(upserting row: [String: String?], into table: String, as user: UUID) -> String? {
        do {
            try upsert(table, as: user, [row])
            return nil
        } catch let error as PostgresError {
            return error.sqlState
        } catch {
            return "\(error)"
        }
    }
}

extension UUID {
    /// The lowercase text PostgreSQL prints.
    var text: String { uuidString.lowercased() }
}

/// A sessions row as a device sends it.
func session(
    _ id: UUID, user: UUID, start: Int, end: Int? = nil, updatedMs: Int, device: String = "device-a",
    deletedMs: Int? = nil, activity: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
) -> [String: String?] {
    [
        "id": id.text, "user_id": user.text, "activity_id": activity.text,
        "started_ms": String(start), "ended_ms": end.map(String.init), "note": nil, "source": "desktop",
        "updated_ms": String(updatedMs), "deleted_ms": deletedMs.map(String.init), "device_id": device,
    ]
}

/// An activities row as a device sends it.
func activity(
    _ id: UUID, user: UUID, name: String, updatedMs: Int, device: String = "device-a", deletedMs: Int? = nil,
    serverSeq: Int? = nil
) -> [String: String?] {
    [
        "id": id.text, "user_id": user.text, "name": name, "color": "#000000", "archived": "false",
        "sort_order": "1", "metadata": nil, "updated_ms": String(updatedMs), "deleted_ms": deletedMs.map(String.init),
        "device_id": device, "server_seq": serverSeq.map(String.init),
    ]
}
