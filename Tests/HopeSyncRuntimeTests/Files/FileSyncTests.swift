import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// Files of file columns on the in-memory server and Storage: uploaded before the rows that name
/// them, downloaded after the pull, kept while a row names them, and never dropped or retried in
/// a loop because of what the server answered.
@Suite struct FileSyncTests {
    let user = UUID()
    let clock = ManualClock()
    let server = InMemoryServer.hope()
    let storage = InMemoryStorage()

    func device(_ name: String, storage: (any SyncFileTransport)?? = .none, schema: AppSchema = HopeFixture.app()) throws -> FileDevice {
        try FileDevice(name, user: user, server: server, storage: storage ?? self.storage, clock: clock, schema: schema)
    }

    @Test func aPhotoTakenOfflineGoesUpBeforeItsRowAndComesDownOnTheOtherDevice() async throws {
        let (phone, desk) = (try device("phone"), try device("desk"))
        await phone.engine.setNetworkEnabled(false)
        let photo = try await phone.savePhoto("a photo of the bike")
        await #expect { try await phone.sync() } throws: { ($0 as? SyncError)?.code == .networkDisabled }
        let waiting = try #require(try phone.status(of: photo.photo))
        #expect(waiting.state == .uploadQueued && waiting.isCached && waiting.size == 19)
        #expect(try phone.bytes(of: photo.photo) == "a photo of the bike")

        await phone.engine.setNetworkEnabled(true)
        let report = try await phone.sync()
        #expect(report.filesUploaded == 1)
        #expect(await storage.contents[photo.object(of: user).description] == Data("a photo of the bike".utf8))
        #expect(await server.rows(of: "task_photos").count == 1)
        #expect(try phone.status(of: photo.photo)?.state == .synced)

        let pulled = try await desk.sync()
        #expect(pulled.filesDownloaded == 1)
        #expect(try desk.photos().map(\.photo) == [photo.photo])
        #expect(try desk.bytes(of: photo.photo) == "a photo of the bike")
        #expect(try desk.status(of: photo.photo)?.state == .synced)
    }

    @Test func aRowWaitsWhileItsFileCannotGoUpAndTheNextTryWaitsItsTurn() async throws {
        let phone = try device("phone")
        await storage.failNextRequests(
            1,
            with: SyncError(
                .server, "Service Unavailable", serverError: ServerError(status: 503, code: nil, message: "Service Unavailable")))
        let photo = try await phone.savePhoto("bytes")
        let first = try await phone.sync()
        #expect(first.fileFailures == 1)
        #expect(await server.rows(of: "tasks").count == 1)
        #expect(await server.rows(of: "task_photos").isEmpty)
        let status = try #require(try phone.status(of: photo.photo))
        #expect(status.state == .uploadQueued && status.attempts == 1 && status.lastError?.httpStatus == 503)
        #expect(status.retryAt == Date(timeIntervalSince1970: Double(clock.now + 1_000) / 1_000))

        try await phone.sync()
        #expect(await storage.requestLog.count == 1)
        #expect(await server.rows(of: "task_photos").isEmpty)
        clock.advance(1_000)
        let later = try await phone.sync()
        #expect(later.filesUploaded == 1 && later.pushed == 1)
        #expect(await server.rows(of: "task_photos").count == 1)
    }

    @Test func aMissingObjectKeepsTheCachedCopyAndIsAskedForAgainOnlyAfterGrowingPauses() async throws {
        let (phone, desk, laptop) = (try device("phone"), try device("desk"), try device("laptop"))
        let photo = try await phone.savePhoto("kept")
        try await phone.sync()
        try await desk.sync()
        await storage.remove(photo.object(of: user))

        // Ten minutes of passes every five seconds.
        for _ in 0..<120 {
            clock.advance(5_000)
            for device in [phone, desk, laptop] { try await device.sync() }
        }
        for device in [phone, desk] {
            #expect(try device.bytes(of: photo.photo) == "kept")
            #expect(try device.status(of: photo.photo)?.state == .synced)
        }
        let missing = try #require(try laptop.status(of: photo.photo))
        #expect(missing.state == .missing && !missing.isCached && missing.lastError?.isObjectNotFound == true)
        // The phone's upload, the desk's download, and the laptop's: at once, then after 1, 2 and 4
        // minutes; four in ten minutes, not 120.
        #expect(await storage.requests(for: photo.object(of: user)) == 2 + 4)
        #expect(missing.attempts == 4)
    }

    @Test func anExpiredTokenEvictsNothing() async throws {
        let (phone, desk) = (try device("phone"), try device("desk"))
        let first = try await phone.savePhoto("first")
        try await phone.sync()
        try await desk.sync()
        await storage.setRefusesTokens(true)
        let second = try await phone.savePhoto("second")
        for _ in 0..<5 {
            clock.advance(5_000)
            try await phone.sync()
            try await desk.sync()
        }
        #expect(try desk.bytes(of: first.photo) == "first")
        #expect(try phone.bytes(of: first.photo) == "first" && phone.bytes(of: second.photo) == "second")
        let refused = try #require(try phone.status(of: second.photo))
        #expect(refused.state == .uploadQueued && refused.lastError?.code == .accessToken)
        #expect(await server.rows(of: "task_photos").count == 1)

        await storage.setRefusesTokens(false)
        clock.advance(60_000)
        try await phone.sync()
        try await desk.sync()
        #expect(try desk.bytes(of: second.photo) == "second")
    }

    @Test func aFileGoesOnlyWhenNoRowNamesIt() async throws {
        let phone = try device("phone")
        var photo = try await phone.savePhoto("before")
        let replaced = photo.photo
        photo = try await phone.store.write { [photo] tx in
            var edited = photo
            edited.photo = try tx.attachFile(Data("after".utf8), fileExtension: "jpg")
            return try tx.save(edited)
        }
        try await phone.sync()
        // The replaced photo was never needed by the server: it is gone, and never went up.
        #expect(try phone.status(of: replaced) == nil)
        #expect(try phone.bytes(of: replaced) == nil)
        #expect(await storage.contents.keys.sorted() == [photo.object(of: user).description])

        try await phone.store.write { [photo] in try $0.delete(photo) }
        #expect(try phone.bytes(of: photo.photo) == "after", "a deleted row not yet pushed still names its file")
        try await phone.sync()
        try await phone.sync()
        #expect(try phone.status(of: photo.photo) == nil)
        #expect(try phone.bytes(of: photo.photo) == nil)
        #expect(await storage.contents.count == 1, "the device lets go of its copy; the object stays")
    }

    @Test func signingOutRemovesTheFilesWithTheRows() async throws {
        let phone = try device("phone")
        let photo = try await phone.savePhoto("private")
        let url = try #require(try phone.store.fileURL(for: photo.photo))
        try await phone.engine.clearLocalData()
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path))
        #expect(try await phone.store.read { try $0.fileStatuses() }.isEmpty)
    }

    @Test func withoutAStorageEndpointFilesWaitSayingSo() async throws {
        let phone = try device("phone", storage: .some(nil))
        let photo = try await phone.savePhoto("waits")
        let report = try await phone.sync()
        #expect(report.fileFailures == 1 && report.pushed == 1)
        let status = try #require(try phone.status(of: photo.photo))
        #expect(status.state == .uploadQueued && status.lastError?.code == .configuration && status.attempts == 0)
        #expect(await server.rows(of: "task_photos").isEmpty)
        // Asked again only after its pause, not every pass.
        clock.advance(5_000)
        #expect(try await phone.sync().fileFailures == 0)
    }

    @Test func aFileOfAnOnReadColumnComesWhenTheAppAsks() async throws {
        let lazy = Self.onRead(HopeFixture.app())
        let (phone, desk) = (try device("phone"), try device("desk", schema: lazy))
        let photo = try await phone.savePhoto("on read")
        try await phone.sync()
        #expect(try await desk.sync().filesDownloaded == 0)
        #expect(try desk.status(of: photo.photo)?.state == .notDownloaded)
        #expect(try desk.store.fileURL(for: photo.photo) == nil)
        #expect(try desk.status(of: photo.photo)?.state == .downloadQueued)
        #expect(try await desk.sync().filesDownloaded == 1)
        #expect(try desk.bytes(of: photo.photo) == "on read")

        let laptop = try device("laptop", schema: lazy)
        try await laptop.sync()
        let url = try await laptop.engine.localFile(photo.photo)
        #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == "on read")
    }

    @Test func aQueuedEditOfAVersionRowWaitsForItsNewFile() async throws {
        let (phone, desk) = (try device("phone"), try device("desk"))
        var photo = try await phone.savePhoto("first")
        try await phone.sync()
        photo = try #require(try phone.photos().first)
        await storage.failNextRequests(1, with: SyncError(.connectivity, "The connection was lost"))
        let edited = try await phone.store.write { [photo] tx in
            var edited = photo
            edited.photo = try tx.attachFile(Data("second".utf8), fileExtension: "jpg")
            edited.caption = "retaken"
            return try tx.save(edited)
        }
        try await phone.sync()
        #expect(try await phone.store.read { try $0.pendingMutations() }.count == 1)
        #expect(await server.rows(of: "task_photos").values.first?["caption"] == .null)
        clock.advance(1_000)
        try await phone.sync()
        #expect(try await phone.store.read { try $0.pendingMutations() }.isEmpty)
        try await desk.sync()
        #expect(try desk.photos().map(\.caption) == ["retaken"])
        #expect(try desk.bytes(of: edited.photo) == "second")
    }

    /// Writes held back for a file meet a pull of their row, deleted elsewhere meanwhile: once
    /// they go, the device shows that delete, not its own (found by the randomized file runs).
    @Test func aHeldDeleteOfARowDeletedElsewhereEndsShowingTheServersDelete() async throws {
        let (phone, desk) = (try device("phone"), try device("desk"))
        let photo = try await phone.savePhoto("first")
        try await phone.sync()
        try await desk.sync()
        try await desk.store.write { tx in
            var edited = try #require(try tx.fetchOne(TaskPhoto.self, id: photo.id))
            edited.photo = try tx.attachFile(Data("second".utf8), fileExtension: "jpg")
            try tx.save(edited)
        }
        clock.advance(1_000)
        try await desk.store.write { try $0.delete(TaskPhoto.self, id: photo.id) }
        clock.advance(1_000)
        try await phone.store.write { try $0.delete(TaskPhoto.self, id: photo.id) }
        try await phone.sync()
        await storage.setRefusesTokens(true)
        try await desk.sync()
        await storage.setRefusesTokens(false)
        clock.advance(3_600_000)
        try await desk.sync()
        let server = await server.rows(of: "task_photos").values.first?["deleted_ms"]
        #expect(try await desk.store.read { try $0.rowValues(of: "task_photos") }.first?["deleted_ms"] == server)
        #expect(try await desk.store.read { try $0.pendingMutations() }.isEmpty)
    }

    @Test func aNameThisDeviceNeverHadIsRefusedAtSave() async throws {
        let phone = try device("phone")
        let stranger = try #require(SyncFile(name: String(repeating: "ab", count: 32) + ".jpg"))
        await #expect { try await phone.store.write { try $0.save(TaskPhoto(taskId: UUID(), photo: stranger)) } } throws: {
            ($0 as? SyncError)?.code == .invalidRequest
        }
    }

    @Test func oneDownloadPerObjectWhateverAsksForIt() async throws {
        let gate = GatedStorage(base: storage)
        let phone = try device("phone")
        let photo = try await phone.savePhoto("shared")
        try await phone.sync()
        let desk = try device("desk", storage: .some(gate), schema: Self.onRead(HopeFixture.app()))
        try await desk.sync()
        async let first = desk.engine.localFile(photo.photo)
        async let second = desk.engine.localFile(photo.photo)
        async let pass = desk.sync()
        try await Task.sleep(for: .milliseconds(100))
        await gate.open()
        _ = try await (first, second, pass)
        #expect(await gate.downloads == 1)
    }

    /// A read that asks after the download it would have shared has finished (between its own
    /// look for the file and its turn to fetch it) finds the file and fetches nothing.
    @Test func aReadThatComesJustAfterTheDownloadFetchesNothing() async throws {
        let gate = GatedStorage(base: storage)
        let phone = try device("phone")
        let photo = try await phone.savePhoto("just fetched")
        try await phone.sync()
        let desk = try device("desk", storage: .some(gate), schema: Self.onRead(HopeFixture.app()))
        try await desk.sync()
        let held = HeldSignIn(user, holdingCall: 2)
        let engine = SyncEngine(
            store: desk.store, transport: server, files: gate, configuration: TestDevice.configuration, credentials: held.provider)
        let first = Task { try await engine.localFile(photo.photo) }
        while await gate.downloads == 0 { await Task.yield() }
        let second = Task { try await engine.localFile(photo.photo) }
        await held.waitUntilHeld()
        await gate.open()
        _ = try await first.value
        await held.release()
        #expect(try await second.value == (try await first.value))
        #expect(await gate.downloads == 1)
        #expect(try desk.status(of: photo.photo)?.state == .synced)
    }

    /// The schema with task_photos' files fetched on first read.
    static func onRead(_ app: AppSchema) -> AppSchema {
        AppSchema(
            tables: app.tables.map { table in
                TableSchema(
                    name: table.name,
                    columns: table.columns.map {
                        $0.type.bucket == nil
                            ? $0 : ColumnSchema($0.name, $0.type, nullable: $0.isNullable, role: $0.role, download: .onRead)
                    },
                    primaryKey: table.primaryKey, conflict: table.conflict, ordering: table.ordering, openRowRule: table.openRowRule)
            }, migrations: app.migrations)
    }
}
