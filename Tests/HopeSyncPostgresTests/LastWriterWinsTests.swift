import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

@Suite struct LastWriterWinsTests {
    let server: ServerDatabase
    let user = UUID()
    let id = UUID()

    init() throws {
        server = try ServerDatabase.make()
        #expect(try server.upsert("activities", as: user, [activity(id, user: user, name: "first", updatedMs: 100, device: "b")]) == 1)
    }

    private func stored() throws -> (name: String?, seq: Int, updatedMs: String?, device: String?, deleted: String?) {
        let row = try #require(try server.row("activities", id))
        return (row["name"], Int(row["server_seq"] ?? "") ?? -1, row["updated_ms"], row["device_id"], row["deleted_ms"])
    }

    @Test func anOlderPairIsDiscarded() throws {
        let before = try stored()
        #expect(try server.upsert("activities", as: user, [activity(id, user: user, name: "older", updatedMs: 99, device: "z")]) == 0)
        let after = try stored()
        #expect(after.name == "first")
        #expect(after.seq == before.seq)
    }

    @Test func anEqualPairIsDiscardedSoARepeatedPushIsANoOp() throws {
        let before = try stored()
        #expect(try server.upsert("activities", as: user, [activity(id, user: user, name: "repeat", updatedMs: 100, device: "b")]) == 0)
        #expect(try stored().name == "first")
        #expect(try stored().seq == before.seq)
    }

    @Test func aNewerPairIsAppliedWithALargerServerSeq() throws {
        let before = try stored()
        #expect(try server.upsert("activities", as: user, [activity(id, user: user, name: "newer", updatedMs: 101, device: "a")]) == 1)
        let after = try stored()
        #expect(after.name == "newer")
        #expect(after.seq > before.seq)
    }

    @Test func theSameMillisecondGoesToTheLargerDeviceId() throws {
        #expect(try server.upsert("activities", as: user, [activity(id, user: user, name: "smaller", updatedMs: 100, device: "a")]) == 0)
        #expect(try server.upsert("activities", as: user, [activity(id, user: user, name: "larger", updatedMs: 100, device: "c")]) == 1)
        #expect(try stored().name == "larger")
        // Bytewise, as devices compare: "B" (0x42) sorts before "a" (0x61) whatever the locale.
        #expect(try server.upsert("activities", as: user, [activity(id, user: user, name: "upper", updatedMs: 100, device: "D")]) == 0)
    }

    @Test func aSoftDeleteLosesToANewerEdit() throws {
        try server.upsert("activities", as: user, [activity(id, user: user, name: "edited", updatedMs: 200, device: "b")])
        #expect(
            try server.upsert(
                "activities", as: user, [activity(id, user: user, name: "first", updatedMs: 150, device: "c", deletedMs: 150)]) == 0)
        #expect(try stored().deleted == nil)
        #expect(try stored().name == "edited")
        // A delete newer than the edit wins like any write.
        #expect(
            try server.upsert(
                "activities", as: user, [activity(id, user: user, name: "edited", updatedMs: 201, device: "c", deletedMs: 201)]) == 1)
        #expect(try stored().deleted == "201")
    }

    @Test func aClientSentServerSeqIsIgnored() throws {
        try server.upsert("activities", as: user, [activity(id, user: user, name: "x", updatedMs: 300, serverSeq: 999_999)])
        let other = UUID()
        try server.upsert("activities", as: user, [activity(other, user: user, name: "y", updatedMs: 1, serverSeq: 5)])
        #expect(try stored().seq != 999_999)
        let seqs = try server.connection.execute("select server_seq from public.activities order by server_seq").rows.map { $0[0] }
        #expect(!seqs.contains("5") && !seqs.contains("999999"))
    }

    @Test func serverSeqStrictlyIncreasesForAcceptedWritesOnly() throws {
        var last = try stored().seq
        for (updatedMs, accepted) in [(105, true), (104, false), (105, false), (110, true), (111, true), (90, false)] {
            let changed = try server.upsert(
                "activities", as: user, [activity(id, user: user, name: "v\(updatedMs)", updatedMs: updatedMs, device: "b")])
            let seq = try stored().seq
            #expect(changed == (accepted ? 1 : 0))
            if accepted { #expect(seq > last) } else { #expect(seq == last) }
            last = seq
        }
    }

    @Test func aBatchUpsertDecidesEachRowAlone() throws {
        let second = UUID()
        let third = UUID()
        try server.upsert("activities", as: user, [activity(second, user: user, name: "second", updatedMs: 500, device: "b")])
        let seqBefore = try #require(Int(try server.row("activities", second)?["server_seq"] ?? ""))
        let changed = try server.upsert(
            "activities", as: user,
            [
                activity(id, user: user, name: "first newer", updatedMs: 101, device: "b"),
                activity(second, user: user, name: "second older", updatedMs: 499, device: "b"),
                activity(third, user: user, name: "third new", updatedMs: 1, device: "b"),
            ])
        #expect(changed == 2)
        #expect(try stored().name == "first newer")
        #expect(try server.row("activities", second)?["name"] == "second")
        #expect(try server.row("activities", second)?["server_seq"] == String(seqBefore))
        #expect(try server.row("activities", third)?["name"] == "third new")
    }

    @Test func aPlainUpdateFollowsTheSameRule() throws {
        let older = try server.connection.request(asUser: user) {
            try $0.execute("update public.activities set name = 'patched', updated_ms = 50 where id = $1", [id.text]).affectedRows
        }
        #expect(older == 0)
        let newer = try server.connection.request(asUser: user) {
            try $0.execute("update public.activities set name = 'patched', updated_ms = 150 where id = $1", [id.text]).affectedRows
        }
        #expect(newer == 1)
        #expect(try stored().name == "patched")
    }
}
