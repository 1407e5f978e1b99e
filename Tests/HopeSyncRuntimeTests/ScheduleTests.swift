import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@Suite struct ScheduleTests {
    let user = UUID()
    let server = InMemoryServer.hope()
    let sleeper = ManualSleeper()

    func device(signIn: SignIn? = nil) throws -> TestDevice {
        var configuration = SyncConfiguration()
        configuration.sleep = sleeper.sleep
        return try TestDevice("a", user: user, transport: server, signIn: signIn, configuration: configuration)
    }

    static let unavailable = SyncError(.server, "unavailable", serverError: ServerError(status: 503, code: "PGRST000", message: "down"))

    @Test func backoffDoublesUpToAMinute() {
        let configuration = SyncConfiguration()
        let waits = (1...8).map { configuration.backoff(afterFailures: $0) }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(configuration.backoff(afterFailures: 0) == .seconds(5))
    }

    @Test func failuresBackOffExponentiallyAndSuccessResetsToPolling() async throws {
        let a = try device()
        await server.failNextRequests(3, with: Self.unavailable)
        await a.engine.start()
        for seconds in [1, 2, 4] {
            #expect(await sleeper.waitUntilSleeping(.seconds(seconds)))
            guard await a.engine.status.phase.kind == .backingOff else {
                Issue.record("expected backing off after a failure")
                return
            }
            sleeper.elapse(.seconds(seconds))
        }
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        let status = await a.engine.status
        #expect(status.phase == .idle && status.lastError == nil && status.hasSynced)
        await a.engine.stop()
        #expect(await a.engine.isRunning == false)
    }

    @Test func pollingPullsEveryInterval() async throws {
        let a = try device()
        let other = try TestDevice("b", user: user, transport: server)
        await a.engine.start()
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        let row = try await other.store.write { try $0.save(Activity(name: "From b")) }
        try await other.sync()
        sleeper.elapse(.seconds(5))
        #expect(try await eventually { try await a.store.read { try $0.fetchOne(Activity.self, id: row.id) } != nil })
        await a.engine.stop()
    }

    @Test func schemaDriftIsRetriedAtTheSlowestPace() async throws {
        let a = try device()
        await server.dropColumn("color", from: "activities")
        try await a.store.write { try $0.save(Activity(name: "Needs color")) }
        await a.engine.start()
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        guard let drift = await a.engine.status.phase.schemaDrift else {
            Issue.record("expected schema drift")
            return
        }
        #expect(drift.column == "color" && drift.table == "activities")
        let requests = await server.requestCount
        sleeper.elapse(.seconds(60))
        #expect(await eventually { await server.requestCount > requests })
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        #expect(sleeper.pending.contains(.seconds(5)) == false)
        await server.restoreColumn("color", to: "activities")
        sleeper.elapse(.seconds(60))
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        #expect(await a.engine.status.phase == .idle)
        #expect(try a.dirtyCount() == 0)
        await a.engine.stop()
    }

    @Test func theFirstWriteIsPushedAtOnceAndTheRestAfterTheDebounce() async throws {
        let a = try device()
        await a.engine.start()
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        try await a.store.write { try $0.save(Activity(name: "First")) }
        // Nothing to wait for: it goes at once.
        #expect(await eventually { await server.rows(of: "activities").count == 1 })
        #expect(await sleeper.waitUntilSleeping(.milliseconds(500)))
        try await a.store.write { try $0.save(Activity(name: "Second")) }
        try await a.store.write { try $0.save(Activity(name: "Third")) }
        // The writes that follow wait for writes to pause: the debounce restarts with each.
        #expect(
            await eventually {
                sleeper.startedCount(.milliseconds(500)) == 3 && sleeper.pending.filter { $0 == .milliseconds(500) }.count == 1
            })
        #expect(await server.rows(of: "activities").count == 1)
        sleeper.elapse(.milliseconds(500))
        #expect(await eventually { await server.rows(of: "activities").count == 3 })
        // After a quiet spell the next write goes at once again.
        try await a.store.write { try $0.save(Activity(name: "Fourth")) }
        #expect(await eventually { await server.rows(of: "activities").count == 4 })
        await a.engine.stop()
    }

    /// An auth library may report nobody signed in for a moment (at launch, say). The
    /// engine sends nothing meanwhile, shows it is waiting, and resumes by itself at sign-in.
    @Test func signedOutTheEngineWaitsAndResumesAtSignIn() async throws {
        let signIn = SignIn(user)
        let a = try device(signIn: signIn)
        await a.engine.start()
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        signIn.credentials = nil
        let requests = await server.requestCount
        sleeper.elapse(.seconds(5))
        #expect(await eventually { await a.engine.status.phase == .waitingForSignIn })
        #expect(await server.requestCount == requests)
        #expect(await a.engine.isRunning)
        try await a.store.write { try $0.save(Activity(name: "Written while signed out")) }
        signIn.credentials = Credentials(userID: user, accessToken: "token")
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        sleeper.elapse(.seconds(5))
        #expect(await eventually { await server.rows(of: "activities").count == 1 })
        #expect(await eventually { await a.engine.status.phase == .idle })
        await a.engine.stop()
    }

    @Test func reconnectingSyncsAtOnce() async throws {
        let a = try device()
        await a.engine.setNetworkEnabled(false)
        await a.engine.start()
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        #expect(await a.engine.status.phase == .offline)
        try await a.store.write { try $0.save(Activity(name: "Made offline")) }
        #expect(await server.requestCount == 0)
        await a.engine.setNetworkEnabled(true)
        #expect(await eventually { await server.rows(of: "activities").count == 1 })
        await a.engine.stop()
    }

    @Test func theStatusStreamStartsAtOnceAndFollowsPasses() async throws {
        let a = try device()
        try await a.store.write { try $0.save(Activity(name: "Pending")) }
        var updates = a.engine.statusUpdates().makeAsyncIterator()
        let first = await updates.next()
        #expect(first?.phase == .idle)
        try await a.sync()
        var phases: [SyncStatus.Phase] = []
        while let status = await updates.next() {
            phases.append(status.phase)
            if status.phase == .idle {
                #expect(status.dirtyCount == 0 && status.lastSyncedAt != nil)
                break
            }
        }
        #expect(phases.first == .syncing && phases.last == .idle)
    }

    @MainActor
    @Test func theObservableModelFollowsTheStatus() async throws {
        let a = try device()
        try await a.store.write { try $0.save(Activity(name: "Pending")) }
        let model = SyncStatusModel(engine: a.engine)
        #expect(await eventually { model.status.dirtyCount == 1 })
        try await a.sync()
        #expect(await eventually { model.status.hasSynced })
        #expect(model.status.dirtyCount == 0)
    }
}
