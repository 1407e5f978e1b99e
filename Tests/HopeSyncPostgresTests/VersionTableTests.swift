import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

@Suite struct VersionTableTests {
    let server: ServerDatabase
    let user = UUID()
    let id = UUID()

    init() throws {
        server = try ServerDatabase.make()
    }

    private func insertTask(updatedAt: String) throws {
        try server.connection.request(asUser: user) {
            try $0.execute(
                "insert into public.tasks (id, title, updated_at) values ($1, 'write tests', $2)", [id.text, updatedAt])
        }
    }

    private func updateTask(_ assignments: String, _ parameters: [String?] = []) throws -> Int {
        try server.connection.request(asUser: user) {
            try $0.execute("update public.tasks set \(assignments) where id = $1", [id.text] + parameters).affectedRows
        }
    }

    @Test func moddatetimeMovesUpdatedAtOnEveryUpdate() throws {
        try insertTask(updatedAt: "2000-01-01T00:00:00Z")
        let inserted = try #require(try server.row("tasks", id)?["updated_at"])
        #expect(!inserted.hasPrefix("2000-"))
        var previous = inserted
        for title in ["one", "two"] {
            #expect(try updateTask("title = $2", [title]) == 1)
            let moved = try #require(try server.row("tasks", id)?["updated_at"])
            let later = try server.connection.execute("select $1::timestamptz > $2::timestamptz", [moved, previous]).scalar
            #expect(later == "t")
            previous = moved
        }
        // A client-sent updated_at is overwritten too.
        #expect(try updateTask("updated_at = '2100-01-01T00:00:00Z'") == 1)
        #expect(try server.row("tasks", id)?["updated_at"]?.hasPrefix("2100-") == false)
    }

    @Test func theIntegerVersionBumpsByOneAndCannotBeSet() throws {
        try server.connection.request(asUser: user) {
            try $0.execute("insert into public.task_lists (id, name, version) values ($1, 'inbox', 7)", [id.text])
        }
        #expect(try server.row("task_lists", id)?["version"] == "1")
        for expected in ["2", "3"] {
            try server.connection.request(asUser: user) {
                try $0.execute("update public.task_lists set name = name || '!' where id = $1", [id.text])
            }
            #expect(try server.row("task_lists", id)?["version"] == expected)
        }
        try server.connection.request(asUser: user) {
            try $0.execute("update public.task_lists set version = 100 where id = $1", [id.text])
        }
        #expect(try server.row("task_lists", id)?["version"] == "4")
    }

    @Test func versionTablesStampServerSeqAndKeepTheOwner() throws {
        try insertTask(updatedAt: "2000-01-01T00:00:00Z")
        let firstSeq = try #require(Int(try server.row("tasks", id)?["server_seq"] ?? ""))
        let stranger = UUID()
        #expect(try updateTask("user_id = $2, server_seq = 1", [stranger.text]) == 1)
        let row = try #require(try server.row("tasks", id))
        #expect(row["user_id"] == user.text)
        #expect(try #require(Int(row["server_seq"] ?? "")) > firstSeq)
    }
}
