import Foundation
import HabitSchema
import SyncRuntime

// Two devices of one user: the phone adds a habit and checks it off, both sync through the
// in-memory server, and the laptop shows what the phone wrote. Exits 1 when it does not.

let user = UUID()
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("habit-app-\(UUID().uuidString)")
let schema = AppSchema(tables: GeneratedSchema.tables, migrations: GeneratedSchema.migrations)
let server = InMemoryServer(tables: GeneratedSchema.tables)

func device(_ name: String) throws -> (SyncStore, SyncEngine) {
    let directory = scratch.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let store = try SyncStore(directory: directory, schema: schema, userID: user)
    let engine = SyncEngine(store: store, transport: server) { Credentials(userID: user, accessToken: "fixture") }
    return (store, engine)
}

/// Returns whether the laptop shows what the phone wrote.
func phoneToLaptop() async throws -> Bool {
    let (phone, phoneEngine) = try device("phone")
    let (laptop, laptopEngine) = try device("laptop")
    let reading = Habit(name: "Read 10 pages")
    try await phone.write { tx in
        _ = try tx.save(reading)
        _ = try tx.save(CheckIn(habitId: reading.id, day: "2026-11-30"))
    }
    let pushed = try await phoneEngine.syncNow()
    let pulled = try await laptopEngine.syncNow()
    let habits = try await laptop.read { try $0.fetchAll(Habit.self) }
    let checkIns = try await laptop.read { try $0.fetchAll(CheckIn.self) }
    print("phone pushed \(pushed.pushed), laptop pulled \(pulled.pulled)")
    print("laptop sees: \(habits.map { "\($0.name) (\($0.perWeek) a week)" }), check-ins on \(checkIns.map(\.day))")
    return habits.map(\.name) == ["Read 10 pages"] && checkIns.map(\.habitId) == [reading.id]
}

let agreed = try await phoneToLaptop()
try? FileManager.default.removeItem(at: scratch)
guard agreed else {
    print("error: the laptop does not show what the phone wrote")
    exit(1)
}
