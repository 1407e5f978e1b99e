import Foundation
import HabitSchema
@_spi(Transport) import HopeSync
import HopeSyncTesting
import Locking
import Postgres
import SQLite
import Supabase

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

/// One device with one SyncClient, signed in and out through supabase-swift's auth (the
/// stand-in) and the adapter README shows: a first token refused and refreshed once, a switch
/// from Alice to Bob and back, Bob's data cleared at his sign-out. Returns whether each user saw
/// only their own habits.
func signInsThroughSupabase() async throws -> Bool {
    let supabase = SupabaseClient(supabaseURL: URL(string: "https://habit.supabase.co")!, supabaseKey: "anon-key")
    let directory = scratch.appendingPathComponent("client")
    let client = SyncClient(schema: schema, directory: directory, auth: SupabaseAuthSource(auth: supabase.auth)) { tokens in
        SyncClient.Connection(transport: ExpiringTokens(server: server, tokens: tokens))
    }
    let (alice, bob) = (UUID(), UUID())
    func signedIn(_ user: UUID?) async throws -> SyncStore? {
        for _ in 0..<500 where await client.userID != user { try await Task.sleep(for: .milliseconds(10)) }
        return await client.store
    }
    func habits(_ store: SyncStore?) async throws -> [String] {
        try await store?.read { try $0.fetchAll(Habit.self, orderBy: "name").map(\.name) } ?? []
    }

    await client.start()
    print("signed out: store \(await client.store == nil ? "none" : "open"), \(await client.status.phase)")
    supabase.auth.standInSignIn(alice)
    let aliceStore = try await signedIn(alice)
    try await aliceStore?.write { tx in _ = try tx.save(Habit(name: "Alice runs")) }
    try await client.syncNow()
    print("alice signed in: \(supabase.auth.standInRefreshes) refresh, sees \(try await habits(aliceStore))")

    supabase.auth.standInSignIn(bob)
    let bobStore = try await signedIn(bob)
    try await client.syncNow()
    print("switched to bob: sees \(try await habits(bobStore))")
    try await bobStore?.write { tx in _ = try tx.save(Habit(name: "Bob swims")) }
    try await client.syncNow()

    await client.setSignOutPolicy(.clearData)
    try await supabase.auth.signOut()
    _ = try await signedIn(nil)
    let bobsFile = SyncStore.databaseURL(for: bob, in: directory)
    // The session ends at once (nobody writes to a store being closed); the files go once its
    // engine has settled, just after.
    for _ in 0..<500 where FileManager.default.fileExists(atPath: bobsFile.path) { try await Task.sleep(for: .milliseconds(10)) }
    print("bob signed out: file \(FileManager.default.fileExists(atPath: bobsFile.path) ? "kept" : "deleted")")

    supabase.auth.standInSignIn(alice)
    let again = try await signedIn(alice)
    // Read before any pass: what Alice sees is her kept file.
    let seen = try await habits(again)
    try await client.syncNow()
    print("alice again: her kept file shows \(seen); \(supabase.auth.standInRefreshes) refreshes in all")
    await client.stop()
    return seen == ["Alice runs"] && !FileManager.default.fileExists(atPath: bobsFile.path)
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
let separated = try await signInsThroughSupabase()
try? FileManager.default.removeItem(at: scratch)
guard agreed else {
    print("error: the laptop does not show what the phone wrote")
    exit(1)
}
guard separated else {
    print("error: a user saw another user's habits, or a cleared user's file stayed")
    exit(1)
}
