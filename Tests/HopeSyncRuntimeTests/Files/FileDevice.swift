import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting

/// One device of the file tests: a store, and an engine that moves files through `storage`
/// (none: files wait for an endpoint).
struct FileDevice: Sendable {
    let server: any SyncTransport
    let storage: (any SyncFileTransport)?
    let store: SyncStore
    let engine: SyncEngine

    init(
        _ name: String, user: UUID, server: any SyncTransport, storage: (any SyncFileTransport)?, clock: ManualClock,
        schema: AppSchema = HopeFixture.app(), path: String? = nil
    ) throws {
        self.server = server
        self.storage = storage
        store = try SyncStore(
            path: path ?? TestDevice.temporaryPath(name), schema: schema, userID: user, deviceID: name, wallClock: clock.read)
        engine = SyncEngine(
            store: store, transport: server, files: storage, configuration: TestDevice.configuration, credentials: SignIn(user).provider)
    }

    /// The app quits and launches again: same file and folder, new store and engine.
    func restarted(clock: ManualClock) throws -> FileDevice {
        store.close()
        return try FileDevice(
            store.deviceID, user: store.userID, server: server, storage: storage, clock: clock, schema: store.schema, path: store.path)
    }

    @discardableResult
    func sync() async throws -> SyncReport { try await engine.syncNow() }

    /// A task with a photo of `bytes`, attached and saved in one write.
    func savePhoto(_ bytes: String, caption: String? = nil) async throws -> TaskPhoto {
        try await store.write { tx in
            let task = try tx.save(TaskItem(title: "Fix the bike"))
            let photo = try tx.attachFile(Data(bytes.utf8), fileExtension: "jpg")
            return try tx.save(TaskPhoto(taskId: task.id, photo: photo, caption: caption))
        }
    }

    func status(of file: SyncFile) throws -> SyncFileStatus? {
        try store.read { try $0.fileStatuses() }.first { $0.file == file }
    }

    func bytes(of file: SyncFile) throws -> String? {
        try store.fileURL(for: file).map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }
    }

    func photos() throws -> [TaskPhoto] {
        try store.read { try $0.fetchAll(TaskPhoto.self, orderBy: "id") }
    }
}

extension TaskPhoto {
    func object(of user: UUID) -> FileObject { FileObject(bucket: "task-photos", owner: user, file: photo) }
}
