import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// Pokes for shared rows (decision 0048, "Amendment: pokes to members") on PostgreSQL 15 with
/// Realtime's schema, on the SQL rendered for Tests/Fixtures/Sharing/schema.yaml: a write to a
/// scope's row pokes every member on their own topic `sync:<user>`; the `X-Sync-Pokes: client`
/// header spares the writer's topic only; a membership change pokes the user it concerns, a
/// removed one too; and nobody else hears or may join another's topic. An owner, an editor and
/// a viewer of one list, and an outsider.
@Suite struct SharedPokeTests {
    let connection: Connection
    let owner = UUID()
    let editor = UUID()
    let viewer = UUID()
    let outsider = UUID()
    let list = UUID()

    init() throws {
        let database = try PostgresCluster.createDatabase()
        connection = try database.connect()
        try connection.createRealtimeSchema()
        try SharingSQLTests.applySharingSQL(on: connection)
        try connection.request(asUser: owner) {
            try $0.execute("insert into public.task_lists (id, user_id, name) values ($1, $2, 'groceries')", [list.text, owner.text])
        }
        try share(editor, "editor")
        try share(viewer, "viewer")
        try connection.execute("delete from realtime.messages")
    }

    func share(_ member: UUID, _ role: String) throws {
        try connection.request(asUser: owner) { try $0.execute(SharingSQLTests.shareSQL, [list.text, member.text, role]) }
    }

    /// The users poked since the last call, by table (each poke once, sorted), then forgotten.
    func poked() throws -> [String: [UUID]] {
        let rows = try connection.execute(
            "delete from realtime.messages where event = 'poke' returning substr(topic, 6), payload ->> 'table'"
        ).rows.map(\.values)
        var pokes: [String: [UUID]] = [:]
        for row in rows {
            guard let user = row[0].flatMap(UUID.init(uuidString:)), let table = row[1] else { continue }
            pokes[table, default: []].append(user)
        }
        return pokes.mapValues { $0.sorted { $0.uuidString < $1.uuidString } }
    }

    func sorted(_ users: UUID...) -> [UUID] {
        users.sorted { $0.uuidString < $1.uuidString }
    }

    func writeTask(list: UUID?, as user: UUID, headers: String? = nil) throws {
        try connection.request(asUser: user) { connection in
            if let headers { try connection.execute("select set_config('request.headers', $1, true)", [headers]) }
            try connection.execute(
                "insert into public.tasks (id, user_id, title, list_id) values (gen_random_uuid(), $1, 'task', $2)",
                [user.text, list?.text])
        }
    }

    @Test func aWriteToASharedRowPokesEveryMemberAndAnOwnRowItsOwnerOnly() throws {
        try writeTask(list: list, as: editor)
        #expect(try poked() == ["tasks": sorted(owner, editor, viewer)])
        try writeTask(list: nil, as: editor)
        #expect(try poked() == ["tasks": [editor]])
        // The list itself (a scope row) reaches its members too.
        try connection.request(asUser: editor) { try $0.execute("update public.task_lists set name = 'food' where id = $1", [list.text]) }
        #expect(try poked() == ["task_lists": sorted(owner, editor, viewer)])
        // The poke names the table and the highest server_seq written, nothing of the rows.
        try writeTask(list: list, as: owner)
        let payload = try #require(try connection.execute("select payload::text from realtime.messages limit 1").scalar)
        #expect(!payload.contains("title") && !payload.contains(owner.text), "\(payload)")
        let seq = try connection.execute("select max(server_seq)::text from public.tasks").scalar
        #expect(try connection.execute("select distinct payload ->> 'server_seq' from realtime.messages").scalar == seq)
    }

    /// Inserts and updates of one upsert, and several rows of one statement: one poke per member.
    @Test func anUpsertThatInsertsAndUpdatesPokesEachMemberOnce() throws {
        let id = UUID()
        try writeTask(list: list, as: editor)
        _ = try poked()
        try connection.request(asUser: editor) {
            try $0.execute(
                """
                insert into public.tasks (id, user_id, title, list_id)
                select t.id, $1::uuid, 'again', $2::uuid from public.tasks t
                union all select $3::uuid, $1::uuid, 'new', $2::uuid
                on conflict (id) do update set title = excluded.title
                """, [editor.text, list.text, id.text])
        }
        #expect(try poked() == ["tasks": sorted(owner, editor, viewer)])
    }

    /// A device that announces its own push spares its own topic; the members' pokes still go.
    @Test func theClientHeaderSparesOnlyTheWritersOwnTopic() throws {
        try writeTask(list: list, as: editor, headers: #"{"x-sync-pokes":"client"}"#)
        #expect(try poked() == ["tasks": sorted(owner, viewer)])
        try writeTask(list: nil, as: editor, headers: #"{"x-sync-pokes":"client"}"#)
        #expect(try poked().isEmpty)
        // The service role is nobody's device: the header spares no one.
        try connection.request(as: .serviceRole) { connection in
            try connection.execute("select set_config('request.headers', $1, true)", [#"{"x-sync-pokes":"client"}"#])
            try connection.execute(
                "insert into public.tasks (id, user_id, title, list_id) values (gen_random_uuid(), $1, 'job', $2)",
                [owner.text, list.text])
        }
        #expect(try poked() == ["tasks": sorted(owner, editor, viewer)])
    }

    @Test func aMembershipChangePokesTheUserItConcernsARemovedOneToo() throws {
        let members = "task_lists_members"
        try share(outsider, "viewer")
        #expect(try poked()[members] == sorted(owner, editor, viewer, outsider), "added")
        try share(outsider, "editor")
        #expect(try poked()[members] == sorted(owner, editor, viewer, outsider), "role changed")
        try connection.request(asUser: owner) { try $0.execute(SharingSQLTests.removeSQL, [list.text, outsider.text]) }
        #expect(try poked()[members] == sorted(owner, editor, viewer, outsider), "removed: no longer a member, still poked")
        try connection.request(asUser: viewer) { try $0.execute(SharingSQLTests.removeSQL, [list.text, viewer.text]) }
        #expect(try poked()[members] == sorted(owner, editor, viewer), "left")
        // Later writes reach the members left, never the removed.
        try writeTask(list: list, as: editor)
        #expect(try poked() == ["tasks": sorted(owner, editor)])
        // The scope deleted: its rows and every membership end, each member poked.
        try connection.request(asUser: owner) {
            try $0.execute("update public.task_lists set deleted_ms = 1 where id = $1", [list.text])
        }
        let deleted = try poked()
        #expect(deleted[members] == sorted(owner, editor))
        #expect(deleted["tasks"] == sorted(owner, editor))
    }

    /// A row moved out of the list: the list's members are poked (they drop their copy), and the
    /// mover's own devices.
    @Test func aRowMovedOutOfAScopePokesThatScopesMembers() throws {
        let task = UUID()
        try connection.request(asUser: editor) {
            try $0.execute(
                "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, 'task', $3)", [task.text, editor.text, list.text])
        }
        _ = try poked()
        try connection.request(asUser: editor) {
            try $0.execute("update public.tasks set list_id = null where id = $1", [task.text])
        }
        let moved = try poked()
        #expect(moved == ["tasks": sorted(owner, editor, viewer)], "\(moved) owner \(owner) editor \(editor) viewer \(viewer)")
    }

    /// Realtime's join check as it runs it (a message of the topic read back as the user): every
    /// user joins their own topic only, whatever lists they share; and nobody sends on another's.
    @Test func nobodyJoinsOrSendsOnAnotherUsersTopicMemberOrNot() throws {
        try connection.request(asUser: owner) { try $0.execute(SharingSQLTests.removeSQL, [list.text, viewer.text]) }
        func mayJoin(_ topicUser: UUID, as user: UUID) throws -> Bool {
            try connection.transaction { connection in
                let topic = "sync:\(topicUser.text)"
                let id = try #require(
                    try connection.execute(
                        "insert into realtime.messages (topic, extension) values ($1, 'broadcast') returning id::text", [topic]
                    )
                    .scalar)
                try connection.execute(
                    "select set_config('role', 'authenticated', true), set_config('realtime.topic', $1, true), set_config('request.jwt.claims', $2, true)",
                    [topic, #"{"role":"authenticated","sub":"\#(user.text)"}"#])
                let seen = try connection.execute("select count(*) from realtime.messages where id = $1::uuid", [id]).scalar
                try connection.execute("rollback and chain")
                return seen == "1"
            }
        }
        for user in [owner, editor, viewer, outsider] { #expect(try mayJoin(user, as: user)) }
        #expect(try !mayJoin(owner, as: editor), "a member")
        #expect(try !mayJoin(owner, as: viewer), "a removed member")
        #expect(try !mayJoin(editor, as: outsider), "a non-member")
        for user in [editor, viewer, outsider] {
            #expect(throws: PostgresError.self) {
                try connection.request(asUser: user) {
                    try $0.execute(
                        "insert into realtime.messages (topic, extension, event, payload, private) values ($1, 'broadcast', 'poke', '{}', true)",
                        ["sync:\(owner.text)"])
                }
            }
        }
    }
}
