import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One 50 MB move in a process of its own, so that its peak memory is that move's alone:
/// `bench files child plain|runtime <port> <user> <file>`. Everything is opened and a small file
/// moved the same way first (libcurl, URLSession and the stores loaded and used); that is the
/// idle resident memory, and the peak (VmHWM) is reset there.
enum FileMemoryChild {
    enum Part: String, CaseIterable {
        /// URLSession alone: the file uploaded, then downloaded to another file.
        case plain
        /// The runtime: the phone attaches the file to a task photo and syncs (the upload, then
        /// the row); the desk syncs (the row, then the eager download, checked against its hash).
        case runtime
    }

    struct Result: Codable {
        var idleMiB: Double
        var peakMiB: Double
        var seconds: Double

        var extraMiB: Double { peakMiB - idleMiB }
        var line: String { ChildProcess.line(self) }

        init(idleMiB: Double, peakMiB: Double, seconds: Double) {
            (self.idleMiB, self.peakMiB, self.seconds) = (idleMiB, peakMiB, seconds)
        }
    }

    static func run(_ arguments: [String]) async throws -> Result {
        guard arguments.count == 4, let part = Part(rawValue: arguments[0]), let port = Int(arguments[1]),
            let user = UUID(uuidString: arguments[2])
        else { throw BenchmarkError("usage: bench files child plain|runtime <port> <user> <file>") }
        let source = URL(fileURLWithPath: arguments[3])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-files-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let small = try BenchStorage.randomFile(bytes: 64 << 10, in: directory)
        let session = URLSession(configuration: .ephemeral)
        let token = TestJWT.token(for: user)
        let move: (URL) async throws -> Void
        switch part {
        case .plain:
            let plain = PlainTransfer(projectURL: BenchStorage.projectURL(port: port), session: session, token: token)
            move = { file in
                let object = BenchStorage.freshObject(of: user)
                try await plain.upload(file, as: object)
                let copy = directory.appendingPathComponent(UUID().uuidString)
                try await plain.download(object, to: copy)
                try FileManager.default.removeItem(at: copy)
            }
        case .runtime:
            let devices = try RuntimeDevices(user: user, token: token, port: port, session: session, directory: directory)
            move = { file in try await devices.move(file) }
        }
        try await move(small)
        Measure.resetPeakMemory()
        let idle = Measure.residentMemoryMiB() ?? 0
        let seconds = try await Measure.secondsAsync { try await move(source) }
        return Result(idleMiB: idle, peakMiB: Measure.peakMemoryMiB() ?? 0, seconds: seconds)
    }
}

/// A phone and a desk of one user: rows through an in-memory server (rows are not what this
/// measures), files through StorageTransport to the test Storage server.
private struct RuntimeDevices {
    let phone: (store: SyncStore, engine: SyncEngine)
    let desk: (store: SyncStore, engine: SyncEngine)

    init(user: UUID, token: String, port: Int, session: URLSession, directory: URL) throws {
        let server = InMemoryServer(tables: GeneratedSchema.tables)
        let files = StorageTransport(
            configuration: .init(projectURL: BenchStorage.projectURL(port: port), anonKey: "anon", session: session) { nil })
        let credentials = Credentials(userID: user, accessToken: token)
        func device(_ name: String) throws -> (store: SyncStore, engine: SyncEngine) {
            let store = try SyncStore(
                path: Scratch.databasePath("bench-files-\(name)", in: directory), schema: GeneratedSchema.app, userID: user, deviceID: name)
            return (store, SyncEngine(store: store, transport: server, files: files) { credentials })
        }
        (phone, desk) = (try device("phone"), try device("desk"))
    }

    func move(_ file: URL) async throws {
        let photo = try await phone.store.write { tx in
            let task = try tx.save(TaskItem(title: "Fix the bike"))
            return try tx.save(TaskPhoto(taskId: task.id, photo: try tx.attachFile(contentsOf: file)))
        }
        let sent = try await phone.engine.syncNow()
        let received = try await desk.engine.syncNow()
        let copy = try desk.store.fileURL(for: photo.photo)
        let size = try copy.map { try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber }
        let expected = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
        guard sent.filesUploaded == 1, received.filesDownloaded == 1, size != nil, size == expected else {
            throw BenchmarkError(
                "the photo did not move: \(sent.filesUploaded) up, \(received.filesDownloaded) down, \(String(describing: size)) bytes")
        }
    }
}
