import Foundation
import HopeSchema
import HopeSync

/// The story: a desk and a phone of one user. Both start a timer while offline, the desk first;
/// both come back; the server and both devices keep only the later timer running.
struct TimeTrackerDemo: DemoStory {
    let server: DemoServer
    /// 2026-11-30 09:00 UTC: fixed, so the output is the same every run.
    static let nineOClock: Int64 = 1_796_029_200_000

    func tell(directory: URL) async throws {
        let user = UUID()
        let desk = try await DemoDevice.open(
            "desk", user: user, directory: directory, transport: server.transport, startingAt: Self.nineOClock)
        let phone = try await DemoDevice.open(
            "phone", user: user, directory: directory, transport: server.transport, startingAt: Self.nineOClock)
        print("Two devices of one user, syncing through \(server.description).\n")

        let work = try await desk.store.write { try $0.save(Activity(name: "Work")) }
        print(try await desk.sync())
        print(try await phone.sync())
        try show([desk, phone], work: work)

        print("\nBoth go offline.")
        await desk.engine.setNetworkEnabled(false)
        await phone.engine.setNetworkEnabled(false)
        desk.now = Self.nineOClock + 5 * 60_000
        try await desk.store.write { _ = try $0.save(Session(activityId: work.id, startedMs: desk.now, source: .desktop)) }
        print("desk starts a timer at \(Self.clock(desk.now)).")
        phone.now = Self.nineOClock + 20 * 60_000
        try await phone.store.write { _ = try $0.save(Session(activityId: work.id, startedMs: phone.now, source: .phone)) }
        print("phone starts a timer at \(Self.clock(phone.now)).")
        print(try await desk.sync())
        try show([desk, phone], work: work)

        print("\nThe desk comes back.")
        await desk.engine.setNetworkEnabled(true)
        print(try await desk.sync())
        try show([desk, phone], work: work)

        print("\nThe phone comes back.")
        await phone.engine.setNetworkEnabled(true)
        print(try await phone.sync())
        try show([desk, phone], work: work)

        print("\nThe desk syncs again.")
        print(try await desk.sync())
        try show([desk, phone], work: work)

        let running = try [desk, phone].map { try $0.sessions().filter { $0.endedMs == nil && $0.deletedMs == nil } }
        if running[0].count == 1, running[0] == running[1], let session = running[0].first {
            print("\nBoth agree: one running session, \(session.source.rawValue)'s, started at \(Self.clock(session.startedMs)).")
        } else {
            print("\nThe devices disagree: desk runs \(running[0].count) session(s), phone \(running[1].count).")
            throw DemoFailure(description: "the devices did not converge")
        }
        await desk.client.stop()
        await phone.client.stop()
    }

    private func show(_ devices: [DemoDevice], work: Activity) throws {
        for device in devices {
            let sessions = try device.sessions()
            let lines = sessions.map { session in
                let end = session.endedMs.map { "ended \(Self.clock($0))" } ?? "running"
                return "\(work.name) on the \(session.source.rawValue), started \(Self.clock(session.startedMs)), \(end)"
            }
            print(
                "  \(device.name.padding(toLength: 6, withPad: " ", startingAt: 0)) sees: "
                    + (lines.isEmpty ? "no sessions" : lines.joined(separator: "; ")))
        }
    }

    /// `HH:mm` in UTC.
    static func clock(_ ms: Int64) -> String {
        let minutes = (ms / 60_000) % (24 * 60)
        return String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
