import Foundation
import HabitSchema
import HopeSync
import HopeSyncTesting
import Locking
import Postgres
import SQLite

// Two devices of one user: the phone adds a habit and checks it off, both sync through the
// in-memory server, and the laptop shows what the phone wrote. Exits 1 when it does not.
//
// `HabitApp write FILE` / `HabitApp read FILE`: saves a habit into / lists the habits of a
// database file, for the tests that share one file with the Rust client.

let user = UUID()
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("habit-app-\(UUID().uuidString)")
let schema = GeneratedSchema.app
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

/// The user both runtimes use for a shared file.
let sharedUser = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!

let arguments = CommandLine.arguments.dropFirst()
if arguments.count == 2, let mode = arguments.first, let path = arguments.last {
    let store = try SyncStore(path: path, schema: schema, userID: sharedUser)
    if mode == "write" {
        _ = try store.write { tx in try tx.save(Habit(name: "Written by Swift", perWeek: 2)) }
    }
    for habit in try store.read({ try $0.fetchAll(Habit.self) }).sorted(by: { $0.name < $1.name }) {
        print("habit: \(habit.name), \(habit.perWeek) a week")
    }
    exit(0)
}

// The app's own modules, named as hope-sync's once were, build and link beside hope-sync's.
print("own modules: \(OwnSQLite.name) and \(OwnPostgres.name), on \(OwnSQLite.uses) and \(OwnPostgres.uses)")

let agreed = try await phoneToLaptop()
try? FileManager.default.removeItem(at: scratch)
guard agreed else {
    print("error: the laptop does not show what the phone wrote")
    exit(1)
}
