import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresCluster
import HopeSyncTestSupport
import Testing

/// A process killed with SIGKILL in the middle of an upload loses nothing, and no row on the
/// server ever names an object Storage lacks: the row waits for its file, the file waits in the
/// store's folder, and the next launch finishes both.
@Suite struct KilledUploadTests {
    static let childVariable = "HOPE_SYNC_UPLOAD_CHILD"

    struct Child: Codable {
        var path: String
        var user: UUID
        var databaseURL: String
        var storageURL: URL
    }

    @Test func aProcessKilledMidUploadLosesNothing() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let user = UUID()
        let photo = Data((0..<8_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        let phone = try FileDevice("phone", user: user, server: server, storage: storage)
        let taken = try await phone.savePhoto(photo)
        phone.store.close()
        // Slow enough that a loaded machine still kills it mid-upload: 1 MB in 2.5 s, the rest 17 s more.
        try await storage.control(["upload_bytes_per_second": 400_000])

        let settings = Child(path: phone.path, user: user, databaseURL: server.database.url, storageURL: storage.projectURL)
        let child = try Subprocess.start(
            .init(
                URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path,
                ["--testing-library", "swift-testing", "--filter", "KilledUploadTests/childUploadsUntilKilled"],
                environment: ProcessInfo.processInfo.environment.merging(
                    [Self.childVariable: String(decoding: try JSONEncoder().encode(settings), as: UTF8.self)]) { $1 },
                output: .discard, error: .discard))
        let deadline = Date().addingTimeInterval(120)
        while try await !storage.requests().contains(where: { $0.method == "POST" && $0.received > 1_000_000 }) {
            try #require(Date() < deadline && !child.hasExited, "the child never got an upload under way")
            try await Task.sleep(for: .milliseconds(50))
        }
        child.kill(SIGKILL)
        #expect(try await child.wait().signal != nil)
        #expect(try server.count(of: "task_photos") == 0 && server.objectCount() == 0)
        #expect(try server.photoRowsWithoutTheirObject() == 0)

        let relaunched = try FileDevice("phone", user: user, server: server, storage: storage, path: phone.path)
        let waiting = try #require(try relaunched.status(of: taken.photo))
        #expect(waiting.state == .uploadQueued && waiting.isCached)
        #expect(try relaunched.bytes(of: taken.photo) == photo)
        try await storage.control(["upload_bytes_per_second": NSNull()])
        let report = try await relaunched.sync()
        #expect(report.filesUploaded == 1 && report.pushed >= 1)
        #expect(try server.count(of: "task_photos") == 1 && server.photoRowsWithoutTheirObject() == 0)
        let desk = try FileDevice("desk", user: user, server: server, storage: storage)
        try await desk.sync()
        #expect(try desk.bytes(of: taken.photo) == photo)
    }

    /// The process the test above kills: it opens the phone's store and syncs. Run alone (no
    /// child settings in the environment), it does nothing.
    @Test func childUploadsUntilKilled() async throws {
        guard let text = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let settings = try JSONDecoder().decode(Child.self, from: Data(text.utf8))
        let store = try SyncStore(
            path: settings.path, schema: AppSchema(tables: GeneratedSchema.tables, migrations: GeneratedSchema.migrations),
            userID: settings.user, deviceID: "phone", wallClock: ManualClock(ManualClock.anHourAgo).read)
        let token = TestJWT.token(for: settings.user)
        let engine = SyncEngine(
            store: store, transport: PostgresTransport(url: settings.databaseURL),
            files: StorageTransport(configuration: .init(projectURL: settings.storageURL, anonKey: "anon") { nil }),
            configuration: Device.configuration
        ) { Credentials(userID: settings.user, accessToken: token) }
        try await engine.syncNow()
    }
}
