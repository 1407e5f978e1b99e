import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// One bad row never stops the rest; values the server or another device could not
/// hold exactly are refused at save with the column named; a store file knows its owner; a far
/// future stamp cannot trap or drag the clock along.
@Suite struct BadInputTests {
    let user = UUID()
    let server = InMemoryServer.hope()

    @Test func aRowTheServerFailsAloneWith500GoesAsideAndTheRestSync() async throws {
        let (a, b) = (try TestDevice("a", user: user, transport: server), try TestDevice("b", user: user, transport: server))
        let elsewhere = try await b.store.write { try $0.save(Activity(name: "From b")) }
        try await b.sync()
        await server.refuseRows(in: "activities", with: ServerError(status: 500, code: "XX000", message: "trigger failed")) {
            $0["name"] == .text("Poison")
        }
        try await a.store.write { tx in
            try tx.save(Activity(name: "Poison"))
            for index in 0..<5 { try tx.save(Activity(name: "Fine \(index)")) }
            try tx.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2))
        }
        let report = try await a.sync()
        #expect(report.pushed == 6 && report.rejected == 1)
        // The pull ran too: b's row arrived.
        #expect(try await a.store.read { try $0.fetchOne(Activity.self, id: elsewhere.id) } != nil)
        let entry = try #require(try a.store.rejectedMutations().first)
        #expect(entry.serverError?.status == 500 && entry.table == "activities")
        // Visible and discardable: dismissing it restores the server's copy (none: the row goes).
        try a.store.dismissRejectedMutation(id: entry.id)
        try await a.sync()
        #expect(try await a.store.read { try $0.fetchAll(Activity.self) }.map(\.name).contains("Poison") == false)
    }

    @Test func aFailureEveryRowMeetsKeepsThemQueuedAndStillPulls() async throws {
        let (a, b) = (try TestDevice("a", user: user, transport: server), try TestDevice("b", user: user, transport: server))
        let elsewhere = try await b.store.write { try $0.save(Activity(name: "From b")) }
        try await b.sync()
        await server.refuseRows(in: "activities", with: ServerError(status: 500, code: "XX000", message: "broken")) { _ in true }
        try await a.store.write { tx in for index in 0..<3 { try tx.save(Activity(name: "Mine \(index)")) } }
        await #expect { try await a.sync() } throws: { ($0 as? SyncError)?.serverError?.status == 500 }
        #expect(try a.dirtyCount() == 3)
        #expect(try a.store.rejectedMutations().isEmpty)
        #expect(try await a.store.read { try $0.fetchOne(Activity.self, id: elsewhere.id) } != nil)
    }

    @Test func aRowFailingAloneGoesAsideAfterThreePassesAndOtherTablesStillPush() async throws {
        let a = try TestDevice("a", user: user, transport: server)
        await server.refuseRows(in: "activities", with: ServerError(status: 500, code: "XX000", message: "trigger failed")) {
            $0["name"] == .text("Poison")
        }
        try await a.store.write { try $0.save(Activity(name: "Poison")) }
        for pass in 1...2 {
            try await a.store.write { try $0.save(Session(activityId: UUID(), startedMs: Int64(pass), endedMs: Int64(pass) + 1)) }
            await #expect(throws: SyncError.self) { try await a.sync() }
            #expect(await server.rows(of: "sessions").count == pass, "the sessions table still pushes")
            #expect(try a.store.rejectedMutations().isEmpty, "alone, it may be the server's fault: still queued")
        }
        let third = try await a.sync()
        #expect(third.rejected == 1)
        #expect(try a.store.rejectedMutations().first?.serverError?.status == 500)
        #expect(try a.dirtyCount() == 0)
    }

    @Test func valuesNoServerCouldHoldAreRefusedAtSaveNamingTheColumn() async throws {
        let a = try TestDevice("a", user: user, transport: server)
        func refusal(_ record: Activity) async -> String? {
            do {
                try await a.store.write { [record] in try $0.save(record) }
                return nil
            } catch let error as SyncError {
                return error.code == .invalidRequest ? error.message : "wrong code \(error.code)"
            } catch {
                return "\(error)"
            }
        }
        #expect(await refusal(Activity(name: "before\u{0}after"))?.contains("activities.name holds a NUL") == true)
        #expect(await refusal(Activity(name: "Work", sortOrder: .nan))?.contains("activities.sort_order is nan") == true)
        #expect(await refusal(Activity(name: "Work", sortOrder: .infinity))?.contains("activities.sort_order") == true)
        #expect(await refusal(Activity(name: "Work", metadata: "{not json"))?.contains("activities.metadata is not JSON") == true)
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(await refusal(Activity(name: "Work", metadata: deep))?.contains("deeper than 256") == true)
        // JSON that PostgreSQL's jsonb refuses: a NUL (refused as in text), lone surrogates, numbers beyond numeric.
        #expect(
            await refusal(Activity(name: "Work", metadata: #"{"k":"\u0000"}"#))
                == "activities.metadata holds a NUL character, which PostgreSQL text cannot store")
        #expect(await refusal(Activity(name: "Work", metadata: #"["\ud800"]"#))?.contains("expected a low surrogate at byte") == true)
        #expect(await refusal(Activity(name: "Work", metadata: #"["\udc00"]"#))?.contains("a low surrogate with no high surrogate") == true)
        for number in ["1e131072", "1E-16384", "0e1073741823"] {
            let message = await refusal(Activity(name: "Work", metadata: #"{"n":\#(number)}"#))
            #expect(message?.hasPrefix("activities.metadata holds a number beyond numeric's range") == true, "\(number)")
            #expect(message?.hasSuffix("at byte 5, which PostgreSQL's jsonb cannot store") == true, "\(number)")
        }
        #expect(try a.dirtyCount() == 0)
        // Kept exactly, in the canonical forms every device reads back.
        let saved = try await a.store.write { try $0.save(Activity(name: "Work", sortOrder: -0.0, metadata: #"{"b": 1, "a": [2]}"#)) }
        #expect(saved.metadata == #"{"a":[2],"b":1}"#)
        #expect(saved.sortOrder == 0 && saved.sortOrder.sign == .plus)
        // Numbers as jsonb prints them; a double column is no JSON and keeps its value.
        let numbers = try await a.store.write {
            try $0.save(Activity(name: "Numbers", sortOrder: 1e-7, metadata: #"{"e":1E+2,"neg":-0,"small":1e-7,"scale":1.50e-1}"#))
        }
        #expect(numbers.metadata == #"{"e":100,"neg":0,"scale":0.150,"small":0.0000001}"#)
        #expect(numbers.sortOrder == 1e-7)
    }

    struct Settings: Codable, Equatable {
        var color: String
        var tags: [String]
        var limit: Int?
    }

    @Test func jsonColumnsReadAndWriteTypedValues() async throws {
        let (a, b) = (try TestDevice("a", user: user, transport: server), try TestDevice("b", user: user, transport: server))
        let settings = Settings(color: "#ff0000", tags: ["work", "a/b"], limit: nil)
        let text = try SyncJSON.text(of: settings)
        #expect(text == ##"{"color":"#ff0000","tags":["work","a/b"]}"##)
        let saved = try await a.store.write { try $0.save(Activity(name: "Work", metadata: text)) }
        try await a.sync()
        try await b.sync()
        let pulled = try #require(try await b.store.read { try $0.fetchOne(Activity.self, id: saved.id) })
        #expect(pulled.metadata == text)
        #expect(try SyncJSON.decode(Settings.self, from: try #require(pulled.metadata)) == settings)
        #expect(throws: DecodingError.self) { try SyncJSON.decode(Settings.self, from: #"{"color":1}"#) }
    }

    struct Measures: Codable, Equatable {
        var small: Double
        var large: Double
        var accented: Int
        var e: Int

        enum CodingKeys: String, CodingKey {
            case small, large, e
            case accented = "é"
        }
    }

    /// The encoder writes numbers its own way (1e-07) and sorts keys its own way: the text is the
    /// canonical one, so saving it changes nothing and it decodes to the same value.
    @Test func typedJSONIsWrittenInTheCanonicalText() async throws {
        let a = try TestDevice("a", user: user, transport: server)
        let measures = Measures(small: 1e-7, large: 1e21, accented: 1, e: 2)
        let text = try SyncJSON.text(of: measures)
        #expect(text == #"{"e":2,"large":1000000000000000000000,"small":0.0000001,"é":1}"#)
        let saved = try await a.store.write { try $0.save(Activity(name: "Work", metadata: text)) }
        #expect(saved.metadata == text)
        #expect(try SyncJSON.decode(Measures.self, from: text) == measures)
    }

    @Test func aStoreFileOpenedForAnotherUserIsRefusedAndLeftUnchanged() throws {
        let path = TestDevice.temporaryPath("owner")
        let first = try SyncStore(path: path, schema: HopeFixture.app(), userID: user)
        try first.write { try $0.save(Activity(name: "Alice's")) }
        first.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect { try SyncStore(path: path, schema: HopeFixture.app(), userID: UUID()) } throws: { error in
            (error as? SyncError)?.code == .configuration && (error as? SyncError)?.message.contains("belongs to another user") == true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        try SyncStore(path: path, schema: HopeFixture.app(), userID: user).close()
    }

    @Test func aFarFutureStampNeitherTrapsNorDragsTheClock() async throws {
        let clock = ManualClock()
        let (a, b) = (
            try TestDevice("a", user: user, transport: server, clock: clock),
            try TestDevice("b", user: user, transport: server, clock: clock)
        )
        // A row stamped Int64.max by a broken client, as a server without the bound would keep it.
        let id = UUID()
        let names = Activity.table.columnNames.filter { $0 != "server_seq" && $0 != "column_stamps" }
        try await server.upsert(
            [
                ColumnValues(
                    columns: names,
                    values: [
                        .text(id.uuidString.lowercased()), .text(user.uuidString.lowercased()), .text("From the future"), .text("#000000"),
                        .bool(false), .double(0), .null, .int(.max), .null, .text("broken"),
                    ])
            ], into: Activity.table, as: Credentials(userID: user, accessToken: ""))
        try await a.sync()
        let mine = try await a.store.write { try $0.save(Activity(name: "Mine")) }
        #expect(mine.updatedMs <= clock.now + 86_400_001) // one past what it saw, which counted only a day ahead
        let restarted = try a.restarted()
        let again = try await restarted.store.write { try $0.save(Activity(name: "After a restart")) }
        #expect(again.updatedMs <= clock.now + 86_400_002)
        try await restarted.sync()
        try await b.sync()
        #expect(try await b.store.read { try $0.fetchAll(Activity.self) }.count == 3)
    }

    @Test func aFreshEngineCountsWhatWaitsBeforeItsFirstPass() async throws {
        let path = TestDevice.temporaryPath("counts")
        let a = try TestDevice("a", user: user, transport: server, path: path)
        try await a.store.write { tx in for index in 0..<3 { try tx.save(Activity(name: "Waiting \(index)")) } }
        let reopened = try a.restarted()
        #expect(await reopened.engine.status.dirtyCount == 3)
    }
}

/// The forgotten paste on one table stops only that table, and the error names every
/// column the server lacks.
@Suite struct PerTableDriftTests {
    let user = UUID()
    let server = InMemoryServer.hope()

    @Test func otherTablesKeepSyncingAndEveryMissingColumnIsNamed() async throws {
        let (a, b) = (try TestDevice("a", user: user, transport: server), try TestDevice("b", user: user, transport: server))
        await server.dropColumn("color", from: "activities")
        await server.dropColumn("metadata", from: "activities")
        try await a.store.write { tx in
            try tx.save(Activity(name: "Stuck until the paste"))
            try tx.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2))
        }
        let failure = await #expect(throws: SyncError.self) { try await a.sync() }
        #expect(failure?.code == .schemaDrift)
        #expect(failure?.message.contains("activities.color") == true && failure?.message.contains("activities.metadata") == true)
        #expect(await server.rows(of: "sessions").count == 1)
        _ = try? await b.sync()
        #expect(try b.sessions().count == 1)
        await server.restoreColumn("color", to: "activities")
        await server.restoreColumn("metadata", to: "activities")
        try await a.sync()
        #expect(await server.rows(of: "activities").count == 1)
    }
}
