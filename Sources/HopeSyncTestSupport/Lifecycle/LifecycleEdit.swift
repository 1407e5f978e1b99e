import Foundation
import HopeSync
import HopeSyncLifecycleSchemaV1
import HopeSyncLifecycleSchemaV2
import HopeSyncLifecycleSchemaV3

/// One random edit of the Lifecycle fixture's app, drawn before the write so each build's variant
/// makes the same choices: a new row, a delete, a restore, or some columns of a row set.
package struct LifecycleEdit: Sendable {
    let choice: Int
    let pick: Int
    let number: Int
    let id: UUID
    let columns: (Bool, Bool, Bool, Bool)

    package init(_ random: inout SeededGenerator) {
        (choice, pick, number, id) = (random.below(6), random.below(1_000), random.below(1_000), random.uuid())
        columns = (random.below(2) == 0, random.below(2) == 0, random.below(2) == 0, random.below(2) == 0)
    }

    /// A goal as text: a number most times, sometimes text the retype's `back` cannot read.
    private var goalText: String? { number % 7 == 0 ? nil : number % 3 == 0 ? "g\(number)" : String(number) }

    /// The row to edit, or nil when the edit makes a new row (or the table has none).
    private func row<Record: SyncRecord>(_ tx: StoreWriter, _ type: Record.Type) throws -> Record? {
        let rows = try tx.fetchAll(type, orderBy: "id", includingDeleted: true)
        guard choice > 0, !rows.isEmpty else { return nil }
        return rows[pick % rows.count]
    }

    package func habitV1(_ tx: StoreWriter) throws {
        guard var habit = try row(tx, HopeSyncLifecycleSchemaV1.Habit.self) else {
            try tx.save(HopeSyncLifecycleSchemaV1.Habit(id: id, name: "habit \(number)", streak: Int64(number)))
            return
        }
        if choice == 1 { return try delete(tx, habit) }
        if choice == 2 { habit.deletedMs = nil }
        if columns.0 { habit.name = "name \(number)" }
        if columns.1 { habit.color = "#\(number)" }
        if columns.2 { habit.streak = Int64(number) }
        if columns.3 { habit.goal = number % 7 == 0 ? nil : Int64(number) }
        try tx.save(habit)
    }

    package func habitV2(_ tx: StoreWriter) throws {
        try titledHabit(tx) { HopeSyncLifecycleSchemaV2.Habit(id: $0, title: $1, goalText: $2) }
    }

    package func habitV3(_ tx: StoreWriter) throws {
        try titledHabit(tx) { HopeSyncLifecycleSchemaV3.Habit(id: $0, title: $1, goalText: $2) }
    }

    /// The edit of a habit as the builds after the rename hold it (v2 and v3 alike).
    private func titledHabit<Habit: TitledHabit>(_ tx: StoreWriter, _ make: (UUID, String, String?) -> Habit) throws {
        guard var habit = try row(tx, Habit.self) else {
            try tx.save(make(id, "habit \(number)", goalText))
            return
        }
        if choice == 1 { return try delete(tx, habit) }
        if choice == 2 { habit.deletedMs = nil }
        if columns.0 { habit.title = "title \(number)" }
        if columns.1 { habit.color = "#\(number)" }
        if columns.2 || columns.3 { habit.goalText = goalText }
        try tx.save(habit)
    }

    package func noteV1(_ tx: StoreWriter) throws {
        guard var note = try row(tx, HopeSyncLifecycleSchemaV1.Note.self) else {
            try tx.save(HopeSyncLifecycleSchemaV1.Note(id: id, heading: "note \(number)"))
            return
        }
        if choice == 1 { return try delete(tx, note) }
        if columns.0 || columns.1 { note.heading = "heading \(number)" }
        if columns.2 || columns.3 { note.body = "body \(number)" }
        try tx.save(note)
    }

    package func noteV2(_ tx: StoreWriter) throws {
        try titledNote(tx) { HopeSyncLifecycleSchemaV2.Note(id: $0, title: $1) }
    }

    package func noteV3(_ tx: StoreWriter) throws {
        try titledNote(tx) { HopeSyncLifecycleSchemaV3.Note(id: $0, title: $1) }
    }

    /// The edit of a note as the builds after the rename hold it (v2 and v3 alike).
    private func titledNote<Note: TitledNote>(_ tx: StoreWriter, _ make: (UUID, String) -> Note) throws {
        guard var note = try row(tx, Note.self) else {
            try tx.save(make(id, "note \(number)"))
            return
        }
        if choice == 1 { return try delete(tx, note) }
        if columns.0 || columns.1 { note.title = "title \(number)" }
        if columns.2 || columns.3 { note.body = "body \(number)" }
        try tx.save(note)
    }

    package func tag(_ tx: StoreWriter) throws {
        guard var tag = try row(tx, HopeSyncLifecycleSchemaV1.Tag.self) else {
            try tx.save(HopeSyncLifecycleSchemaV1.Tag(id: id, label: "tag \(number)"))
            return
        }
        if choice == 1 { return try delete(tx, tag) }
        tag.label = "label \(number)"
        try tx.save(tag)
    }

    private func delete<Record: SyncRecord>(_ tx: StoreWriter, _ record: Record) throws {
        _ = try tx.delete(record)
    }
}

/// A habit of the builds after the rename: v2's and v3's have the same columns.
private protocol TitledHabit: SyncRecord {
    var title: String { get set }
    var color: String { get set }
    var goalText: String? { get set }
    var deletedMs: Int64? { get set }
}

extension HopeSyncLifecycleSchemaV2.Habit: TitledHabit {}
extension HopeSyncLifecycleSchemaV3.Habit: TitledHabit {}

/// A note of the builds after the rename: v2's and v3's have the same columns.
private protocol TitledNote: SyncRecord {
    var title: String { get set }
    var body: String? { get set }
}

extension HopeSyncLifecycleSchemaV2.Note: TitledNote {}
extension HopeSyncLifecycleSchemaV3.Note: TitledNote {}
