import Foundation
import HopeSyncTestSupport
import Testing

/// The generated Swift of every reference schema type-checks against the runtime, as the
/// project's own Generated/swift does by being the HopeSchema target. Covers what the
/// project's schema does not reach: enum values that are not identifiers, quoted defaults,
/// every column type.
@Suite struct SwiftOutputTests {
    /// The build folder holding this test binary, whose Modules/ has HopeSync.swiftmodule.
    static let modules: URL? = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("HopeSync.swiftmodule").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }()

    @Test(arguments: ReferenceTests.cases)
    func referenceSwiftTypeChecks(_ name: String) throws {
        try Self.typeCheck(ReferenceTests.root.appendingPathComponent(name).appendingPathComponent("expected/swift"), name: name)
    }

    /// swiftc type-checks the Swift files in `folder` against the runtime, with no warning.
    static func typeCheck(_ folder: URL, name: String) throws {
        let modules = try #require(Self.modules, "no Modules folder with HopeSync beside the test binary")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(!files.isEmpty)
        let cSQLite = packageRoot.appendingPathComponent("Sources/CHopeSyncSQLite").path
        let arguments =
            ["-typecheck", "-swift-version", "6", "-warnings-as-errors", "-I", modules.path, "-I", cSQLite]
            + files.map { folder.appendingPathComponent($0).path }
        let swiftc = try ProgramRun.execute("swiftc", arguments)
        #expect(swiftc.status == 0, "\(name): \(swiftc.output)")
    }
}
