import Foundation
import HopeSync

/// One story the demo tells: its devices in a temporary directory of their own, removed at the
/// end; the exit code says whether the devices ended as the story says.
protocol DemoStory {
    func tell(directory: URL) async throws
}

extension DemoStory {
    func run() async -> Int32 {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try await tell(directory: directory)
            return 0
        } catch let error as SyncError {
            print("sync-demo failed: \(error.message)")
            return 1
        } catch {
            print("sync-demo failed: \(error)")
            return 1
        }
    }
}

/// The devices did not end as the story says.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
}
