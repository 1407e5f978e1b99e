import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// Three devices of one user attach, replace and delete photos at random through offline
/// periods, Storage failing uploads and downloads (503, lost connections), refused tokens,
/// restarts and sign-outs. After every pass no server row names an object Storage lacks; once the faults stop
/// and every pause is over, every device holds the server's rows with their files' bytes, and no
/// file no row names. Runs: SYNC_RANDOM_RUNS (default 40); seed offset: SYNC_RANDOM_SEED.
@Suite struct FileRandomizedTests {
    @Test func noRowNamesAMissingObjectAndEveryDeviceEndsWithTheServersFiles() async throws {
        try await SeededRuns.recordFailures(defaultRuns: 40) { seed in try await FileRandomRun(seed: seed).run() }
    }
}

private struct FileRandomRun {
    let seed: UInt64
    let user: UUID
    let clock = ManualClock()
    let server = InMemoryServer.hope()
    let storage = InMemoryStorage()

    init(seed: UInt64) {
        self.seed = seed
        var generator = SeededGenerator(seed: seed &* 31)
        user = generator.uuid()
    }

    func run() async throws -> [String] {
        var random = SeededGenerator(seed: seed &* 6_151)
        var devices = try ["d1", "d2", "d3"].map { try FileDevice($0, user: user, server: server, storage: storage, clock: clock) }
        var problems: [String] = []
        for step in 0..<40 {
            let index = random.below(devices.count)
            let device = devices[index]
            switch random.below(100) {
            case 0..<25:
                _ = try await device.savePhoto("photo \(random.below(12))") // a repeat makes the same object
            case 25..<35:
                try await replacePhoto(on: device, &random)
            case 35..<42:
                try await deletePhoto(on: device, &random)
            case 42..<50:
                await device.engine.setNetworkEnabled(random.below(2) == 0)
            case 50..<56:
                let failure =
                    random.below(2) == 0
                    ? SyncError(.server, "unavailable", serverError: ServerError(status: 503, code: nil, message: "unavailable"))
                    : SyncError(.connectivity, "The connection was lost")
                await storage.failNextRequests(1 + random.below(3), with: failure)
            case 56..<60:
                await storage.setRefusesTokens(random.below(2) == 0)
            case 60..<64:
                devices[index] = try device.restarted(clock: clock)
            case 64..<66:
                try await device.engine.clearLocalData()
            default:
                clock.advance(Int64(random.below(90_000)))
                _ = try? await device.sync()
            }
            problems += try await rowsNamingMissingObjects().map { "step \(step): \($0)" }
        }
        // The faults stop; every pause runs out.
        await storage.clearFailures()
        await storage.setRefusesTokens(false)
        for device in devices { await device.engine.setNetworkEnabled(true) }
        clock.advance(7 * 3_600_000)
        for _ in 0..<2 {
            for device in devices { try await device.sync() }
        }
        problems += try await rowsNamingMissingObjects()
        for device in devices { problems += try await differences(device) }
        return problems
    }

    private func replacePhoto(on device: FileDevice, _ random: inout SeededGenerator) async throws {
        let pick = random.below(1_000)
        let bytes = "retaken \(random.below(12))"
        try await device.store.write { tx in
            let photos = try tx.fetchAll(TaskPhoto.self, orderBy: "id")
            guard !photos.isEmpty else { return }
            var photo = photos[pick % photos.count]
            photo.photo = try tx.attachFile(Data(bytes.utf8), fileExtension: "jpg")
            try tx.save(photo)
        }
    }

    private func deletePhoto(on device: FileDevice, _ random: inout SeededGenerator) async throws {
        let pick = random.below(1_000)
        try await device.store.write { tx in
            let photos = try tx.fetchAll(TaskPhoto.self, orderBy: "id")
            guard !photos.isEmpty else { return }
            try tx.delete(photos[pick % photos.count])
        }
    }

    /// Server rows whose object Storage does not hold.
    private func rowsNamingMissingObjects() async throws -> [String] {
        let objects = await storage.contents
        return await server.rows(of: "task_photos").values.compactMap { row in
            guard let name = row["photo"]?.text, objects["task-photos/\(user.lowercasedString)/\(name)"] == nil else { return nil }
            return "the server's row \(row["id"]?.text ?? "") names \(name), which Storage lacks"
        }
    }

    /// How a device differs from the server: rows, or a live row's file missing or wrong, or a
    /// file it keeps that no row names.
    private func differences(_ device: FileDevice) async throws -> [String] {
        let name = device.store.deviceID
        let serverRows = await server.rows(of: "task_photos").mapValues { "\($0["photo"]?.text ?? "") \($0["deleted_ms"] ?? .null)" }
        let local = try await device.store.read { try $0.rowValues(of: "task_photos") }
        let localRows = Dictionary(
            uniqueKeysWithValues: local.map { ($0["id"]?.text ?? "", "\($0["photo"]?.text ?? "") \($0["deleted_ms"] ?? .null)") })
        var problems: [String] = []
        if localRows != serverRows {
            let pending = try await device.store.read { try $0.pendingMutations() }.map { "\($0.operation) \($0.rowID)" }
            let waiting = try await device.store.read { try $0.fileStatuses() }.filter { $0.state != .synced }.map {
                "\($0.file) \($0.state)"
            }
            problems.append("\(name): rows \(localRows) differ from the server's \(serverRows); queued \(pending); files \(waiting)")
        }
        let objects = await storage.contents
        let live = Set(local.filter { $0["deleted_ms"] == .null }.compactMap { $0["photo"]?.text })
        for photo in live {
            let file = SyncFile(name: photo)!
            let bytes = try device.store.fileURL(for: file).map { try Data(contentsOf: $0) }
            if bytes == nil || bytes != objects["task-photos/\(user.lowercasedString)/\(photo)"] {
                problems.append("\(name): the file \(photo) is \(bytes == nil ? "missing" : "not the server's")")
            }
        }
        let kept = Set(try await device.store.read { try $0.fileStatuses() }.map(\.file.name))
        if !kept.isSubset(of: live) { problems.append("\(name): keeps files no row names: \(kept.subtracting(live).sorted())") }
        return problems
    }
}
