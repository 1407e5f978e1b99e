import Foundation
import Testing

/// Tests/Fixtures/HabitApp is a new app that follows only the README ("Use it in your app"): its
/// own schema.yaml and Generated/, hope-sync as a path dependency, the CheckGeneratedSync plugin
/// on its schema target, and modules of its own named `SQLite`, `Postgres` and `Locking` (as
/// SQLite.swift's and other packages' are), which build beside hope-sync's prefixed ones. These
/// build it with the real `swift` as its developer would (the first run builds hope-sync's
/// runtime and generator for it, a minute or two; later runs are incremental). Serialized: they
/// share one copy of the app and its scratch path.
@Suite(.serialized) struct HabitAppTests {
    @Test func buildsWithoutWarningsAndSyncsTwoDevices() async throws {
        let build = try await SwiftPM.run(["build"], in: SwiftPM.habitApp)
        #expect(build.status == 0, "\(build.output)")
        #expect(build.warnings.isEmpty, "\(build.warnings)")
        let app = try await SwiftPM.run(["run", "--skip-build", "HabitApp"], in: SwiftPM.habitApp)
        #expect(app.status == 0, "\(app.output)")
        #expect(app.output.contains("own modules: SQLite and Postgres, on Locking and Locking"))
        #expect(app.output.contains("phone pushed 2, laptop pulled 2"))
        #expect(app.output.contains(#"laptop sees: ["Read 10 pages (7 a week)"], check-ins on ["2026-11-30"]"#))
        // One SyncClient through the Supabase adapter: each sign-in's first token is refused and
        // refreshed once, a switch shows only Bob's habits, Bob's sign-out clears his file, and
        // Alice's kept file reopens with her habit.
        #expect(app.output.contains("signed out: store none, waitingForSignIn"), "\(app.output)")
        #expect(app.output.contains(#"alice signed in: 1 refresh, sees ["Alice runs"]"#))
        #expect(app.output.contains("switched to bob: sees []"))
        #expect(app.output.contains("bob signed out: file deleted"))
        #expect(app.output.contains(#"alice again: her kept file shows ["Alice runs"]; 3 refreshes in all"#))
    }

    /// The Supabase adapter the README shows is the file the app compiles and runs, verbatim.
    @Test func theREADMEShowsTheSupabaseAdapterTheAppRuns() throws {
        let adapter = try String(
            contentsOf: SwiftPM.fixture.appendingPathComponent("Sources/HabitApp/SupabaseAuthSource.swift"), encoding: .utf8)
        let readme = try String(contentsOf: SwiftPM.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + adapter + "```\n"))
    }

    /// `generate` is a product of the dependency, so `swift run generate` works in the app.
    @Test func swiftRunGenerateWorksInTheAppsOwnPackage() async throws {
        let check = try await SwiftPM.run(["run", "generate", "--check"], in: SwiftPM.habitApp)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("Generated/ is current."))
    }

    /// A column added to schema.yaml without generating: the build fails and says how to fix it;
    /// the command plugin writes Generated/ (with the permission SwiftPM asks for) and the build
    /// passes again, the new column in the Swift row type.
    @Test func aStaleGeneratedFailsTheBuildUntilTheCommandPluginRegeneratesIt() async throws {
        try await SwiftPM.restoringSchema(addAColumnAndBuild)
    }

    private func addAColumnAndBuild() async throws {
        let app = SwiftPM.habitApp
        let schema = app.appendingPathComponent("schema.yaml")
        try Data((try String(contentsOf: schema, encoding: .utf8) + "      minutes: int?\n").utf8).write(to: schema)

        let stale = try await SwiftPM.run(["build"], in: app)
        #expect(stale.status != 0)
        #expect(stale.output.contains("error: Generated/ is stale for \(schema.path)"), "\(stale.output)")
        #expect(stale.output.contains("swift package --allow-writing-to-package-directory generate-sync"))

        let refused = try await SwiftPM.run(["package", "generate-sync"], in: app)
        #expect(refused.status != 0, "the command plugin wrote without the permission: \(refused.output)")

        let generated = try await SwiftPM.run(["package", "--allow-writing-to-package-directory", "generate-sync"], in: app)
        #expect(generated.status == 0, "\(generated.output)")
        // The next local migration, whatever its number (template changes add migrations too).
        let created = #"created Generated/sqlite/\d{4}_check_ins_add_minutes\.sql"#
        #expect(generated.output.range(of: created, options: .regularExpression) != nil)
        let checkIn = try String(contentsOf: app.appendingPathComponent("Generated/swift/CheckIn.swift"), encoding: .utf8)
        #expect(checkIn.contains("public var minutes: Swift.Int64?"))

        let current = try await SwiftPM.run(["build"], in: app)
        #expect(current.status == 0, "\(current.output)")
    }
}
