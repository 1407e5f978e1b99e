import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import Testing

/// Files of file columns end to end: rows through the generated SQL on PostgreSQL, files through
/// the test Storage server under the generated bucket policies.
@Suite struct FileEndToEndTests {
    let user = UUID()
    let photo = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    @Test func aPhotoTakenOfflineOnThePhoneAppearsOnTheDeskWhichShowsItOfflineToo() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let (phone, desk) = (
            try FileDevice("phone", user: user, server: server, storage: storage),
            try FileDevice("desk", user: user, server: server, storage: storage)
        )
        await phone.engine.setNetworkEnabled(false)
        let taken = try await phone.savePhoto(photo)
        #expect(try phone.status(of: taken.photo)?.state == .uploadQueued)
        await phone.engine.setNetworkEnabled(true)
        let pushed = try await phone.sync()
        #expect(pushed.filesUploaded == 1)
        #expect(try server.count(of: "task_photos") == 1 && server.objectCount() == 1 && server.photoRowsWithoutTheirObject() == 0)

        // Storage keeps the bytes as they were taken.
        #expect(try Data(contentsOf: storage.folder.appendingPathComponent("task-photos/\(phone.object(taken).path)")) == photo)
        let pulled = try await desk.sync()
        #expect(pulled.filesDownloaded == 1)
        #expect(try desk.bytes(of: taken.photo) == photo)
        // The desk offline, Storage gone: its copy is still there to show.
        await desk.engine.setNetworkEnabled(false)
        storage.server.stop()
        #expect(try desk.bytes(of: taken.photo) == photo)
        #expect(try desk.status(of: taken.photo)?.state == .synced)
    }

    @Test func anExpiredTokenEvictsNothing() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let (phone, desk) = (
            try FileDevice("phone", user: user, server: server, storage: storage),
            try FileDevice("desk", user: user, server: server, storage: storage)
        )
        let first = try await phone.savePhoto(photo)
        try await phone.sync()
        try await desk.sync()
        try await storage.control(["tokens_expired": true])
        let second = try await phone.savePhoto(Data("second".utf8))
        for _ in 0..<3 {
            phone.clock.advance(5_000)
            try await phone.sync()
            try await desk.sync()
        }
        #expect(try desk.bytes(of: first.photo) == photo && phone.bytes(of: first.photo) == photo)
        let refused = try #require(try phone.status(of: second.photo))
        #expect(refused.state == .uploadQueued && refused.isCached && refused.lastError?.code == .accessToken)
        #expect(try server.count(of: "task_photos") == 1 && server.photoRowsWithoutTheirObject() == 0)

        try await storage.control(["tokens_expired": false])
        phone.clock.advance(60_000)
        try await phone.sync()
        try await desk.sync()
        #expect(try desk.bytes(of: second.photo) == Data("second".utf8))
    }

    @Test(arguments: ["400", "404"])
    func aMissingObjectLeavesTheCachedCopyAndCausesNoRetryStorm(shape: String) async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        try await storage.control(["not_found_shape": shape])
        let clock = ManualClock(ManualClock.anHourAgo)
        let (phone, desk, laptop) = (
            try FileDevice("phone", user: user, server: server, storage: storage, clock: clock),
            try FileDevice("desk", user: user, server: server, storage: storage, clock: clock),
            try FileDevice("laptop", user: user, server: server, storage: storage, clock: clock)
        )
        let taken = try await phone.savePhoto(photo)
        try await phone.sync()
        try await desk.sync()
        try await storage.remove(phone.object(taken))
        // Ten minutes of passes every five seconds.
        for _ in 0..<120 {
            clock.advance(5_000)
            for device in [desk, laptop] { try await device.sync() }
        }
        #expect(try desk.bytes(of: taken.photo) == photo)
        let missing = try #require(try laptop.status(of: taken.photo))
        #expect(missing.state == .missing && !missing.isCached && missing.lastError?.isObjectNotFound == true)
        let downloads = try await storage.requests(for: phone.object(taken)).filter { $0.method == "GET" }
        // The desk's one download, and the laptop's at once and after 1, 2 and 4 minutes.
        #expect(downloads.count == 1 + 4)
        #expect(downloads.dropFirst().allSatisfy { $0.status == Int(shape) })
    }

    @Test func theSameBytesOnTwoDevicesMakeOneObject() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let (phone, desk) = (
            try FileDevice("phone", user: user, server: server, storage: storage),
            try FileDevice("desk", user: user, server: server, storage: storage)
        )
        let fromPhone = try await phone.savePhoto(photo)
        let fromDesk = try await desk.savePhoto(photo)
        #expect(fromPhone.photo == fromDesk.photo)
        try await phone.sync()
        let second = try await desk.sync()
        #expect(second.filesUploaded == 1 && second.pushed == 2)
        #expect(try server.objectCount() == 1)
        #expect(try server.count(of: "task_photos") == 2 && server.photoRowsWithoutTheirObject() == 0)
        let uploads = try await storage.requests(for: phone.object(fromPhone)).filter { $0.method == "POST" }
        #expect(uploads.map(\.status) == [200, 400], "the second upload met the first: already there")
    }

    @Test func anotherUsersObjectIsNeitherReadableNorWritable() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let alice = try FileDevice("alice", user: user, server: server, storage: storage)
        let taken = try await alice.savePhoto(photo)
        try await alice.sync()
        let bob = Credentials(userID: UUID(), accessToken: TestJWT.token(for: UUID()))
        let mallory = UUID()
        let malloryToken = Credentials(userID: mallory, accessToken: TestJWT.token(for: mallory))
        let transport = storage.transport()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: scratch) }
        await #expect { try await transport.download(alice.object(taken), to: scratch, for: malloryToken) { _, _ in } } throws: {
            ($0 as? SyncError)?.isObjectNotFound == true
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
        try Data("forged".utf8).write(to: scratch)
        let forged = FileObject(bucket: "task-photos", owner: user, file: try #require(SyncFile(name: String(repeating: "f", count: 64))))
        await #expect { try await transport.upload(scratch, as: forged, for: malloryToken) { _ in } } throws: {
            ($0 as? SyncError)?.isObjectRefused == true
        }
        await #expect { try await transport.upload(scratch, as: alice.object(taken), for: bob) { _ in } } throws: {
            ($0 as? SyncError)?.isObjectRefused == true
        }
        #expect(try server.objectCount() == 1)
        #expect(try alice.bytes(of: taken.photo) == photo)
    }

    /// The bucket's insert policy takes exactly the names the runtime writes,
    /// `<user>/<64 lowercase hex>.<extension>`: a signed-in user's upload under any other name
    /// in their own folder, through `..`, or into another user's folder is refused, and nothing
    /// is stored.
    @Test(arguments: [
        "{me}/%2E%2E/{other}/{hash}.jpg", "{me}/nested/{hash}.jpg", "{me}/{HASH}.jpg", "{me}/notes.txt", "{other}/{hash}.jpg",
        "{me}/{hash}.JPG", "{me}/{hash}.jpg/x",
    ])
    func anUploadUnderAnyOtherNameThanTheRuntimesIsRefused(_ pattern: String) async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let hash = String(repeating: "0", count: 60) + "beef"
        let other = UUID().lowercasedString
        let name = pattern.replacingOccurrences(of: "{me}", with: user.lowercasedString).replacingOccurrences(of: "{other}", with: other)
            .replacingOccurrences(of: "{hash}", with: hash).replacingOccurrences(of: "{HASH}", with: hash.uppercased())
        let refused = try await storage.upload(Data("bytes".utf8), bucket: "task-photos", name: name, token: TestJWT.token(for: user))
        // Storage answers a policy's refusal as 400 with `"statusCode": "403"` in the body.
        #expect(refused.status == 400 && refused.body.contains("row-level security"), "\(name): \(refused)")
        #expect(try server.objectCount() == 0)

        // The runtime's own name is taken.
        let own = try await storage.upload(
            Data("bytes".utf8), bucket: "task-photos", name: "\(user.lowercasedString)/\(hash).jpg", token: TestJWT.token(for: user))
        #expect(own.status == 200, "\(own)")
    }

    @Test func aFailedOrCutUploadKeepsItsRowBackUntilTheObjectIsThere() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let phone = try FileDevice("phone", user: user, server: server, storage: storage)
        let taken = try await phone.savePhoto(photo)
        try await storage.control(["fail_next": 1, "fail_status": 503])
        #expect(try await phone.sync().fileFailures == 1)
        #expect(try phone.status(of: taken.photo)?.lastError?.httpStatus == 503)
        phone.clock.advance(1_000)
        try await storage.control(["cut_after_bytes": 100_000])
        #expect(try await phone.sync().fileFailures == 1)
        #expect(try phone.status(of: taken.photo)?.lastError?.code == .connectivity)
        #expect(try server.count(of: "task_photos") == 0 && server.objectCount() == 0)
        phone.clock.advance(2_000)
        let report = try await phone.sync()
        #expect(report.filesUploaded == 1 && report.pushed == 1)
        #expect(try server.count(of: "task_photos") == 1 && server.photoRowsWithoutTheirObject() == 0)
    }
}
