import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncPostgres
import HopeSyncTestSupport

/// A device whose rows go through PostgreSQL (libpq) and files through the test Storage server,
/// signed in with a token Storage checks.
struct FileDevice: Sendable {
    let user: UUID
    let clock: ManualClock
    let path: String
    let store: SyncStore
    let engine: SyncEngine

    init(
        _ name: String, user: UUID, server: TestServer, storage: StorageServer, clock: ManualClock = ManualClock(ManualClock.anHourAgo),
        path: String? = nil, schema: AppSchema = AppSchema(tables: GeneratedSchema.tables, migrations: GeneratedSchema.migrations)
    ) throws {
        self.user = user
        self.clock = clock
        self.path = path ?? Self.temporaryPath(name)
        store = try SyncStore(path: self.path, schema: schema, userID: user, deviceID: name, wallClock: clock.read)
        let token = TestJWT.token(for: user)
        engine = SyncEngine(store: store, transport: server.transport, files: storage.transport(), configuration: Device.configuration) {
            Credentials(userID: user, accessToken: token)
        }
    }

    @discardableResult
    func sync() async throws -> SyncReport { try await engine.syncNow() }

    /// A task with a photo of `bytes`, attached and saved in one write.
    func savePhoto(_ bytes: Data) async throws -> TaskPhoto {
        try await store.write { tx in
            let task = try tx.save(TaskItem(title: "Fix the bike"))
            let photo = try tx.attachFile(bytes, fileExtension: "jpg")
            return try tx.save(TaskPhoto(taskId: task.id, photo: photo))
        }
    }

    func status(of file: SyncFile) throws -> SyncFileStatus? {
        try store.read { try $0.fileStatuses() }.first { $0.file == file }
    }

    func bytes(of file: SyncFile) throws -> Data? {
        try store.fileURL(for: file).map { try Data(contentsOf: $0) }
    }

    func object(_ photo: TaskPhoto) -> FileObject { FileObject(bucket: "task-photos", owner: user, file: photo.photo) }

    static func temporaryPath(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-file-tests", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path
    }
}

extension TestServer {
    /// Rows of task_photos that name an object Storage does not hold in the row's folder (its
    /// list's for a shared row, its owner's otherwise): there must never be one.
    func photoRowsWithoutTheirObject() throws -> Int {
        Int(
            try database.connect().execute(
                """
                select count(*) from public.task_photos p where not exists (
                  select 1 from storage.objects o
                  where o.bucket_id = 'task-photos' and o.name = coalesce(p.list_id, p.user_id)::text || '/' || p.photo)
                """
            ).scalar ?? "") ?? -1
    }

    /// How many objects of the bucket Storage holds.
    func objectCount() throws -> Int {
        Int(try database.connect().execute("select count(*) from storage.objects where bucket_id = 'task-photos'").scalar ?? "") ?? -1
    }
}
