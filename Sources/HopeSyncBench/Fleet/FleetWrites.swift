import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport

/// What a device of a time tracker writes, with how often.
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

    /// Applies the write; false when there was nothing to apply it to. With `owner` (a fleet
    /// with shared lists) it edits only that user's own tasks and lists: a shared list's tasks
    /// are written by ``SharedWrites``, and a list shared with the user is not theirs to rename.
    func apply(_ writer: StoreWriter, pick: Int, serial: Int, device: String, owner: UUID? = nil) throws -> Bool {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let ownTasks = owner.map { _ in "list_id IS NULL" }
        let ownLists = owner.map { [SyncValue.text($0.uuidString.lowercased())] } ?? []
        let note = "\(device) #\(serial)"
        // The row `pick` chooses among `rows`, none when there are none.
        func one<Rows: Collection>(_ rows: Rows) -> Rows.Element? {
            rows.isEmpty ? nil : rows[rows.index(rows.startIndex, offsetBy: pick % rows.count)]
        }
        switch self {
        case .startSession:
            guard let activity = one(try writer.fetchAll(Activity.self)) else { return false }
            _ = try writer.save(Session(activityId: activity.id, startedMs: now, source: Session.Source.allCases[pick % 3]))
        case .stopSession:
            guard var open = try writer.fetchAll(Session.self, where: "ended_ms IS NULL", orderBy: "started_ms DESC").first else {
                return false
            }
            open.endedMs = max(open.startedMs + 1, now)
            _ = try writer.save(open)
        case .editSession:
            // The user's few latest sessions: every device of the user edits the same ones.
            guard var session = one(try writer.fetchAll(Session.self, orderBy: "started_ms DESC").prefix(4)) else { return false }
            if pick % 5 == 0 { session.source = Session.Source.allCases[serial % 3] } else { session.note = note }
            _ = try writer.save(session)
        case .deleteSession:
            let older = try writer.fetchAll(Session.self, where: "ended_ms IS NOT NULL", orderBy: "started_ms DESC").dropFirst(2)
            guard let session = one(older) else { return false }
            return try writer.delete(Session.self, id: session.id)
        case .newActivity:
            _ = try writer.save(Activity(name: "Activity \(note)", sortOrder: Double(serial % 100)))
        case .editActivity:
            guard var activity = one(try writer.fetchAll(Activity.self)) else { return false }
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
            guard var task = one(try writer.fetchAll(TaskItem.self, where: ownTasks)) else { return false }
            switch serial % 3 {
            case 0: task.done.toggle()
            case 1: task.title = "Task renamed \(note)"
            default: task.notes = note
            }
            _ = try writer.save(task)
        case .deleteTask:
            let tasks = try writer.fetchAll(TaskItem.self, where: ownTasks)
            guard tasks.count > 3, let task = one(tasks) else { return false }
            return try writer.delete(TaskItem.self, id: task.id)
        case .newList:
            _ = try writer.save(TaskList(name: "List \(note)", position: Double(serial % 100)))
        case .editList:
            guard var list = one(try writer.fetchAll(TaskList.self, where: owner.map { _ in "user_id = ?" }, ownLists)) else {
                return false
            }
            if serial % 2 == 0 { list.position = Double(serial % 1000) / 4 } else { list.name = "List renamed \(note)" }
            _ = try writer.save(list)
        }
        return true
    }
}

/// How many writes of each action the devices made, found nothing to change, or failed.
final class WriteCounts: Sendable {
    struct Snapshot {
        var done: [WriteAction: Int] = [:]
        var skipped = 0
        var errors: [String: Int] = [:]

        var line: String {
            let total = done.values.reduce(0, +)
            return "\(total) ("
                + WriteAction.allCases.compactMap { action in done[action].map { "\(action.rawValue) \($0)" } }.joined(separator: ", ")
                + "), \(skipped) found nothing to change; errors: "
                + (errors.isEmpty ? "none" : errors.map { "\($0.key) x\($0.value)" }.joined(separator: "; "))
        }
    }

    private let counts = Locked(Snapshot())

    func add(_ action: WriteAction, wrote: Bool) {
        counts.withLock { counts in
            if wrote { counts.done[action, default: 0] += 1 } else { counts.skipped += 1 }
        }
    }

    func failed(_ action: WriteAction, _ error: any Error) {
        let code = (error as? SyncError).map { "\($0.code)" } ?? "\(type(of: error))"
        counts.withLock { $0.errors["\(action.rawValue) \(code)", default: 0] += 1 }
    }

    var snapshot: Snapshot { counts.value }
}

/// The errors that ended the engines' passes, read from their status updates: a pass that
/// fails publishes its error as it leaves `.syncing` (later publishes repeat it and are not
/// counted again).
final class PassErrors: Sendable {
    private let byCode = Locked([String: Int]())

    func watch(_ engine: SyncEngine) {
        let updates = engine.statusUpdates()
        Task {
            var previous: SyncStatus.Phase?
            for await status in updates {
                defer { previous = status.phase }
                guard previous == .syncing, status.phase != .syncing, let error = status.lastError else { continue }
                let key = "\(error.code) \(error.serverError?.code ?? "")".trimmingCharacters(in: .whitespaces)
                byCode.withLock { $0[key, default: 0] += 1 }
            }
        }
    }

    var counts: [String: Int] { byCode.value }
}
