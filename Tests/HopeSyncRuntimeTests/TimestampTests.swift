import Foundation
import HopeSchema
import HopeSync
import HopeSyncTesting
import Testing

/// `timestamp` columns are ``SyncTimestamp`` values, kept to the server's microsecond
/// and held in one canonical text on the device, the server and every other device.
@Suite struct TimestampTests {
    let user = UUID()
    let server = InMemoryServer.hope()

    @Test func aTimestampReadsBackAsTheSameTextAndDateOnAnotherDevice() async throws {
        let (a, b) = (try TestDevice("a", user: user, transport: server), try TestDevice("b", user: user, transport: server))
        let written = try #require(SyncTimestamp("2026-10-18T13:00:06.482Z"))
        let task = try await a.store.write { try $0.save(TaskItem(title: "Write", dueAt: written)) }
        #expect(task.dueAt?.text == "2026-10-18T13:00:06.482+00:00")
        try await a.sync()
        #expect(await server.rows(of: "tasks")[task.id.uuidString.lowercased()]?["due_at"] == .text("2026-10-18T13:00:06.482+00:00"))
        try await b.sync()
        let pulled = try #require(try await b.store.read { try $0.fetchOne(TaskItem.self, id: task.id) })
        #expect(pulled.dueAt == written && pulled.dueAt?.text == task.dueAt?.text)
        #expect(pulled.dueAt?.date == written.date)
        #expect(abs(try #require(pulled.dueAt).date.timeIntervalSince1970 - 1_792_328_406.482) < 1e-6)
        // Back on a, after its own pull: still the same text.
        try await a.sync()
        #expect(try await a.store.read { try $0.fetchOne(TaskItem.self, id: task.id) }?.dueAt?.text == "2026-10-18T13:00:06.482+00:00")
    }

    @Test func microsecondsAreKeptExactly() throws {
        let text = "2026-10-18T13:00:27.486123+00:00"
        let timestamp = try #require(SyncTimestamp(text))
        #expect(timestamp.text == text && timestamp.description == text)
        #expect(timestamp.microsecondsSinceEpoch == 1_792_328_427_486_123)
        #expect(SyncTimestamp(timestamp.date) == timestamp, "through Date and back, to the microsecond")
        #expect(SyncTimestamp("2026-10-18T13:00:27.000001+00:00")?.text == "2026-10-18T13:00:27.000001+00:00")
        #expect(SyncTimestamp("2026-10-18T13:00:27.4861+00:00")?.text == "2026-10-18T13:00:27.4861+00:00")
        #expect(SyncTimestamp("2026-10-18T13:00:27.4861235Z")?.text == "2026-10-18T13:00:27.486124+00:00", "rounded as PostgreSQL does")
        #expect(SyncTimestamp("2026-10-18T13:00:27.9999996Z")?.text == "2026-10-18T13:00:28+00:00")
        // Offsets and the forms PostgreSQL writes read as the same instant.
        #expect(SyncTimestamp("2026-10-18T15:00:27.486123+02:00") == timestamp)
        #expect(SyncTimestamp("2026-10-18 15:00:27.486123+02") == timestamp)
        #expect(SyncTimestamp("2026-10-18T10:30:27.486123-0230") == timestamp)
        // Codable as the canonical text.
        let json = try JSONEncoder().encode([timestamp])
        #expect(String(decoding: json, as: UTF8.self) == #"["2026-10-18T13:00:27.486123+00:00"]"#)
        #expect(try JSONDecoder().decode([SyncTimestamp].self, from: json) == [timestamp])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([SyncTimestamp].self, from: Data(#"["next tuesday"]"#.utf8)) }
        // Ordered by instant.
        #expect(SyncTimestamp("2026-10-18T13:00:27.486122Z")! < timestamp)
    }

    @Test func wholeSecondsHaveNoFraction() throws {
        #expect(SyncTimestamp("2026-10-18T13:00:27Z")?.text == "2026-10-18T13:00:27+00:00")
        #expect(SyncTimestamp("2026-10-18T13:00:27.000000+00:00")?.text == "2026-10-18T13:00:27+00:00")
        #expect(SyncTimestamp("2026-10-18T13:00Z")?.text == "2026-10-18T13:00:00+00:00")
        #expect(SyncTimestamp(Date(timeIntervalSince1970: 1_792_328_427)).text == "2026-10-18T13:00:27+00:00")
        #expect(SyncTimestamp(Date(timeIntervalSince1970: 0)).text == "1970-01-01T00:00:00+00:00")
        #expect(SyncTimestamp(Date(timeIntervalSince1970: -0.5)).text == "1969-12-31T23:59:59.5+00:00")
        #expect(SyncTimestamp("2024-02-29T00:00:00Z")?.text == "2024-02-29T00:00:00+00:00")
        #expect(SyncTimestamp.earliest.text == "0001-01-01T00:00:00+00:00")
        #expect(SyncTimestamp.latest.text == "9999-12-31T23:59:59.999999+00:00")
        #expect(SyncTimestamp(microsecondsSinceEpoch: SyncTimestamp.latest.microsecondsSinceEpoch + 1) == nil)
        #expect(SyncTimestamp(Date.distantFuture).date <= Date.distantFuture)
    }

    @Test func textsThatAreNotTimestampsAreNotRead() {
        for text in [
            "next tuesday", "", "2026-10-18", "2026-10-18T13:00:27", "2026-10-18T13:00:27.+00:00", "2026-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z", "2026-10-18T24:00:00Z", "2026-10-18T13:60:00Z", "2026-10-18T13:00:27+00:00 ",
            "2026-10-18T13:00:27+0", "0000-01-01T00:00:00Z", "2026-10-18T13:00:27\u{0}Z",
        ] {
            #expect(SyncTimestamp(text) == nil, "\(text)")
        }
    }

    /// A row type written by hand, with the timestamp as text: what the generated type cannot express.
    struct LooseTask: SyncRecord {
        static var table: TableSchema { TaskItem.table }
        var id = UUID()
        var title: String
        var done = false
        var dueAt: String?

        enum CodingKeys: String, CodingKey {
            case id, title, done
            case dueAt = "due_at"
        }
    }

    @Test func aTextThatIsNotATimestampIsRefusedAtSaveNamingTheColumn() async throws {
        let a = try TestDevice("a", user: user, transport: server)
        await #expect {
            try await a.store.write { try $0.save(LooseTask(title: "Later", dueAt: "next tuesday")) }
        } throws: { error in
            (error as? SyncError)?.code == .invalidRequest
                && (error as? SyncError)?.message.contains("tasks.due_at is not a timestamp") == true
        }
        #expect(try a.dirtyCount() == 0)
        // Text that is a timestamp is stored in the canonical form.
        let saved = try await a.store.write { try $0.save(LooseTask(title: "Soon", dueAt: "2026-10-18 15:00:06.482+02")) }
        #expect(saved.dueAt == "2026-10-18T13:00:06.482+00:00")
        #expect(try await a.store.read { try $0.fetchOne(TaskItem.self, id: saved.id) }?.dueAt == SyncTimestamp("2026-10-18T13:00:06.482Z"))
    }
}
