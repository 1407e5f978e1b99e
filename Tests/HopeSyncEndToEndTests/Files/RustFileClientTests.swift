import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport
import Testing

/// A Rust client reads a file column as docs/PROTOCOL.md says, with the generated tables.rs and
/// no crates (Tests/Fixtures/RustFileClient): from a pulled row's value to the checked bytes.
@Suite struct RustFileClientTests {
    static let source = StorageServer.root.appendingPathComponent("Tests/Fixtures/RustFileClient/main.rs")

    @Test func aRustClientFetchesTheFileAPulledRowNames() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let user = UUID()
        let phone = try FileDevice("phone", user: user, server: server, storage: storage)
        let photo = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let taken = try await phone.savePhoto(photo)
        try await phone.sync()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rust-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = try Self.build(into: folder)

        // The row as a pull hands it to any client.
        let pulled = try await server.rows(of: TaskPhoto.table, for: user)
        let value = try #require(pulled[taken.id.uuidString.lowercased()]?["photo"]?.text)
        let arguments = [storage.projectURL.absoluteString, TestJWT.token(for: user), user.uuidString.lowercased(), "task_photos", "photo"]
        let fetched = try Self.run(client, arguments + [value, folder.path])
        #expect(fetched == "ok \(value) \(photo.count)\n")
        #expect(try Data(contentsOf: folder.appendingPathComponent(value)) == photo)

        // Another user's token: the object is not there for them.
        let stranger = UUID()
        let refused = try Self.run(
            client,
            [
                storage.projectURL.absoluteString, TestJWT.token(for: stranger), user.uuidString.lowercased(), "task_photos", "photo",
                value, folder.path,
            ])
        #expect(refused == "missing\n")
        try await storage.control(["not_found_shape": "404"])
        try await storage.remove(phone.object(taken))
        #expect(try Self.run(client, arguments + [value, folder.path]) == "missing\n")
    }

    static func build(into folder: URL) throws -> URL {
        let binary = folder.appendingPathComponent("rust-file-client")
        let output = try ProgramRun.rustc(["--edition", "2021", "-o", binary.path, source.path])
        #expect(output.status == 0 && !output.output.contains("warning"), "rustc:\n\(output.output)")
        return binary
    }

    static func run(_ binary: URL, _ arguments: [String]) throws -> String {
        let output = try ProgramRun.execute(binary.path, arguments)
        #expect(output.status == 0, "\(output.output)")
        return output.output
    }
}
