import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import Testing

/// The PostgreSQL transport with every guarded write and read by key recorded as the transport
/// received it, with its answer, and switches that lose the next guarded write's or push's answer.
final class RecordingTransport: ForwardingTransport, Sendable {
    struct Send: Sendable {
        let id: UUID
        let baseVersion: String
        let values: ColumnValues
        let filters: [Filter]
        let returning: [String]
        let answer: [ColumnValues]
    }

    struct Read: Sendable {
        let id: UUID
        let columns: [String]
        let answer: ColumnValues?
    }

    private struct Record {
        var sends: [Send] = []
        var reads: [Read] = []
        var losesNextAnswer = false
        var losesNextPushAnswer = false
        var failsReads = false
    }

    let base: any SyncTransport
    private let record = Locked(Record())

    var forwardee: any SyncTransport { base }

    init(base: any SyncTransport) {
        self.base = base
    }

    var sends: [Send] { record.withLock { $0.sends } }
    var reads: [Read] { record.withLock { $0.reads } }

    func clear() {
        record.withLock { record in
            record.sends.removeAll()
            record.reads.removeAll()
        }
    }

    func loseNextAnswer() { record.withLock { $0.losesNextAnswer = true } }

    /// The next push (upsert) reaches the server, and its answer is lost.
    func loseNextPushAnswer() { record.withLock { $0.losesNextPushAnswer = true } }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        let answer = try await base.upsert(rows, into: table, as: user)
        let lost = record.withLock { record in
            defer { record.losesNextPushAnswer = false }
            return record.losesNextPushAnswer
        }
        if lost { throw SyncError(.connectivity, "The connection dropped before the answer arrived.") }
        return answer
    }

    /// Reads by key fail as the network does while set.
    var readsFail: Bool {
        get { record.withLock { $0.failsReads } }
        set { record.withLock { $0.failsReads = newValue } }
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        let answer: [ColumnValues]
        do {
            answer = try await base.guardedUpdate(
                table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user
            )
        } catch {
            record.withLock {
                $0.sends.append(
                    Send(id: id, baseVersion: baseVersion, values: values, filters: extraFilters, returning: returning, answer: []))
            }
            throw error
        }
        let lost = record.withLock { record in
            record.sends.append(
                Send(id: id, baseVersion: baseVersion, values: values, filters: extraFilters, returning: returning, answer: answer))
            defer { record.losesNextAnswer = false }
            return record.losesNextAnswer
        }
        if lost { throw SyncError(.connectivity, "The connection dropped before the answer arrived.") }
        return answer
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        if readsFail { throw SyncError(.connectivity, "The server cannot be reached.") }
        let answer = try await base.fetch(table, ids: ids, columns: columns, as: user)
        record.withLock { record in
            for id in ids {
                let row = answer.first { $0[table.primaryKey]?.text == id.uuidString.lowercased() }
                record.reads.append(Read(id: id, columns: columns, answer: row))
            }
        }
        return answer
    }
}

/// One of the two version tables, with the user column the scenarios edit and a second one.
struct VersionedTable: Sendable, CustomTestStringConvertible {
    let table: TableSchema
    /// The column both phones change (tasks' title, task_lists' name).
    let text: String
    /// The column both phones set to the same value (done, position).
    let other: String
    let otherValue: SyncValue

    static let tasks = VersionedTable(table: TaskItem.table, text: "title", other: "done", otherValue: .bool(true))
    static let taskLists = VersionedTable(table: TaskList.table, text: "name", other: "position", otherValue: .double(2))

    var version: String {
        guard let column = table.conflict.versionColumn else { return "" }
        return column
    }

    var testDescription: String { table.name }

    /// A new row of this table, with `text` set.
    func newRow(_ id: UUID, _ text: String) -> any SyncRecord {
        table.name == "tasks" ? TaskItem(id: id, title: text) : TaskList(id: id, name: text)
    }
}

extension Device {
    func save(_ record: any SyncRecord) async throws {
        try await store.write { writer in try writer.save(record) }
    }

    /// Edits the row's columns as the app would (read, change, save).
    func edit(_ table: VersionedTable, _ id: UUID, _ values: ColumnValues) async throws {
        try await store.write { writer in
            if table.table.name == "tasks" {
                var task = try writer.fetchOne(TaskItem.self, id: id)!
                if let title = values["title"]?.text { task.title = title }
                if case .bool(let done)? = values["done"] { task.done = done }
                if let notes = values["notes"]?.text { task.notes = notes }
                try writer.save(task)
            } else {
                var list = try writer.fetchOne(TaskList.self, id: id)!
                if let name = values["name"]?.text { list.name = name }
                if case .double(let position)? = values["position"] { list.position = position }
                try writer.save(list)
            }
        }
    }

    func delete(_ table: VersionedTable, _ id: UUID) async throws {
        try await store.write { writer in
            if table.table.name == "tasks" { try writer.delete(TaskItem.self, id: id) } else { try writer.delete(TaskList.self, id: id) }
        }
    }

    /// The local row, every column.
    func row(_ table: VersionedTable, _ id: UUID) throws -> ColumnValues? {
        try rows(of: table.table)[id.uuidString.lowercased()]
    }

    static func configuration(resolver: ConflictResolver?) -> SyncConfiguration {
        var configuration = Device.configuration
        configuration.resolver = resolver
        return configuration
    }
}

extension TestServer {
    /// Runs `sql` as `user` would through PostgREST (role and claims set), as another device.
    func asUser(_ user: UUID, _ sql: String, _ parameters: [String?] = []) throws {
        try database.connect().request(asUser: user) { connection in _ = try connection.execute(sql, parameters) }
    }

    /// Runs `sql` as the project's owner (the superuser).
    func asOwner(_ sql: String, _ parameters: [String?] = []) throws {
        _ = try database.connect().execute(sql, parameters)
    }

    /// Runs a script of several statements as the project's owner.
    func asOwner(script: String) throws {
        try database.connect().execute(script: script)
    }
}
