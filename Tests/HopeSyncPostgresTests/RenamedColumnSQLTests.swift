import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import Testing

/// The write trigger of a table in the middle of a rename (decision 0052), on the lifecycle
/// fixture's v2 server: habits.title was name (column merge), notes.title was heading (a version
/// table), habits.streak is deprecated. Writes as each build sends them (PostgREST's upsert
/// names only the sender's columns).
@Suite struct RenamedColumnSQLTests {
    let user = UUID()
    let connection: Connection

    init() throws {
        let database = try PostgresCluster.createDatabase()
        connection = try database.connect()
        let folder = GeneratedPgTAPTests.packageRoot.appendingPathComponent("Tests/Fixtures/Lifecycle/v2/Generated/supabase/migrations")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            try connection.execute(script: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
    }

    static func stamp(_ ms: Int, _ device: String) -> String { String(repeating: "0", count: 15 - String(ms).count) + "\(ms):\(device)" }

    /// An upsert of `columns` (each name with its SQL value), as PostgREST makes it.
    func upsert(_ table: String, _ columns: [(String, String)]) throws {
        let names = columns.map(\.0)
        let sql =
            "insert into public.\(table) (\(names.joined(separator: ", "))) values (\(columns.map(\.1).joined(separator: ", ")))"
            + " on conflict (id) do update set " + names.filter { $0 != "id" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try connection.request(asUser: user) { try $0.execute(sql) }
    }

    func row(_ table: String, _ id: UUID, _ columns: String) throws -> [String?] {
        try connection.request(asUser: user) { connection in
            try connection.execute("select \(columns) from public.\(table) where id = $1", [id.uuidString.lowercased()]).rows.first?
                .values ?? []
        }
    }

    func habit(_ id: UUID, _ named: String, _ value: String, at ms: Int, by device: String, streak: Bool) throws {
        var stamps = "'{\"\(named)\": \"\(Self.stamp(ms, device))\", \"color\": \"\(Self.stamp(ms, device))\""
        stamps += streak ? ", \"streak\": \"\(Self.stamp(ms, device))\"}'" : "}'"
        var columns = [
            ("id", "'\(id.uuidString.lowercased())'"), (named, "'\(value)'"), ("color", "'#000000'"), ("updated_ms", "\(ms)"),
            ("device_id", "'\(device)'"), ("column_stamps", stamps + "::jsonb"),
        ]
        if streak { columns.append(("streak", "3")) }
        try upsert("habits", columns)
    }

    @Test func anInsertNamingEitherNameFillsTheOther() throws {
        let (old, new) = (UUID(), UUID())
        try habit(old, "name", "Run", at: 1000, by: "v1", streak: true)
        try habit(new, "title", "Read", at: 1000, by: "v2", streak: false)
        #expect(
            try row("habits", old, "title, name, streak::text, column_stamps ->> 'title'") == ["Run", "Run", "3", Self.stamp(1000, "v1")])
        #expect(
            try row("habits", new, "title, name, streak::text, column_stamps ->> 'name'") == ["Read", "Read", "0", Self.stamp(1000, "v2")])
    }

    @Test func theNewerWriteWinsWhicheverNameItCameThrough() throws {
        let id = UUID()
        try habit(id, "title", "Read", at: 1000, by: "v2", streak: false)
        try habit(id, "name", "Read more", at: 2000, by: "v1", streak: true)
        #expect(try row("habits", id, "title, name") == ["Read more", "Read more"])
        // An older write of the new name changes nothing; a newer one reaches the old name.
        try habit(id, "title", "Stale", at: 1500, by: "v2", streak: false)
        #expect(try row("habits", id, "title, name") == ["Read more", "Read more"])
        try habit(id, "title", "Read daily", at: 3000, by: "v2", streak: false)
        #expect(
            try row("habits", id, "title, name, column_stamps ->> 'name', streak::text") == [
                "Read daily", "Read daily", Self.stamp(3000, "v2"), "3",
            ])
    }

    @Test func aVersionTablesGuardedEditOfEitherNameReachesTheOther() throws {
        let id = UUID()
        try upsert("notes", [("id", "'\(id.uuidString.lowercased())'"), ("heading", "'Groceries'")])
        #expect(try row("notes", id, "title, heading, version::text") == ["Groceries", "Groceries", "1"])
        try connection.request(asUser: user) { connection in
            try connection.execute(
                "update public.notes set title = 'Groceries for Sunday' where id = $1 and version = 1", [id.uuidString.lowercased()])
        }
        #expect(try row("notes", id, "title, heading, version::text") == ["Groceries for Sunday", "Groceries for Sunday", "2"])
        try connection.request(asUser: user) { connection in
            try connection.execute(
                "update public.notes set heading = 'Shopping' where id = $1 and version = 2", [id.uuidString.lowercased()])
        }
        #expect(try row("notes", id, "title, heading, version::text") == ["Shopping", "Shopping", "3"])
    }

    /// Writes of either shape in any order, each with a random stamp (an old build's sometimes
    /// carrying the new name's older stamp it pulled, a new build's the old name's): both names
    /// end with the value of the newest stamp, whichever name it came through.
    @Test(arguments: [1, 2, 3])
    func anyInterleavingEndsWithTheNewestWriteUnderBothNames(_ seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let id = UUID()
        var newest: (stamp: String, value: String)?
        for step in 0..<60 {
            let ms = 1 + Int(random.next() % 500)
            let device = random.next() % 2 == 0 ? "v1" : "v2"
            let (named, other) = device == "v1" ? ("name", "title") : ("title", "name")
            let value = "\(device)-\(step)"
            let stamp = Self.stamp(ms, device)
            var stamps = "{\"\(named)\": \"\(stamp)\", \"color\": \"\(stamp)\""
            if random.next() % 2 == 0 { stamps += ", \"\(other)\": \"\(Self.stamp(max(0, ms - 1 - Int(random.next() % 50)), "x"))\"" }
            stamps += "}"
            var columns = [
                ("id", "'\(id.uuidString.lowercased())'"), (named, "'\(value)'"), ("color", "'#000000'"), ("updated_ms", "\(ms)"),
                ("device_id", "'\(device)'"), ("column_stamps", "'\(stamps)'::jsonb"),
            ]
            if device == "v1" { columns.append(("streak", "1")) }
            try upsert("habits", columns)
            if newest.map({ stamp > $0.stamp }) ?? true { newest = (stamp, value) }
        }
        let expected = try #require(newest)
        #expect(
            try row("habits", id, "title, name, column_stamps ->> 'title', column_stamps ->> 'name'") == [
                expected.value, expected.value, expected.stamp, expected.stamp,
            ])
    }

    /// A retype's `back` need not give back what it was given ('lots' is no number): pasting
    /// schema.sql again copies nothing over a value a write set.
    @Test func aPasteNeverCopiesOverAValueAWriteSet() throws {
        let id = UUID()
        try habit(id, "title", "Read", at: 1000, by: "v2", streak: false)
        try upsert(
            "habits",
            [
                ("id", "'\(id.uuidString.lowercased())'"), ("title", "'Read'"), ("goal_text", "'lots'"), ("updated_ms", "2000"),
                ("device_id", "'v2'"),
                ("column_stamps", "'{\"goal_text\": \"\(Self.stamp(2000, "v2"))\"}'::jsonb"),
            ])
        #expect(try row("habits", id, "goal_text, goal::text") == ["lots", nil])
        let schema = GeneratedPgTAPTests.packageRoot.appendingPathComponent("Tests/Fixtures/Lifecycle/v2/Generated/supabase/schema.sql")
        try connection.execute(script: String(contentsOf: schema, encoding: .utf8))
        #expect(try row("habits", id, "goal_text, goal::text, title, name") == ["lots", nil, "Read", "Read"])
    }
}
