import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import Testing

/// The stamp of a pair as docs/PROTOCOL.md writes it: updated_ms in 15 digits, `:`, device id.
func stamp(_ ms: Int, _ device: String) -> String {
    let digits = String(ms)
    return String(repeating: "0", count: max(0, 15 - digits.count)) + digits + ":" + device
}

/// A device's copy of one row under column merge: its values and each column's stamp. Edits
/// stamp only the columns they change; the row's pair is its newest stamp.
struct DeviceCopy {
    var values: [String: String?]
    var stamps: [String: String]

    /// A row that `device` wrote whole at `ms`: every stamped column carries that pair.
    init(_ values: [String: String?], stamped: [String], at ms: Int, by device: String) {
        self.values = values
        stamps = Dictionary(uniqueKeysWithValues: stamped.map { ($0, stamp(ms, device)) })
        self.values["updated_ms"] = String(ms)
        self.values["device_id"] = device
    }

    /// Sets `column` at the pair (ms, device).
    func setting(_ column: String, to value: String?, at ms: Int, by device: String) -> DeviceCopy {
        var copy = self
        copy.values[column] = value
        copy.stamps[column] = stamp(ms, device)
        let newest = copy.stamps.values.max()!
        copy.values["updated_ms"] = String(Int(newest.prefix(15))!)
        copy.values["device_id"] = String(newest.dropFirst(16))
        return copy
    }

    /// The row as the device pushes it: every column it holds, and its stamps.
    var row: [String: String?] {
        var row = values
        row["column_stamps"] = jsonObject(stamps)
        return row
    }
}

func jsonObject(_ stamps: [String: String]) -> String {
    let data = try! JSONSerialization.data(withJSONObject: stamps, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
}

/// The server's stamps of a row, decoded.
func storedStamps(_ server: ServerDatabase, _ table: String, _ id: UUID) throws -> [String: String]? {
    guard
        let text = try server.connection.execute(
            "select column_stamps::text from public.\(table) where id = $1", [id.text]
        ).scalar
    else { return nil }
    return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
}

/// lww tables merge column by column (docs/PROTOCOL.md): every column is its own register on
/// (updated_ms, device_id), whatever order the writes reach the server in. Requests are made
/// the way PostgREST makes them (merge-duplicates upserts, as the signed-in user).
@Suite struct ColumnMergeTests {
    let user = UUID()
    let id = UUID()
    static let activityStamped = ["name", "color", "archived", "sort_order", "metadata", "deleted_ms"]
    static let sessionStamped = ["activity_id", "started_ms", "ended_ms", "note", "source", "tag", "deleted_ms"]

    /// activities' row as device "a" first wrote it at 100.
    var baseActivity: DeviceCopy {
        DeviceCopy(activity(id, user: user, name: "Work", updatedMs: 100, device: "a"), stamped: Self.activityStamped, at: 100, by: "a")
    }

    /// A sessions row started at 1000 and still running, as device "a" wrote it at 1000.
    var baseSession: DeviceCopy {
        var values = session(id, user: user, start: 1_000, updatedMs: 1_000, device: "a")
        values["tag"] = "plain"
        return DeviceCopy(values, stamped: Self.sessionStamped, at: 1_000, by: "a")
    }

    /// The row's user-visible content and pair, without server_seq.
    func content(_ server: ServerDatabase, _ table: String) throws -> [String: String?] {
        let result = try server.connection.execute("select * from public.\(table) where id = $1", [id.text])
        var row = Dictionary(uniqueKeysWithValues: zip(result.columns, try #require(result.rows.first).values))
        row["server_seq"] = nil
        row["column_stamps"] = nil
        return row
    }

    func seq(_ server: ServerDatabase, _ table: String) throws -> Int {
        let text = try #require(try server.row(table, id)?["server_seq"])
        return try #require(Int(text))
    }

    /// Pushes `base`, then `writes` in the given order, each as its own request, on a fresh database.
    func replay(_ table: String, base: DeviceCopy, _ writes: [DeviceCopy], schema: Schema = TestSchema.current) throws -> ServerDatabase {
        let server = try ServerDatabase.make(schema)
        try server.upsert(table, as: user, [base.row])
        for write in writes {
            try server.upsert(table, as: user, [write.row])
        }
        return server
    }

    // (a) The watch stops the timer at an older pair; the desk edits the note at a newer one.
    @Test func theStoppedTimerAndTheNoteBothSurviveInEitherOrder() throws {
        let watch = baseSession.setting("ended_ms", to: "1500", at: 2_000, by: "watch")
        let desk = baseSession.setting("note", to: "standup", at: 3_000, by: "desk")
        var results: [[String: String?]] = []
        for order in [[watch, desk], [desk, watch]] {
            let server = try replay("sessions", base: baseSession, order)
            let row = try content(server, "sessions")
            #expect(row["ended_ms"] == "1500")
            #expect(row["note"] == "standup")
            #expect(row["updated_ms"] == "3000")
            #expect(row["device_id"] == "desk")
            let stamps = try #require(try storedStamps(server, "sessions", id))
            #expect(stamps["ended_ms"] == stamp(2_000, "watch"))
            #expect(stamps["note"] == stamp(3_000, "desk"))
            #expect(stamps["started_ms"] == stamp(1_000, "a"))
            results.append(row)
        }
        #expect(results[0] == results[1])
    }

    // (b) Rename on one device, recolour on another.
    @Test func theRenameAndTheRecolourBothSurviveInEitherOrder() throws {
        let phone = baseActivity.setting("name", to: "Deep work", at: 200, by: "phone")
        let tablet = baseActivity.setting("color", to: "#FF0000", at: 300, by: "tablet")
        var results: [[String: String?]] = []
        for order in [[phone, tablet], [tablet, phone]] {
            let server = try replay("activities", base: baseActivity, order)
            let row = try content(server, "activities")
            #expect(row["name"] == "Deep work")
            #expect(row["color"] == "#FF0000")
            #expect(row["updated_ms"] == "300")
            #expect(row["device_id"] == "tablet")
            results.append(row)
        }
        #expect(results[0] == results[1])
    }

    // (c) The same column on both: the larger pair wins, in both orders.
    @Test func theSameColumnGoesToTheLargerPairInEitherOrder() throws {
        let cases: [(older: DeviceCopy, newer: DeviceCopy)] = [
            (baseActivity.setting("name", to: "older", at: 200, by: "z"), baseActivity.setting("name", to: "newer", at: 300, by: "a")),
            // The same millisecond: the bytewise-larger device id ("a" is 0x61, "D" is 0x44).
            (baseActivity.setting("name", to: "upper", at: 200, by: "D"), baseActivity.setting("name", to: "lower", at: 200, by: "a")),
        ]
        for (older, newer) in cases {
            for newerFirst in [true, false] {
                let server = try ServerDatabase.make()
                try server.upsert("activities", as: user, [baseActivity.row])
                let first = newerFirst ? newer : older
                let second = newerFirst ? older : newer
                #expect(try server.upsert("activities", as: user, [first.row]) == 1)
                // The older write arriving second changes nothing at all.
                #expect(try server.upsert("activities", as: user, [second.row]) == (newerFirst ? 0 : 1))
                let row = try content(server, "activities")
                #expect(row["name"] == newer.values["name"]!, "newer first: \(newerFirst)")
                #expect(try storedStamps(server, "activities", id)?["name"] == newer.stamps["name"])
                #expect(row["updated_ms"] == newer.values["updated_ms"]!)
                #expect(row["device_id"] == newer.values["device_id"]!)
            }
        }
    }

    // (d) A delete against an edit of another column.
    @Test func anEditNewerThanTheDeleteBringsTheRowBackMerged() throws {
        let delete = baseActivity.setting("deleted_ms", to: "200", at: 200, by: "x")
            .setting("name", to: "renamed before deleting", at: 190, by: "x")
        let edit = baseActivity.setting("color", to: "#00FF00", at: 300, by: "y")
        var results: [[String: String?]] = []
        for order in [[delete, edit], [edit, delete]] {
            let server = try replay("activities", base: baseActivity, order)
            let row = try content(server, "activities")
            #expect(row["deleted_ms"] == .some(nil))
            #expect(row["color"] == "#00FF00")
            #expect(row["name"] == "renamed before deleting")
            let stamps = try #require(try storedStamps(server, "activities", id))
            // The delete lost to the newer write, and its register says so.
            #expect(stamps["deleted_ms"] == stamp(300, "y"))
            #expect(stamps["name"] == stamp(190, "x"))
            #expect(row["updated_ms"] == "300")
            results.append(row)
        }
        #expect(results[0] == results[1])
    }

    @Test func anEditOlderThanTheDeleteLeavesItDeletedButMerged() throws {
        let delete = baseActivity.setting("deleted_ms", to: "200", at: 200, by: "x")
        let edit = baseActivity.setting("color", to: "#00FF00", at: 150, by: "y")
        var results: [[String: String?]] = []
        for order in [[delete, edit], [edit, delete]] {
            let server = try replay("activities", base: baseActivity, order)
            let row = try content(server, "activities")
            #expect(row["deleted_ms"] == "200")
            #expect(row["color"] == "#00FF00")
            let stamps = try #require(try storedStamps(server, "activities", id))
            #expect(stamps["deleted_ms"] == stamp(200, "x"))
            #expect(stamps["color"] == stamp(150, "y"))
            #expect(row["updated_ms"] == "200")
            #expect(row["device_id"] == "x")
            results.append(row)
        }
        #expect(results[0] == results[1])
    }

    // (e) Repeats and older pushes are no-ops: no change, no new server_seq.
    @Test func aRepeatedOrOlderPushChangesNothing() throws {
        let server = try ServerDatabase.make()
        try server.upsert("activities", as: user, [baseActivity.row])
        // A row whose columns carry different stamps, as most rows do.
        let edited = baseActivity.setting("name", to: "renamed", at: 200, by: "b")
            .setting("archived", to: "true", at: 250, by: "c")
        #expect(try server.upsert("activities", as: user, [edited.row]) == 1)
        let seqBefore = try seq(server, "activities")
        let rowBefore = try content(server, "activities")
        let stampsBefore = try storedStamps(server, "activities", id)
        #expect(stampsBefore?["name"] == stamp(200, "b"))
        #expect(stampsBefore?["color"] == stamp(100, "a"))

        // The answer was lost: the device sends the same row again.
        #expect(try server.upsert("activities", as: user, [edited.row]) == 0)
        // An older copy (every stamp at or below the stored ones).
        let older = baseActivity.setting("name", to: "stale", at: 150, by: "b")
        #expect(try server.upsert("activities", as: user, [older.row]) == 0)
        // The base row itself, once more.
        #expect(try server.upsert("activities", as: user, [baseActivity.row]) == 0)

        #expect(try seq(server, "activities") == seqBefore)
        #expect(try content(server, "activities") == rowBefore)
        #expect(try storedStamps(server, "activities", id) == stampsBefore)
    }

    // (f) The seed's whole-row protocol: no column_stamps in the payload at all.
    @Test func aWholeRowClientSetsEveryColumnAtItsPair() throws {
        let server = try ServerDatabase.make()
        // Insert: PostgREST leaves column_stamps out of the statement.
        try server.upsert("activities", as: user, [activity(id, user: user, name: "whole", updatedMs: 400, device: "w")])
        let inserted = try #require(try storedStamps(server, "activities", id))
        #expect(inserted == Dictionary(uniqueKeysWithValues: Self.activityStamped.map { ($0, stamp(400, "w")) }))

        // A device with stamps renames at 600; a whole-row client writes at 500 (name and color).
        let renamed = DeviceCopy(
            activity(id, user: user, name: "whole", updatedMs: 400, device: "w"), stamped: Self.activityStamped, at: 400, by: "w"
        )
        .setting("name", to: "renamed", at: 600, by: "s")
        #expect(try server.upsert("activities", as: user, [renamed.row]) == 1)
        var whole = activity(id, user: user, name: "whole again", updatedMs: 500, device: "w")
        whole["color"] = "#123456"
        #expect(try server.upsert("activities", as: user, [whole]) == 1)
        let row = try content(server, "activities")
        #expect(row["name"] == "renamed") // 600 beats the whole-row client's 500
        #expect(row["color"] == "#123456") // 500 beats 400
        let stamps = try #require(try storedStamps(server, "activities", id))
        #expect(stamps["name"] == stamp(600, "s"))
        for column in Self.activityStamped where column != "name" {
            #expect(stamps[column] == stamp(500, "w"), "\(column)")
        }
        #expect(row["updated_ms"] == "600" && row["device_id"] == "s")
        // Its repeat changes nothing.
        let before = try seq(server, "activities")
        #expect(try server.upsert("activities", as: user, [whole]) == 0)
        #expect(try seq(server, "activities") == before)
    }

    @Test func aRowStoredWithoutStampsCountsItsPairForEveryColumn() throws {
        let server = try ServerDatabase.make()
        try server.upsert("activities", as: user, [activity(id, user: user, name: "legacy", updatedMs: 400, device: "old")])
        // As if written before the table had stamps (no trigger runs in replica mode).
        try server.connection.transaction { connection in
            try connection.execute("set local session_replication_role = replica")
            try connection.execute("update public.activities set column_stamps = null where id = $1", [id.text])
        }
        #expect(try storedStamps(server, "activities", id) == nil)
        // A stamped device that never had stamps for this row: an older rename, a newer recolour.
        let device = DeviceCopy(activity(id, user: user, name: "legacy", updatedMs: 400, device: "old"), stamped: [], at: 0, by: "")
            .setting("name", to: "older rename", at: 300, by: "z")
        #expect(try server.upsert("activities", as: user, [device.row]) == 0)
        let newer = device.setting("color", to: "#ABCDEF", at: 500, by: "z")
        #expect(try server.upsert("activities", as: user, [newer.row]) == 1)
        let row = try content(server, "activities")
        #expect(row["name"] == "legacy")
        #expect(row["color"] == "#ABCDEF")
        let stamps = try #require(try storedStamps(server, "activities", id))
        #expect(stamps["color"] == stamp(500, "z"))
        for column in Self.activityStamped where column != "color" {
            #expect(stamps[column] == stamp(400, "old"), "\(column)")
        }

        // A whole-row client over a stampless row: its pair against the stored pair, per column.
        let other = UUID()
        try server.upsert("activities", as: user, [activity(other, user: user, name: "legacy", updatedMs: 400, device: "old")])
        try server.connection.transaction { connection in
            try connection.execute("set local session_replication_role = replica")
            try connection.execute("update public.activities set column_stamps = null where id = $1", [other.text])
        }
        #expect(try server.upsert("activities", as: user, [activity(other, user: user, name: "older", updatedMs: 399, device: "w")]) == 0)
        #expect(try server.upsert("activities", as: user, [activity(other, user: user, name: "newer", updatedMs: 401, device: "w")]) == 1)
        #expect(try server.row("activities", other)?["name"] == "newer")
    }

    // (g) A device on an older schema (no tag) never blanks the newer column.
    @Test func aClientOnAnOlderSchemaNeverBlanksANewerColumn() throws {
        let v2 = baseSession.setting("tag", to: "focus", at: 2_000, by: "v2")
        // The v1 device's copy: no tag column, no tag stamp; it edits the note later.
        var v1 = baseSession.setting("note", to: "from v1", at: 3_000, by: "v1")
        v1.values["tag"] = nil
        v1.stamps["tag"] = nil
        #expect(v1.row.keys.contains("tag") == false)
        for order in [[v2, v1], [v1, v2]] {
            let server = try replay("sessions", base: baseSession, order)
            let row = try content(server, "sessions")
            #expect(row["tag"] == "focus")
            #expect(row["note"] == "from v1")
            #expect(try storedStamps(server, "sessions", id)?["tag"] == stamp(2_000, "v2"))
        }
        // A whole-row client on the older schema, after the newer column was set: its write keeps it.
        let server = try replay("sessions", base: baseSession, [v2])
        var whole = session(id, user: user, start: 1_000, updatedMs: 4_000, device: "w")
        whole["note"] = "whole row"
        try server.upsert("sessions", as: user, [whole])
        let row = try content(server, "sessions")
        #expect(row["tag"] == "focus")
        #expect(row["note"] == "whole row")
    }

    // (h) The one-open-row close is the server's own write.
    @Test func theServersCloseHasItsOwnDeviceIdAndAStampPastTheEnd() throws {
        for newcomerMs in [500, 9_000] {
            let server = try ServerDatabase.make()
            // The running session, its end last stamped by the phone at 2000.
            let running = baseSession.setting("ended_ms", to: nil, at: 2_000, by: "phone")
            try server.upsert("sessions", as: user, [running.row])
            let before = try seq(server, "sessions")
            let newcomer = UUID()
            let newer = DeviceCopy(
                session(newcomer, user: user, start: 5_000, updatedMs: newcomerMs, device: "watch"),
                stamped: Self.sessionStamped, at: newcomerMs, by: "watch")
            try server.upsert("sessions", as: user, [newer.row])
            let closed = try content(server, "sessions")
            #expect(closed["ended_ms"] == "5000")
            let endStamp = try #require(try storedStamps(server, "sessions", id)?["ended_ms"])
            #expect(endStamp == stamp(max(2_001, newcomerMs), ""))
            #expect(endStamp > stamp(2_000, "phone"))
            #expect(closed["device_id"] == "")
            #expect(closed["updated_ms"] == String(max(2_001, newcomerMs)))
            #expect(try seq(server, "sessions") > before)
            // A device's own write in the same millisecond is a different, larger pair: it is kept.
            let phone = running.setting("ended_ms", to: "4000", at: max(2_001, newcomerMs), by: "phone")
            #expect(try server.upsert("sessions", as: user, [phone.row]) == 1)
            #expect(try content(server, "sessions")["ended_ms"] == "4000")
        }
    }

    @Test func aLateOpenRowIsClosedWithAStampPastItsSender() throws {
        let server = try ServerDatabase.make()
        let later = UUID()
        try server.upsert("sessions", as: user, [session(later, user: user, start: 5_000, updatedMs: 10, device: "watch")])
        // Arrives late, still open, its end last stamped at 3000 by the phone.
        let late = baseSession.setting("ended_ms", to: nil, at: 3_000, by: "phone")
        try server.upsert("sessions", as: user, [late.row])
        let row = try content(server, "sessions")
        #expect(row["ended_ms"] == "5000")
        let endStamp = try #require(try storedStamps(server, "sessions", id)?["ended_ms"])
        #expect(endStamp == stamp(3_001, ""))
        #expect(row["updated_ms"] == "3001" && row["device_id"] == "")
        // The sender's copy, pushed again, does not undo the close.
        #expect(try server.upsert("sessions", as: user, [late.row]) == 0)
        #expect(try content(server, "sessions")["ended_ms"] == "5000")
    }

    /// A whole-row client reopens a session that a later-started one makes the server close again:
    /// its columns keep its own pair, only the close is the server's.
    @Test func aWholeRowReopeningKeepsItsPairAndTheCloseIsTheServers() throws {
        let server = try ServerDatabase.make()
        try server.upsert("sessions", as: user, [session(id, user: user, start: 1_000, end: 1_500, updatedMs: 1_000, device: "a")])
        try server.upsert("sessions", as: user, [session(UUID(), user: user, start: 5_000, updatedMs: 1_100, device: "b")])
        var reopen = session(id, user: user, start: 1_000, updatedMs: 2_000, device: "w")
        reopen["note"] = "reopened"
        #expect(try server.upsert("sessions", as: user, [reopen]) == 1)
        let row = try content(server, "sessions")
        #expect(row["ended_ms"] == "5000")
        #expect(row["note"] == "reopened")
        let stamps = try #require(try storedStamps(server, "sessions", id))
        #expect(stamps["note"] == stamp(2_000, "w"))
        #expect(stamps["started_ms"] == stamp(2_000, "w"))
        #expect(stamps["ended_ms"] == stamp(2_001, ""))
        #expect(row["updated_ms"] == "2001" && row["device_id"] == "")
        // Its repeat changes nothing.
        #expect(try server.upsert("sessions", as: user, [reopen]) == 0)
    }

    // (i) What is not a stamp is refused.
    /// One device whose clock is far ahead cannot win a column for good: a claim more
    /// than a day past the server's clock is refused (22008), on an update and on a new row, in
    /// both merge modes; a claim an hour ahead still lands.
    @Test func aStampMoreThanADayAheadOfTheServerIsRefused() throws {
        let server = try ServerDatabase.make()
        try server.upsert("activities", as: user, [baseActivity.row])
        let now = Int(Date().timeIntervalSince1970 * 1_000)
        func sqlState(_ row: [String: String?]) -> String? { server.refusal(upserting: row, into: "activities", as: user) }
        let yearAhead = now + 365 * 86_400_000
        #expect(sqlState(baseActivity.setting("color", to: "#222222", at: yearAhead, by: "b").row) == "22008")
        var fresh = baseActivity.setting("color", to: "#222222", at: yearAhead, by: "b")
        fresh.values["id"] = UUID().text
        #expect(sqlState(fresh.row) == "22008")
        #expect(sqlState(baseActivity.setting("color", to: "#333333", at: now + 3_600_000, by: "b").row) == nil)
    }

    /// JSON nested deeper than the devices read (256 levels) is refused on the server
    /// too, so no client can store a value the others cannot read.
    @Test func jsonNestedDeeperThanDevicesReadIsRefused() throws {
        let server = try ServerDatabase.make()
        func sqlState(depth: Int) -> String? {
            var row = baseActivity.setting(
                "metadata", to: String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth), at: 300, by: "b"
            ).row
            row["id"] = UUID().text
            return server.refusal(upserting: row, into: "activities", as: user)
        }
        #expect(sqlState(depth: 200) == nil)
        #expect(sqlState(depth: 300) == "22023")
    }

    @Test func malformedStampsAndOutOfRangeMillisecondsAreRefused() throws {
        let server = try ServerDatabase.make()
        try server.upsert("activities", as: user, [baseActivity.row])
        func refusal(_ row: [String: String?]) -> String? { server.refusal(upserting: row, into: "activities", as: user) }
        for ms in [-1, 1_000_000_000_000_000] {
            var row = baseActivity.row
            row["updated_ms"] = String(ms)
            #expect(refusal(row) == "22003", "updated_ms \(ms)")
            var fresh = row
            fresh["id"] = UUID().text
            #expect(refusal(fresh) == "22003", "new row, updated_ms \(ms)")
        }
        // Each sorts above the stored stamp, so it would be taken.
        let winning = [
            "garbage", "9", "00000000000300:a", "000000000000300a", "000000000000x00:a", "1000000000000000:a",
        ]
        // Each sorts below any real stamp: taken only by a new row.
        let losing = ["", "0", "-00000000000300:a", "+00000000000300:a", " 00000000000300:a"]
        for bad in winning + losing {
            var copy = baseActivity.setting("color", to: "#111111", at: 300, by: "b")
            copy.stamps["name"] = bad
            if winning.contains(bad) {
                #expect(refusal(copy.row) == "22P02", "update, stamp '\(bad)'")
            }
            copy.values["id"] = UUID().text
            #expect(refusal(copy.row) == "22P02", "insert, stamp '\(bad)'")
        }
        var notAnObject = baseActivity.row
        notAnObject["column_stamps"] = "[]"
        #expect(refusal(notAnObject) == "22P02")
        notAnObject["id"] = UUID().text
        #expect(refusal(notAnObject) == "22P02")
        // A plain update (PostgREST's PATCH) is held to the same rules.
        func patchRefusal(_ assignments: String) -> String? {
            do {
                try server.connection.request(asUser: user) {
                    try $0.execute("update public.activities set \(assignments) where id = $1", [id.text])
                }
                return nil
            } catch let error as PostgresError {
                return error.sqlState
            } catch {
                return "\(error)"
            }
        }
        #expect(patchRefusal("column_stamps = '[]', updated_ms = 500") == "22P02")
        #expect(patchRefusal(#"name = 'x', column_stamps = '{"name": "999"}', updated_ms = 500"#) == "22P02")
        #expect(patchRefusal("updated_ms = -5") == "22003")
        // Nothing refused was stored.
        #expect(try server.connection.execute("select count(*) from public.activities").scalar == "1")
        #expect(try content(server, "activities")["name"] == "Work")
    }

    // (j) merge: row keeps the seed's whole-row rule.
    @Test func aRowMergeTableKeepsTheWholeRowRule() throws {
        var table = TestSchema.activities
        table.merge = .row
        let schema = Schema(tables: [table])
        let server = try ServerDatabase.make(schema)
        #expect(
            try server.connection.execute(
                "select count(*) from information_schema.columns where table_name = 'activities' and column_name = 'column_stamps'"
            ).scalar == "0")
        try server.upsert("activities", as: user, [activity(id, user: user, name: "Work", updatedMs: 100, device: "a")])
        var rename = activity(id, user: user, name: "Deep work", updatedMs: 200, device: "phone")
        rename["color"] = "#000000"
        var recolour = activity(id, user: user, name: "Work", updatedMs: 300, device: "tablet")
        recolour["color"] = "#FF0000"
        for order in [[rename, recolour], [recolour, rename]] {
            let server = try ServerDatabase.make(schema)
            try server.upsert("activities", as: user, [activity(id, user: user, name: "Work", updatedMs: 100, device: "a")])
            for write in order { try server.upsert("activities", as: user, [write]) }
            let row = try content(server, "activities")
            // The later writer's whole row: the rename is gone.
            #expect(row["name"] == "Work")
            #expect(row["color"] == "#FF0000")
            #expect(row["updated_ms"] == "300" && row["device_id"] == "tablet")
        }
    }
}
