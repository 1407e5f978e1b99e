import Foundation
import HopeSchema
import HopeSync

/// The story of `sync-demo --shared`: Alice and Bob, a phone and a desk each. Alice shares her
/// grocery list with Bob as an editor; Bob's phone goes offline and edits the list; Alice removes
/// Bob meanwhile. When Bob's phone comes back the list leaves it, and the edits nobody accepted
/// are on its rejected list, saying why, instead of gone.
struct SharedListDemo: DemoStory {
    let server: DemoServer

    func tell(directory: URL) async throws {
        let (alice, bob) = (UUID(), UUID())
        func open(_ name: String, _ user: UUID) async throws -> DemoDevice {
            try await DemoDevice.open(
                name, user: user, directory: directory, transport: server.transport, startingAt: TimeTrackerDemo.nineOClock)
        }
        let (alicePhone, aliceDesk) = (try await open("alice-phone", alice), try await open("alice-desk", alice))
        let (bobPhone, bobDesk) = (try await open("bob-phone", bob), try await open("bob-desk", bob))
        let devices = [alicePhone, aliceDesk, bobPhone, bobDesk]
        print("Alice and Bob, a phone and a desk each, syncing through \(server.description).\n")

        let list = TaskList(name: "Groceries")
        let milk = TaskItem(title: "Milk", listId: list.id)
        try await aliceDesk.store.write { writer in
            try writer.save(list)
            try writer.save(milk)
            try writer.save(TaskItem(title: "Bread", listId: list.id))
        }
        print("alice-desk makes the list Groceries: Milk, Bread.")
        print(try await aliceDesk.sync())
        try await aliceDesk.client.share(list, with: bob, as: .editor)
        print("alice-desk shares Groceries with Bob as an editor.")
        for device in devices { print(try await device.sync()) }
        try show(devices)

        print("\nbob-phone goes offline, ticks Milk and adds Eggs.")
        await bobPhone.engine.setNetworkEnabled(false)
        try await bobPhone.store.write { writer in
            try writer.update(TaskItem.self, id: milk.id) { $0.done = true }
            try writer.save(TaskItem(title: "Eggs", listId: list.id))
        }
        try show([bobPhone])

        print("\nMeanwhile alice-phone removes Bob from Groceries.")
        try await alicePhone.client.removeMember(bob, from: list)
        for device in [aliceDesk, alicePhone, bobDesk] { print(try await device.sync()) }
        try show(devices)

        print("\nbob-phone comes back.")
        await bobPhone.engine.setNetworkEnabled(true)
        print(try await bobPhone.sync())
        try show(devices)
        let rejected = try await bobPhone.client.rejectedMutations()
        print("  bob-phone's rejected list:")
        for entry in rejected { print("    \(entry.table) \(entry.body?["title"]?.text ?? "(an edit)"): \(entry.message)") }

        let aliceLists = try [alicePhone, aliceDesk].map { try $0.listLines() }
        let bobLists = try [bobPhone, bobDesk].map { try $0.listLines() }
        if aliceLists[0] == aliceLists[1], aliceLists[0] == ["Groceries: Bread, Milk"], bobLists.allSatisfy(\.isEmpty),
            rejected.count == 2
        {
            print("\nAlice's devices agree on her list; Bob's hold none of it; his two unsent edits wait on his rejected list.")
        } else {
            print("\nThe devices disagree: Alice \(aliceLists), Bob \(bobLists), \(rejected.count) rejected.")
            throw DemoFailure(description: "the devices did not end as the story says")
        }
        for device in devices { await device.client.stop() }
    }

    private func show(_ devices: [DemoDevice]) throws {
        for device in devices {
            let lines = try device.listLines()
            print(
                "  \(device.name.padding(toLength: 11, withPad: " ", startingAt: 0)) sees: "
                    + (lines.isEmpty ? "no lists" : lines.joined(separator: "; ")))
        }
    }
}

extension DemoDevice {
    /// Each list the device holds with its tasks, ticked ones marked, oldest title first.
    func listLines() throws -> [String] {
        try store.read { reader in
            let tasks = try reader.fetchAll(TaskItem.self)
            return try reader.fetchAll(TaskList.self).map { list in
                let titles = tasks.filter { $0.listId == list.id }.sorted { $0.title < $1.title }.map {
                    $0.done ? "\($0.title) (done)" : $0.title
                }
                return "\(list.name): " + (titles.isEmpty ? "no tasks" : titles.joined(separator: ", "))
            }
        }
    }
}
