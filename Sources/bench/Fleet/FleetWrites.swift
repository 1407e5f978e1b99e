import Foundation
import HopeSchema
import Postgres
import PostgresCluster
import SyncPostgres
import SyncRuntime
import SyncTestSupport

// MARK: Writes

enum WriteAction: String, CaseIterable, Sendable {
    case startSession, stopSession, editSession, deleteSession
    case newActivity, editActivity
    case newTask, editTask, deleteTask
    case newList, editList

    /// Weights out of 100: a time tracker's mix, sessions first.
    var weight: Int {
        switch self {
        case .startSession: 18
        case .stopSession: 14
        case .editSession: 18
        case .deleteSession: 5
        case .newActivity: 4
        case .editActivity: 15
        case .newTask: 5
        case .editTask: 10
        case .deleteTask: 3
        case .newList: 2
        case .editList: 6
        }
    }

    static func pick(_ random: inout SeededGenerator) -> WriteAction {
        var roll = Int(random.next() % 100)
        for action in allCases {
            if roll < action.weight { return action }
            roll -= action.weight
        }
        return .editSession
    }

    /// Applies the write; false when there was nothing to apply it to.
    func apply(_ writer: StoreWriter, pick: Int, serial: Int, device: String) throws -> Bool {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let note = "\(device) #\(serial)"
        switch self {
        case .startSession:
            let activities = try writer.fetchAll(Activity.self)
            guard !activities.isEmpty else { return false }
            let source = Session.Source.allCases[pick % 3]
            _ = try writer.save(Session(activityId: activities[pick % activities.count].id, startedMs: now, source: source))
        case .stopSession:
            guard var open = try writer.fetchAll(Session.self, where: "ended_ms IS NULL", orderBy: "started_ms DESC").first else {
                return false
            }
            open.endedMs = max(open.startedMs + 1, now)
            _ = try writer.save(open)
        case .editSession:
            // The user's few latest sessions: every device of the user edits the same ones.
            let recent = try writer.fetchAll(Session.self, orderBy: "started_ms DESC").prefix(4)
            guard !recent.isEmpty else { return false }
            var session = recent[recent.startIndex + pick % recent.count]
            if pick % 5 == 0 { session.source = Session.Source.allCases[serial % 3] } else { session.note = note }
            _ = try writer.save(session)
        case .deleteSession:
            let older = try writer.fetchAll(Session.self, where: "ended_ms IS NOT NULL", orderBy: "started_ms DESC").dropFirst(2)
            guard !older.isEmpty else { return false }
            return try writer.delete(Session.self, id: older[older.startIndex + pick % older.count].id)
        case .newActivity:
            _ = try writer.save(Activity(name: "Activity \(note)", sortOrder: Double(serial % 100)))
        case .editActivity:
            let activities = try writer.fetchAll(Activity.self)
            guard !activities.isEmpty else { return false }
            var activity = activities[pick % activities.count]
            switch serial % 4 {
            case 0: activity.name = "Renamed \(note)"
            case 1: activity.color = String(format: "#%06X", serial % 0xFFFFFF)
            case 2: activity.sortOrder = Double(serial % 1000) / 8
            default: activity.metadata = #"{"by": "\#(device)", "n": \#(serial)}"#
            }
            _ = try writer.save(activity)
        case .newTask:
            _ = try writer.save(TaskItem(title: "Task \(note)"))
        case .editTask:
            let tasks = try writer.fetchAll(TaskItem.self)
            guard !tasks.isEmpty else { return false }
            var task = tasks[pick % tasks.count]
            switch serial % 3 {
            case 0: task.done.toggle()
            case 1: task.title = "Task renamed \(note)"
            default: task.notes = note
            }
            _ = try writer.save(task)
        case .deleteTask:
            let tasks = try writer.fetchAll(TaskItem.self)
            guard tasks.count > 3 else { return false }
            return try writer.delete(TaskItem.self, id: tasks[pick % tasks.count].id)
        case .newList:
            _ = try writer.save(TaskList(name: "List \(note)", position: Double(serial % 100)))
        case .editList:
            let lists = try writer.fetchAll(TaskList.self)
            guard !lists.isEmpty else { return false }
            var list = lists[pick % lists.count]
            if serial % 2 == 0 { list.position = Double(serial % 1000) / 4 } else { list.name = "List renamed \(note)" }
            _ = try writer.save(list)
        }
        return true
    }
}

final class WriteCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var done: [WriteAction: Int] = [:]
    private var skipped = 0
    private var errors: [String: Int] = [:]

    struct Snapshot {
        let done: [WriteAction: Int]
        let skipped: Int
        let errors: [String: Int]

        var line: String {
            let total = done.values.reduce(0, +)
            return "\(total) ("
                + WriteAction.allCases.compactMap { action in done[action].map { "\(action.rawValue) \($0)" } }.joined(separator: ", ")
                + "), \(skipped) found nothing to change; errors: "
                + (errors.isEmpty ? "none" : errors.map { "\($0.key) x\($0.value)" }.joined(separator: "; "))
        }
    }

    func add(_ action: WriteAction, wrote: Bool) {
        lock.withLock {
            if wrote { done[action, default: 0] += 1 } else { skipped += 1 }
        }
    }

    func failed(_ action: WriteAction, _ error: any Error) {
        let code = (error as? SyncError).map { "\($0.code)" } ?? "\(type(of: error))"
        lock.withLock { errors["\(action.rawValue) \(code)", default: 0] += 1 }
    }

    var snapshot: Snapshot { lock.withLock { Snapshot(done: done, skipped: skipped, errors: errors) } }
}

/// The errors that ended the engines' passes, read from their status updates: a pass that
/// fails publishes its error as it leaves `.syncing` (later publishes repeat it and are not
/// counted again).
final class PassErrors: @unchecked Sendable {
    private let lock = NSLock()
    private var byCode: [String: Int] = [:]

    func watch(_ engine: SyncEngine) {
        let updates = engine.statusUpdates()
        Task {
            var previous: SyncStatus.Phase?
            for await status in updates {
                defer { previous = status.phase }
                guard previous == .syncing, status.phase != .syncing, let error = status.lastError else { continue }
                let key = "\(error.code) \(error.serverError?.code ?? "")".trimmingCharacters(in: .whitespaces)
                lock.withLock { byCode[key, default: 0] += 1 }
            }
        }
    }

    var counts: [String: Int] { lock.withLock { byCode } }
}
