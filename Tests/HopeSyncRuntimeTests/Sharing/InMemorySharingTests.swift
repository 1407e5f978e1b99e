import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync
@testable import HopeSyncTesting

/// The in-memory server shares by scope as the generated SQL does (SharingSQLTests prove that
/// SQL on PostgreSQL): the same behaviours at the transport's level, as an owner, an editor and
/// a viewer of one list, and an outsider.
@Suite struct InMemorySharingTests {
    let server = InMemoryServer(tables: SharingTables.all)
    let owner = Credentials(userID: UUID(), accessToken: "owner")
    let editor = Credentials(userID: UUID(), accessToken: "editor")
    let viewer = Credentials(userID: UUID(), accessToken: "viewer")
    let outsider = Credentials(userID: UUID(), accessToken: "outsider")
    let list = UUID()

    init() async throws {
        try await createList(list, as: owner)
        try await change(list, editor, .editor, as: owner)
        try await change(list, viewer, .viewer, as: owner)
    }

    // MARK: Requests

    func createList(_ id: UUID, name: String = "groceries", deleted: Int64? = nil, as user: Credentials) async throws {
        let row = await knowingTheVersion(SharingTables.list(id, name: name, by: user.userID, deleted: deleted), in: SharingTables.lists)
        try await server.upsert([row], into: SharingTables.lists, as: user)
    }

    /// `row` as a device that pulled the stored row pushes it: with the stored version (a push
    /// naming another one is stale and changes nothing).
    func knowingTheVersion(_ row: ColumnValues, in table: TableSchema) async -> ColumnValues {
        guard let version = table.conflict.versionColumn, let id = row[ReservedColumn.id]?.text,
            let stored = await server.rows(of: table.name)[id]?[version]
        else { return row }
        return ColumnValues(columns: row.columns, values: zip(row.columns, row.values).map { $0 == version ? stored : $1 })
    }

    @discardableResult
    func change(_ scope: UUID, _ member: Credentials, _ role: MemberRole?, as user: Credentials) async throws -> [ColumnValues] {
        try await server.changeMembership(
            MembershipChange(scopeID: scope, userID: member.userID, role: role), in: SharingTables.members, as: user)
    }

    @discardableResult
    func writeTask(_ id: UUID = UUID(), title: String, list: UUID?, as user: Credentials) async throws -> UUID {
        let row = await knowingTheVersion(SharingTables.task(id, title: title, list: list, by: user.userID), in: SharingTables.tasks)
        try await server.upsert([row], into: SharingTables.tasks, as: user)
        return id
    }

    /// The SQLSTATE and HTTP status `body` fails with (nil: it succeeded).
    func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as SyncError {
            return "\(error.serverError?.code ?? "?") \(error.httpStatus ?? 0)"
        } catch {
            return "\(error)"
        }
    }

    func fetch(_ table: TableSchema, _ id: UUID, as user: Credentials) async throws -> ColumnValues? {
        try await server.fetch(table, id: id, columns: table.columnNames, as: user)
    }

    func pull(_ scopes: [String: [TableCursor]]?, own: [TableCursor] = [], since: Int64? = nil, limit: Int = 100, as user: Credentials)
        async throws -> PulledTables
    {
        try await server.pull(
            PullCursors(own: own, scopes: scopes, sharedTables: SharingTables.shared), since: since, limit: limit, function: "sync_pull",
            as: user)
    }

    func stored(_ table: String, _ id: UUID) async -> ColumnValues? {
        await server.rows(of: table)[id.lowercasedString]
    }

    // MARK: Membership

    @Test func membershipWritesFollowTheRulesAndEachRefusalHasItsSQLSTATE() async throws {
        // Only owners share; nobody adds themselves or changes their own role.
        #expect(await refusal { try await change(list, outsider, .viewer, as: editor) } == "42501 403")
        #expect(await refusal { try await change(list, outsider, .viewer, as: viewer) } == "42501 403")
        #expect(
            await refusal { try await change(list, Credentials(userID: UUID(), accessToken: ""), .viewer, as: outsider) } == "42501 403")
        #expect(await refusal { try await change(list, outsider, .viewer, as: outsider) } == "HS001 400", "nobody adds themselves")
        let added = try await change(list, outsider, .viewer, as: owner)
        #expect(added.count == 1 && added.first?.columns == SharingTables.members.columnNames)
        #expect(added.first?["added_by"] == owner.userID.syncText && added.first?["role"] == .text("viewer"))
        let sequence = await server.lastSequence
        #expect(try await change(list, outsider, .viewer, as: owner).isEmpty, "a repeat changes nothing")
        #expect(await server.lastSequence == sequence)
        #expect(await refusal { try await change(list, owner, .editor, as: owner) } == "HS001 400")
        #expect(await refusal { try await change(list, editor, .owner, as: editor) } == "HS001 400", "an editor raising their own role")
        #expect(await refusal { try await change(list, viewer, .owner, as: outsider) } == "42501 403")
        // Only owners remove others (anyone else changes no row); anyone leaves; the last owner
        // neither leaves nor is made something else.
        #expect(try await change(list, outsider, nil, as: editor).isEmpty)
        let removed = try await change(list, outsider, nil, as: owner)
        #expect(removed.first?["deleted_ms"]?.int.map { $0 > 1 } == true, "the server stamps the removal")
        #expect(await refusal { try await change(list, owner, nil, as: owner) } == "HS002 400", "the last owner leaving")
        #expect(await refusal { try await change(list, owner, .editor, as: owner) } == "HS001 400")
        #expect(try await change(list, viewer, nil, as: viewer).count == 1)
        #expect(try await change(list, viewer, nil, as: viewer).isEmpty, "leaving twice changes nothing")
        // Ownership handed over: the first owner may leave, the new one is then the last.
        #expect(try await change(list, editor, .owner, as: owner).count == 1)
        #expect(try await change(list, owner, nil, as: owner).count == 1)
        #expect(await refusal { try await change(list, editor, nil, as: editor) } == "HS002 400")
        #expect(try await change(list, editor, nil, as: owner).isEmpty, "a former owner manages nothing")
        #expect(await refusal { try await change(list, owner, .viewer, as: owner) } == "HS001 400", "nor rejoins by themselves")
        #expect(await server.members(of: list) == [editor.userID: .owner])
        // An owner adds back a member who left: re-opened, stamped by its new adder.
        let back = try await change(list, viewer, .editor, as: editor)
        #expect(back.first?["deleted_ms"] == .null && back.first?["added_by"] == editor.userID.syncText)
        #expect(back.first?["server_seq"]?.int == (await server.lastSequence))
        #expect(await server.members(of: list) == [editor.userID: .owner, viewer.userID: .editor])
    }

    @Test func aScopeIDAnotherScopeTableHasIsRefused() async throws {
        let board = SharingTables.board(list, by: outsider.userID)
        #expect(await refusal { try await server.upsert([board], into: SharingTables.boards, as: outsider) } == "23505 409")
        #expect(await stored("boards", list) == nil)
        #expect(await server.members(of: list).count == 3, "no membership added for the refused scope")
    }

    @Test func aListsCreatorOwnsItAndMembersReadItsMemberships() async throws {
        let second = UUID()
        try await createList(second, name: "mine", as: outsider)
        #expect(await server.members(of: second) == [outsider.userID: .owner])
        let memberships = try await server.pull(SharingTables.members, after: 0, limit: 100, as: viewer).rows
        #expect(memberships.count == 3 && memberships.allSatisfy { $0["scope_id"] == list.syncText })
        let outsiders = try await server.pull(SharingTables.members, after: 0, limit: 100, as: outsider).rows
        #expect(outsiders.map { $0["scope_id"] } == [second.syncText] && outsiders.first?["added_by"] == outsider.userID.syncText)
    }

    // MARK: Row-level security

    @Test func viewersReadEditorsWriteAndNobodyWritesIntoAListTheyDoNotEdit() async throws {
        let task = try await writeTask(title: "milk", list: list, as: editor)
        #expect(try await fetch(SharingTables.tasks, task, as: viewer) != nil)
        #expect(try await fetch(SharingTables.tasks, task, as: owner) != nil)
        #expect(try await fetch(SharingTables.tasks, task, as: outsider) == nil)
        #expect(try await server.pull(SharingTables.tasks, after: 0, limit: 10, as: outsider).rows.isEmpty)
        #expect(await refusal { try await writeTask(title: "x", list: list, as: viewer) } == "42501 403")
        #expect(await refusal { try await writeTask(title: "x", list: list, as: outsider) } == "42501 403")
        #expect(await refusal { try await writeTask(task, title: "x", list: nil, as: viewer) } == "42501 403", "the conflicting row")
        // A viewer's or outsider's guarded update finds no row to change; an owner's does.
        let version = try #require(await stored("tasks", task)?["updated_at"]?.versionText)
        let rename = ColumnValues(["title": .text("renamed")])
        for user in [viewer, outsider] {
            let changed = try await server.guardedUpdate(
                SharingTables.tasks, id: task, baseVersion: version, set: rename, extraFilters: [], returning: ["id"], as: user)
            #expect(changed.isEmpty)
        }
        let changed = try await server.guardedUpdate(
            SharingTables.tasks, id: task, baseVersion: version, set: rename, extraFilters: [], returning: ["id", "user_id"], as: owner)
        #expect(changed.first?["user_id"] == editor.userID.syncText, "the author stays the row's user")
        // Nobody moves a row into a list they do not edit, nor their own row into one.
        let other = UUID()
        try await createList(other, name: "the outsider's", as: outsider)
        #expect(await refusal { try await writeTask(task, title: "moved", list: other, as: editor) } == "42501 403")
        #expect(await stored("tasks", task)?["list_id"] == list.syncText)
        #expect(await server.exits.isEmpty)
        let own = try await writeTask(title: "own", list: nil, as: viewer)
        #expect(await refusal { try await writeTask(own, title: "own", list: list, as: viewer) } == "42501 403")
        #expect(try await fetch(SharingTables.tasks, own, as: owner) == nil, "own rows are their owner's")
        // A photo is in its task's list whatever the device sends.
        let photo = UUID()
        let row = SharingTables.photo(photo, task: task, list: nil, by: editor.userID, updated: 10)
        try await server.upsert([row], into: SharingTables.photos, as: editor)
        #expect(await stored("task_photos", photo)?["list_id"] == list.syncText)
        #expect(try await fetch(SharingTables.photos, photo, as: viewer) != nil)
    }

    @Test func deletingAListSoftDeletesItsRowsAndEndsItsMemberships() async throws {
        let task = try await writeTask(title: "milk", list: list, as: editor)
        let photo = UUID()
        try await server.upsert(
            [SharingTables.photo(photo, task: task, list: list, by: editor.userID, updated: 10, device: "d")], into: SharingTables.photos,
            as: editor)
        let lists = SharingTables.lists
        #expect(await refusal { try await createList(list, deleted: 5, as: editor) } == "42501 403", "only an owner deletes a list")
        #expect(await stored("task_lists", list)?["deleted_ms"] == .null)
        #expect(await server.members(of: list).count == 3, "nothing of the deletion stays")
        try await createList(list, deleted: 5, as: owner)
        #expect(await stored("tasks", task)?["deleted_ms"] == .int(5))
        // The server's own last-writer-wins write: device id '', a pair past the stored one.
        let deleted = try #require(await stored("task_photos", photo))
        #expect(deleted["deleted_ms"] == .int(5) && deleted["updated_ms"] == .int(11) && deleted["device_id"] == .text(""))
        #expect(await server.members(of: list).isEmpty)
        #expect(try await fetch(SharingTables.tasks, task, as: editor) == nil)
        #expect(try await fetch(lists, list, as: owner) == nil, "a deleted scope is read by nobody")
        #expect(await refusal { try await writeTask(title: "x", list: list, as: editor) } == "42501 403")
    }

    // MARK: The pull

    @Test func aRemovedMemberReadsNothingMoreThroughTheTablesOrThePull() async throws {
        try await writeTask(title: "milk", list: list, as: owner)
        let own = [TableCursor(SharingTables.tasks, after: 0)]
        let before = try await pull([:], own: own, as: viewer)
        #expect(before.scopes.map { Array($0.keys) } == [list.lowercasedString] && before.scopes?[list.lowercasedString]?.role == .viewer)
        let idle = try await pull([:], own: own, since: before.mark, as: viewer)
        #expect(idle.scopes == nil && idle.pages.isEmpty && idle.mark == before.mark, "idle")

        #expect(try await change(list, viewer, nil, as: owner).count == 1)
        try await writeTask(title: "after", list: list, as: owner)
        for table in [SharingTables.tasks, SharingTables.lists, SharingTables.members] {
            #expect(try await server.pull(table, after: 0, limit: 100, as: viewer).rows.isEmpty, "\(table.name)")
        }
        let after = try await pull(
            [list.lowercasedString: [TableCursor(SharingTables.tasks, after: 0)]], own: own, since: before.mark, as: viewer)
        #expect(after.scopes?.isEmpty == true, "the removal ends the idle answer and the list is gone")
        #expect(after.pages["tasks"]?.rows.isEmpty == true)
    }

    @Test func anOlderBuildKeepsItsOwnStreamAndNeverSeesSharedRows() async throws {
        let alone = UUID()
        try await createList(alone, name: "not shared", as: owner)
        try await writeTask(title: "own", list: nil, as: owner)
        try await writeTask(title: "in the unshared list", list: alone, as: owner)
        try await writeTask(title: "shared", list: list, as: owner)
        try await writeTask(title: "the editor's", list: list, as: editor)
        let own = [TableCursor(SharingTables.tasks, after: 0), TableCursor(SharingTables.lists, after: 0)]
        let old = try await pull(nil, own: own, as: owner)
        #expect(old.scopes == nil)
        #expect(old.pages["tasks"]?.rows.map { $0["title"] } == [.text("own"), .text("in the unshared list")])
        #expect(old.pages["task_lists"]?.rows.map { $0["name"] } == [.text("not shared")])
        #expect(try await pull(nil, own: own, as: editor).pages["tasks"]?.rows.isEmpty == true)
        // The new shape: own rows in the pages, every list in the scopes.
        let new = try await pull([:], own: own, as: owner)
        #expect(new.pages["tasks"]?.rows.map { $0["title"] } == [.text("own")])
        #expect(new.pages["task_lists"]?.rows.isEmpty == true, "a scope row is in its own scope's stream")
        #expect(Set(new.scopes.map { Array($0.keys) } ?? []) == [list.lowercasedString, alone.lowercasedString])
        #expect(new.scopes?[list.lowercasedString]?.role == .owner)
    }

    @Test func joiningReadsTheListsOlderRowsFromZero() async throws {
        let early = try await writeTask(title: "early", list: list, as: owner)
        try await writeTask(title: "own", list: nil, as: outsider)
        try await writeTask(title: "later own", list: nil, as: outsider)
        let before = try await pull([:], own: [TableCursor(SharingTables.tasks, after: 0)], as: outsider)
        let cursor = try #require(before.pages["tasks"]?.lastServerSeq)
        try await change(list, outsider, .viewer, as: owner)
        let after = try await pull([:], own: [TableCursor(SharingTables.tasks, after: cursor)], as: outsider)
        let joined = try #require(after.scopes?[list.lowercasedString])
        #expect(joined.pages["tasks"]?.rows.map { $0["id"] } == [early.syncText], "a row older than every cursor the device holds")
        #expect(joined.pages["task_lists"]?.rows.count == 1)
        #expect(joined.pages["task_lists_members"]?.rows.count == 4)
        #expect(joined.pages["task_photos"]?.rows.isEmpty == true)
    }

    @Test func aMovedRowLeavesAnExitInTheStreamItLeft() async throws {
        let second = UUID()
        try await createList(second, name: "second", as: owner)
        try await change(second, editor, .editor, as: owner)
        let task = try await writeTask(title: "milk", list: list, as: owner)
        let photo = UUID()
        try await server.upsert(
            [SharingTables.photo(photo, task: task, list: nil, by: editor.userID, updated: 10)], into: SharingTables.photos, as: editor)
        let seen = try #require(try await pull([:], as: viewer).scopes?[list.lowercasedString])
        let cursors = [
            TableCursor(SharingTables.tasks, after: seen.pages["tasks"]?.lastServerSeq ?? 0),
            TableCursor(SharingTables.photos, after: seen.pages["task_photos"]?.lastServerSeq ?? 0),
        ]
        try await writeTask(task, title: "milk", list: second, as: editor)
        #expect(await stored("task_photos", photo)?["list_id"] == second.syncText, "a follower moves with its row")
        let after = try #require(try await pull([list.lowercasedString: cursors], as: viewer).scopes?[list.lowercasedString])
        #expect(after.pages["tasks"]?.exits.map(\.id) == [task.lowercasedString] && after.pages["tasks"]?.rows.isEmpty == true)
        #expect(after.pages["task_photos"]?.exits.map(\.id) == [photo.lowercasedString])
        #expect(after.pages.keys.sorted() == ["task_photos", "tasks"], "the tables the entry names")
        let editorView = try #require(try await pull([:], as: editor).scopes?[second.lowercasedString])
        #expect(editorView.pages["tasks"]?.rows.map { $0["id"] } == [task.syncText])
        // Out of the list into own rows: the mover's, with an exit in the list it left.
        try await writeTask(task, title: "milk", list: nil, as: editor)
        #expect(await stored("tasks", task)?["user_id"] == editor.userID.syncText)
        #expect(
            await server.exits.filter { $0.id == task.lowercasedString }.map { $0.scope } == [
                list.lowercasedString, second.lowercasedString,
            ])
        // Back into a list: an exit in the editor's own stream, paged with their own rows, one
        // limit for both.
        let own = [TableCursor(SharingTables.tasks, after: 0)]
        try await writeTask(task, title: "milk", list: list, as: editor)
        let ownPage = try #require(try await pull([:], own: own, as: editor).pages["tasks"])
        #expect(ownPage.exits.map(\.id) == [task.lowercasedString] && ownPage.rows.isEmpty && ownPage.receivedCount == 1)
        try await writeTask(title: "own", list: nil, as: editor)
        let limited = try #require(try await pull([:], own: own, limit: 1, as: editor).pages["tasks"])
        #expect(limited.receivedCount == 1 && limited.exits.count == 1 && limited.rows.isEmpty)
    }

    @Test func marksFanOutToTheScopesMembersAndTheUserConcerned() async throws {
        let own = [TableCursor(SharingTables.tasks, after: 0)]
        var marks: [UUID: Int64] = [:]
        for user in [owner, editor, viewer, outsider] { marks[user.userID] = try await pull([:], own: own, as: user).mark }
        try await writeTask(title: "a", list: list, as: editor)
        for user in [owner, editor, viewer] {
            let next = try await pull([:], own: own, since: marks[user.userID], as: user)
            #expect(next.scopes?[list.lowercasedString]?.pages["tasks"]?.rows.count == 1, "a member's next pull is not idle")
        }
        let idle = try await pull([:], own: own, since: marks[outsider.userID], as: outsider)
        #expect(idle.scopes == nil && idle.pages.isEmpty, "an outsider's stays idle")
        // A membership change marks the user concerned.
        try await change(list, outsider, .viewer, as: owner)
        let joined = try await pull([:], own: own, since: marks[outsider.userID], as: outsider)
        #expect(joined.scopes?[list.lowercasedString]?.role == .viewer)
    }
}

extension UUID {
    /// The id as the server stores it: lowercase text.
    var syncText: SyncValue { .text(lowercasedString) }
}
