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
        // An update naming another updated_at is stale (a whole row pushed again after others
        // wrote): it changes nothing. Naming the stored one, it goes, and the server moves it.
        #expect(try updateTask("updated_at = '2100-01-01T00:00:00Z', title = 'stale'") == 0)
        #expect(try server.row("tasks", id)?["title"] == "two" && server.row("tasks", id)?["updated_at"] == previous)
        #expect(try updateTask("updated_at = $2, title = 'three'", [previous]) == 1)
        #expect(try server.row("tasks", id)?["title"] == "three" && server.row("tasks", id)?["updated_at"] != previous)
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
        // An update naming another version is stale: it changes nothing. Naming the stored
        // one (a whole row pushed by a device that knew it), it goes and the version moves.
        try server.connection.request(asUser: user) {
            try $0.execute("update public.task_lists set version = 100, name = 'stale' where id = $1", [id.text])
        }
        #expect(try server.row("task_lists", id)?["version"] == "3" && server.row("task_lists", id)?["name"] == "inbox!!")
        try server.connection.request(asUser: user) {
            try $0.execute("update public.task_lists set version = 3, name = 'whole row' where id = $1", [id.text])
        }
        #expect(try server.row("task_lists", id)?["version"] == "4" && server.row("task_lists", id)?["name"] == "whole row")
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
