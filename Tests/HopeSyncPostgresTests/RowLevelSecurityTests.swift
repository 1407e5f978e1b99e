import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

@Suite struct RowLevelSecurityTests {
    let server: ServerDatabase
    let alice = UUID()
    let bob = UUID()
    let alicesRow = UUID()

    init() throws {
        server = try ServerDatabase.make()
        try server.upsert("activities", as: alice, [activity(alicesRow, user: alice, name: "alice's", updatedMs: 10)])
        try server.upsert("activities", as: bob, [activity(UUID(), user: bob, name: "bob's", updatedMs: 10)])
    }

    private func alicesRowIsUntouched() throws -> Bool {
        let row = try #require(try server.row("activities", alicesRow))
        return row["user_id"] == alice.text && row["name"] == "alice's" && row["updated_ms"] == "10"
    }

    @Test func anotherUserCannotReadTheRows() throws {
        let names = try server.connection.request(asUser: bob) {
            try $0.execute("select name from public.activities").rows.map { $0[0] }
        }
        #expect(names == ["bob's"])
    }

    @Test func anotherUserCannotUpdateOrMoveTheRows() throws {
        let updated = try server.connection.request(asUser: bob) {
            try $0.execute(
                "update public.activities set name = 'stolen', user_id = $2, updated_ms = 99 where id = $1",
                [alicesRow.text, bob.text]
            ).affectedRows
        }
        #expect(updated == 0)
        #expect(try alicesRowIsUntouched())
    }

    @Test func anotherUserCannotUpsertOverTheRows() throws {
        let error = try #require(throws: PostgresError.self) {
            try server.upsert("activities", as: bob, [activity(alicesRow, user: bob, name: "stolen", updatedMs: 99)])
        }
        #expect(error.isInsufficientPrivilege)
        #expect(try alicesRowIsUntouched())
    }

    @Test func nobodyCanDeleteRowsOnlyMarkThemDeleted() throws {
        for user in [bob, alice] {
            let error = try #require(throws: PostgresError.self) {
                try server.connection.request(asUser: user) {
                    try $0.execute("delete from public.activities where id = $1", [alicesRow.text])
                }
            }
            #expect(error.isInsufficientPrivilege)
        }
        #expect(try alicesRowIsUntouched())
    }

    @Test func nobodyCanInsertForAnotherUser() throws {
        let error = try #require(throws: PostgresError.self) {
            try server.upsert("activities", as: bob, [activity(UUID(), user: alice, name: "planted", updatedMs: 1)])
        }
        #expect(error.isInsufficientPrivilege)
    }

    @Test func theOwnerCannotGiveARowAway() throws {
        try server.connection.request(asUser: alice) {
            try $0.execute("update public.activities set user_id = $2, updated_ms = 20 where id = $1", [alicesRow.text, bob.text])
        }
        #expect(try server.row("activities", alicesRow)?["user_id"] == alice.text)
    }

    @Test func anonSeesNothing() throws {
        let error = try #require(throws: PostgresError.self) {
            try server.connection.request(as: .anon) { try $0.execute("select * from public.activities") }
        }
        #expect(error.isInsufficientPrivilege)
    }

    @Test func serviceRoleSeesEveryRow() throws {
        let count = try server.connection.request(as: .serviceRole) {
            try $0.execute("select count(*) from public.activities").scalar
        }
        #expect(count == "2")
    }
}
