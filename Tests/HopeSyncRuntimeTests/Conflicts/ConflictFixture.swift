import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// The three versions of seed 000's worked example.
enum Stamp {
    static let t1 = "2026-10-18T13:00:27.486123+00:00"
    static let t2 = "2026-10-18T13:04:00.000001+00:00"
    static let t3 = "2026-10-18T13:05:00.000002+00:00"
}

/// The samples' resolver: a title both sides changed waits for the user; everything else is
/// settled as the default does.
let holdTitleConflicts: ConflictResolver = { conflict in
    if conflict.conflictingColumns.contains("title") { return .hold }
    return conflict.server == nil ? .keepServer : .keepLocal
}

/// The warnings the engine logged.
final class Warnings: Sendable {
    private let messages = Locked<[String]>([])

    var log: @Sendable (String) -> Void { { message in self.messages.withLock { $0.append(message) } } }
    var all: [String] { messages.value }
}

/// One user's devices on one in-memory server, with tasks to conflict over.
struct ConflictScene {
    let user = UUID()
    let server: InMemoryServer

    init(serverClock: ManualClock? = nil) {
        server = InMemoryServer(tables: HopeFixture.app().tables, clock: serverClock?.read)
    }

    func device(
        _ name: String, resolver: ConflictResolver? = nil, timeout: Duration = .seconds(30),
        warnings: Warnings? = nil, path: String? = nil, transport: (any SyncTransport)? = nil, clock: ManualClock = ManualClock()
    ) throws -> TestDevice {
        var configuration = TestDevice.configuration
        configuration.resolver = resolver
        configuration.resolverTimeout = timeout
        if let warnings { configuration.warn = warnings.log }
        return try TestDevice(name, user: user, transport: transport ?? server, clock: clock, configuration: configuration, path: path)
    }

    /// A task made on `device` and synced, which the server stamps `version`.
    func syncedTask(on device: TestDevice, _ task: TaskItem = TaskItem(title: "Buy milk"), version: String = Stamp.t1) async throws
        -> TaskItem
    {
        try await device.store.write { try $0.save(task) }
        await server.setNextVersions([version])
        try await device.sync()
        return try #require(try device.task(task.id))
    }

    /// The row as the server holds it.
    func serverTask(_ id: UUID) async -> ColumnValues? {
        await server.rows(of: "tasks")[id.uuidString.lowercased()]
    }

    /// Another device's change to the task, stamped `version`.
    func changeElsewhere(_ id: UUID, _ values: ColumnValues, version: String) async {
        await server.setNextVersions([version])
        await server.changeRow(in: "tasks", id: id, values)
    }

    func guardedUpdates() async -> [GuardedUpdateRequest] {
        await server.requestLog.compactMap { if case .guardedUpdate(let request) = $0 { request } else { nil } }
    }

    func fetches() async -> [(id: UUID, columns: [String])] {
        await server.requestLog.compactMap { if case .fetch(_, let id, let columns) = $0 { (id, columns) } else { nil } }
    }
}

extension TestDevice {
    func task(_ id: UUID) throws -> TaskItem? {
        try store.read { try $0.fetchOne(TaskItem.self, id: id) }
    }

    /// Edits the task as the app would: read, change, save.
    func edit(_ id: UUID, _ change: @escaping @Sendable (inout TaskItem) -> Void) async throws {
        try await store.write { writer in
            guard var task = try writer.fetchOne(TaskItem.self, id: id) else { throw SyncError(.invalidRequest, "no task") }
            change(&task)
            try writer.save(task)
        }
    }

    /// The engine's status with its counts read now.
    func currentStatus() async -> SyncStatus? {
        var updates = engine.statusUpdates().makeAsyncIterator()
        return await updates.next()
    }

    func pending() throws -> [PendingMutation] {
        try store.pendingMutations()
    }
}
