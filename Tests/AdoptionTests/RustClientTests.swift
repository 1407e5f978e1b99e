import Foundation
import Testing

/// Tests/Fixtures/RustClient: the habit app's desktop client in Rust (rusqlite and the generated
/// tables.rs), against the same SQLite files as the Swift runtime in the habit app. In the
/// habit app's serialized suite, since they run its executable.
extension HabitAppTests {
    @Test func rustClientBuildsOfflineWithoutWarningsUsingPartOfTablesRs() async throws {
        let build = try await Cargo.build()
        #expect(build.status == 0, "\(build.output)")
    }

    /// Rust migrates a new file and saves a row; Swift opens it (adding its bookkeeping), reads
    /// the row and saves one; Rust reads both. And a file Swift made, Rust reads.
    @Test func rustAndTheSwiftRuntimeOpenEachOthersDatabases() async throws {
        try #require(try await Cargo.build().status == 0)
        try #require(try await SwiftPM.run(["build"], in: SwiftPM.habitApp).status == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rust-swift-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let byRust = folder.appendingPathComponent("rust.sqlite").path
        let bySwift = folder.appendingPathComponent("swift.sqlite").path

        #expect(try await Cargo.client("write", byRust).output == "habit: Written by Rust, 5 a week\n")
        let swiftReads = try await execute(SwiftPM.habitAppBinary, ["write", byRust], in: folder)
        #expect(swiftReads.status == 0, "\(swiftReads.output)")
        #expect(swiftReads.output == "habit: Written by Rust, 5 a week\nhabit: Written by Swift, 2 a week\n")
        #expect(try await Cargo.client("read", byRust).output.contains("habit: Written by Swift, 2 a week"))

        #expect(try await execute(SwiftPM.habitAppBinary, ["write", bySwift], in: folder).status == 0)
        let rustReads = try await Cargo.client("read", bySwift)
        #expect(rustReads.status == 0, "\(rustReads.output)")
        #expect(rustReads.output == "habit: Written by Swift, 2 a week\n")
    }

    /// docs/PROTOCOL.md is enough to write a client's merge: a pulled row renamed later by the
    /// phone, with an older per_week, keeps the local per_week, takes the name and the newest
    /// stamp, and stays dirty (its per_week still has to go up).
    @Test func rustMergesAPulledRowColumnByColumnAsTheProtocolSays() async throws {
        try #require(try await Cargo.build().status == 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rust-merge-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: file) }
        let merge = try await Cargo.client("merge", file.path)
        #expect(merge.status == 0, "\(merge.output)")
        #expect(
            merge.output.contains(
                "merged: name=Stretch daily, per_week=5, updated_ms=1764540000500, device_id=phone, server_seq=42, dirty=1"))
    }
}
