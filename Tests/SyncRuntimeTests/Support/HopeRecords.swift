import Foundation
import SyncRuntime

struct Activity: SyncRecord {
    static var table: TableSchema { HopeFixture.activities }
    var id: UUID
    var userId: UUID?
    var name: String
    var color: String
    var archived: Bool
    var sortOrder: Double
    var metadata: String?
    var updatedMs: Int64
    var deletedMs: Int64?
    var deviceId: String
    var serverSeq: Int64?

    init(id: UUID = UUID(), name: String, color: String = "#8E8E93", archived: Bool = false, sortOrder: Double = 0, metadata: String? = nil) {
        self.id = id
        self.userId = nil
        self.name = name
        self.color = color
        self.archived = archived
        self.sortOrder = sortOrder
        self.metadata = metadata
        self.updatedMs = 0
        self.deletedMs = nil
        self.deviceId = ""
        self.serverSeq = nil
    }

    enum CodingKeys: String, CodingKey {
        case id, name, color, archived, metadata
        case userId = "user_id", sortOrder = "sort_order", updatedMs = "updated_ms", deletedMs = "deleted_ms"
        case deviceId = "device_id", serverSeq = "server_seq"
    }
}

struct Session: SyncRecord {
    static var table: TableSchema { HopeFixture.sessions() }
    var id: UUID
    var userId: UUID?
    var activityId: UUID
    var startedMs: Int64
    var endedMs: Int64?
    var note: String?
    var source: Source
    var updatedMs: Int64
    var deletedMs: Int64?
    var deviceId: String
    var serverSeq: Int64?

    enum Source: String, Codable, Sendable, CaseIterable {
        case desktop, phone, watch
    }

    init(id: UUID = UUID(), activityId: UUID, startedMs: Int64, endedMs: Int64? = nil, note: String? = nil, source: Source = .desktop) {
        self.id = id
        self.userId = nil
        self.activityId = activityId
        self.startedMs = startedMs
        self.endedMs = endedMs
        self.note = note
        self.source = source
        self.updatedMs = 0
        self.deletedMs = nil
        self.deviceId = ""
        self.serverSeq = nil
    }

    enum CodingKeys: String, CodingKey {
        case id, note, source
        case userId = "user_id", activityId = "activity_id", startedMs = "started_ms", endedMs = "ended_ms"
        case updatedMs = "updated_ms", deletedMs = "deleted_ms", deviceId = "device_id", serverSeq = "server_seq"
    }
}

struct TodoTask: SyncRecord {
    static var table: TableSchema { HopeFixture.tasks }
    var id: UUID
    var userId: UUID?
    var title: String
    var notes: String?
    var done: Bool
    var dueAt: String?
    var deletedMs: Int64?
    var updatedAt: String?
    var serverSeq: Int64?

    init(id: UUID = UUID(), title: String, notes: String? = nil, done: Bool = false, dueAt: String? = nil) {
        self.id = id
        self.userId = nil
        self.title = title
        self.notes = notes
        self.done = done
        self.dueAt = dueAt
        self.deletedMs = nil
        self.updatedAt = nil
        self.serverSeq = nil
    }

    enum CodingKeys: String, CodingKey {
        case id, title, notes, done
        case userId = "user_id", dueAt = "due_at", deletedMs = "deleted_ms", updatedAt = "updated_at", serverSeq = "server_seq"
    }
}

struct TaskList: SyncRecord {
    static var table: TableSchema { HopeFixture.taskLists }
    var id: UUID
    var userId: UUID?
    var name: String
    var position: Double
    var icon: Data?
    var deletedMs: Int64?
    var version: Int64?
    var serverSeq: Int64?

    init(id: UUID = UUID(), name: String, position: Double = 0, icon: Data? = nil) {
        self.id = id
        self.userId = nil
        self.name = name
        self.position = position
        self.icon = icon
        self.deletedMs = nil
        self.version = nil
        self.serverSeq = nil
    }

    enum CodingKeys: String, CodingKey {
        case id, name, position, icon, version
        case userId = "user_id", deletedMs = "deleted_ms", serverSeq = "server_seq"
    }
}
