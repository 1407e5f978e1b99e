// swift-tools-version: 6.0
import PackageDescription

// The reference schemas of the generator's tests (Tests/HopeSyncGeneratorTests/References).
let referenceSchemas = [
    "column_types", "hard_names", "indexes", "lookback_ordering", "lww_table", "open_row_rule", "version_integer", "version_timestamp",
]

// The generator is a pipeline (parse -> check -> plan -> render -> write); the runtime is
// store / engine / transport / conflicts. Only the toolchain's modules and three system C
// libraries are used: nothing here needs a package registry.
//
// Target names are global across a package graph, so every module here is named HopeSync…
// (CHopeSync… for the C libraries), executables and plugins included: an app's own modules,
// or another package's (SQLite.swift's `SQLite`), never clash with them. The products keep
// the names users type and name (`generate`, `CheckGeneratedSync`).
let package = Package(
    name: "hope-sync",
    platforms: [.macOS(.v14), .iOS(.v17), .watchOS(.v10)],
    products: [
        // The generator needs libyaml alone; `generate-verify` (a live database) needs libpq.
        .executable(name: "generate", targets: ["HopeSyncGenerate"]),
        .executable(name: "generate-verify", targets: ["HopeSyncGenerateVerify"]),
        .executable(name: "sync-demo", targets: ["HopeSyncDemo"]),
        .library(name: "HopeSyncSchema", targets: ["HopeSyncSchema"]),
        .library(name: "HopeSyncGenerator", targets: ["HopeSyncGenerator"]),
        .library(name: "HopeSyncVerify", targets: ["HopeSyncVerify"]),
        .library(name: "HopeSync", targets: ["HopeSync"]),
        .library(name: "HopeSyncPostgres", targets: ["HopeSyncPostgres"]),
        .library(name: "HopeSyncTesting", targets: ["HopeSyncTesting"]),
        // `swift package --allow-writing-to-package-directory generate-sync`: generate as a command.
        .plugin(name: "GenerateSyncCommand", targets: ["HopeSyncGenerateSyncCommand"]),
        // Fails an app's build, with the fix, when its Generated/ is stale for schema.yaml.
        .plugin(name: "CheckGeneratedSync", targets: ["HopeSyncCheckGeneratedSync"]),
    ],
    targets: [
        // System libraries, found through pkg-config; a missing one fails with the command that
        // installs it.
        .systemLibrary(
            name: "CHopeSyncYaml", path: "Sources/CHopeSyncYaml", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        .systemLibrary(
            name: "CHopeSyncSQLite", path: "Sources/CHopeSyncSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CHopeSyncLibPQ", path: "Sources/CHopeSyncLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),

        // The package's one lock box, for state shared between threads.
        .target(name: "HopeSyncLocking"),

        // Thin, typed wrappers over the C libraries, shared by generator, runtime and tests.
        .target(name: "HopeSyncSQLite", dependencies: ["CHopeSyncSQLite", "HopeSyncLocking"]),
        .target(name: "HopeSyncPostgresClient", dependencies: ["CHopeSyncLibPQ", "HopeSyncLocking"]),
        // A throwaway PostgreSQL 15 cluster with Supabase's roles, for tests, benchmarks and the
        // demo; kept out of HopeSyncPostgresClient, which `generate-verify` links. Also
        // Subprocess, the one way they run programs.
        .target(name: "HopeSyncPostgresCluster", dependencies: ["HopeSyncPostgresClient", "HopeSyncLocking"]),

        // The vocabulary both halves speak: column types and roles, conflict and merge modes,
        // reserved names, the dirty states, canonical JSON. A leaf: it imports nothing.
        .target(name: "HopeSyncModel"),

        // Generator: schema.yaml -> Schema -> plan -> rendered files -> Generated/.
        .target(name: "HopeSyncSchema", dependencies: ["HopeSyncModel", "CHopeSyncYaml"]),
        // The pipeline's stages after parsing (check, plan, render, write): pure, no database.
        .target(name: "HopeSyncGeneratorCore", dependencies: ["HopeSyncSchema", "HopeSyncLocking"]),
        // The `generate` command, callable in-process, and the core it re-exports for tools. No
        // libpq: `generate` and the plugins build where only libyaml is installed.
        .target(name: "HopeSyncGenerator", dependencies: ["HopeSyncGeneratorCore", "HopeSyncLocking"]),
        .executableTarget(name: "HopeSyncGenerate", dependencies: ["HopeSyncGenerator"]),
        // `generate-verify`: a live database against what the templates render, over libpq, and
        // the command, callable in-process.
        .target(name: "HopeSyncVerify", dependencies: ["HopeSyncGenerator", "HopeSyncGeneratorCore", "HopeSyncPostgresClient"]),
        .executableTarget(name: "HopeSyncGenerateVerify", dependencies: ["HopeSyncVerify"]),
        .plugin(
            name: "HopeSyncGenerateSyncCommand",
            capability: .command(
                intent: .custom(verb: "generate-sync", description: "Write Generated/ for the package's schema.yaml"),
                permissions: [.writeToPackageDirectory(reason: "generate writes the migrations, row types and table lists into Generated/")]
            ),
            dependencies: ["HopeSyncGenerate"]
        ),
        .plugin(name: "HopeSyncCheckGeneratedSync", capability: .buildTool(), dependencies: ["HopeSyncGenerate"]),

        // Runtime: local store, sync engine, transports, conflicts.
        .target(name: "HopeSync", dependencies: ["HopeSyncModel", "HopeSyncSQLite", "HopeSyncLocking"]),
        .target(name: "HopeSyncPostgres", dependencies: ["HopeSync", "HopeSyncPostgresClient", "HopeSyncLocking"]),
        // Test doubles for apps' and our own tests: the in-memory server with its fault
        // switches. Kept out of HopeSync, so what an iPhone or Watch app links holds none.
        .target(name: "HopeSyncTesting", dependencies: ["HopeSync"]),

        // The committed output of `generate` for schema.yaml (the time-tracker example), compiled
        // as it ships. Deliberately not a product: an app's own generated module must be free to
        // take any name.
        .target(name: "HopeSchema", dependencies: ["HopeSync"], path: "Generated/swift"),

        .executableTarget(
            name: "HopeSyncDemo",
            dependencies: ["HopeSync", "HopeSyncTesting", "HopeSyncPostgres", "HopeSyncPostgresCluster", "HopeSchema", "HopeSyncLocking"]
        ),
        // The benchmarks: `swift build -c release && .build/release/HopeSyncBench`. Not a product:
        // a dependency's executable product answers `swift run <its name>` in an app.
        .executableTarget(
            name: "HopeSyncBench",
            dependencies: [
                "HopeSyncSchema", "HopeSyncGenerator", "HopeSync", "HopeSyncTesting", "HopeSyncPostgres", "HopeSchema", "HopeSyncSQLite",
                "HopeSyncPostgresClient", "HopeSyncPostgresCluster", "HopeSyncTestSupport",
            ]
        ),
        // Shared by the tests and bench, so it lives in Sources; not a product: a manual clock
        // and sleeper, forwarding transports, the seeded generator, a scripted auth source, and
        // HopeSyncLocking's `Locked`.
        .target(
            name: "HopeSyncTestSupport",
            dependencies: [
                "HopeSync", "HopeSyncTesting", "HopeSyncLocking", "HopeSyncPostgresCluster", "HopeSyncLifecycleSchemaV1",
                "HopeSyncLifecycleSchemaV2", "HopeSyncLifecycleSchemaV3",
            ]),

        // Test support shared by the test targets: the PostgreSQL cluster.
        .target(
            name: "HopeSyncPostgresFixture", dependencies: ["HopeSyncPostgresClient", "HopeSyncPostgresCluster"],
            path: "Tests/HopeSyncPostgresFixture"),
        .testTarget(name: "HopeSyncModelTests", dependencies: ["HopeSyncModel", "HopeSyncTestSupport"]),
        .testTarget(name: "HopeSyncSchemaTests", dependencies: ["HopeSyncSchema"], exclude: ["BadSchemas"]),
        .testTarget(
            name: "HopeSyncGeneratorTests",
            dependencies: [
                "HopeSyncGenerator", "HopeSyncGeneratorCore", "HopeSyncVerify", "HopeSyncSchema", "HopeSyncSQLite", "HopeSchema",
                "HopeSyncPostgresFixture", "HopeSyncPostgresClient", "HopeSyncTestSupport",
            ],
            exclude: ["References"]
        ),
        // One small app's generated code at schema v1 and at v2 (a column more in each table), for
        // the tests of devices on mixed builds and of upgrades.
        .target(name: "HopeSyncUpgradeSchemaV1", dependencies: ["HopeSync"], path: "Tests/Fixtures/Upgrade/v1/Generated/swift"),
        .target(name: "HopeSyncUpgradeSchemaV2", dependencies: ["HopeSync"], path: "Tests/Fixtures/Upgrade/v2/Generated/swift"),
        // Another small app's generated code through the column lifecycle (decision 0052): v2
        // renames a column in each table and deprecates one, v3 finishes and removes them.
        .target(name: "HopeSyncLifecycleSchemaV1", dependencies: ["HopeSync"], path: "Tests/Fixtures/Lifecycle/v1/Generated/swift"),
        .target(name: "HopeSyncLifecycleSchemaV2", dependencies: ["HopeSync"], path: "Tests/Fixtures/Lifecycle/v2/Generated/swift"),
        .target(name: "HopeSyncLifecycleSchemaV3", dependencies: ["HopeSync"], path: "Tests/Fixtures/Lifecycle/v3/Generated/swift"),
        // And one through a table rename (decision 0054): v2 renames both tables, v3 finishes.
        .target(name: "HopeSyncTableRenameSchemaV1", dependencies: ["HopeSync"], path: "Tests/Fixtures/TableRename/v1/Generated/swift"),
        .target(name: "HopeSyncTableRenameSchemaV2", dependencies: ["HopeSync"], path: "Tests/Fixtures/TableRename/v2/Generated/swift"),
        .target(name: "HopeSyncTableRenameSchemaV3", dependencies: ["HopeSync"], path: "Tests/Fixtures/TableRename/v3/Generated/swift"),
        // v4 backfills a new column in each table (decision 0053).
        .target(name: "HopeSyncLifecycleSchemaV4", dependencies: ["HopeSync"], path: "Tests/Fixtures/Lifecycle/v4/Generated/swift"),
        // The example schema shared (Tests/Fixtures/Sharing): task lists as scopes, for the tests
        // of several users' devices syncing shared rows.
        .target(name: "HopeSyncSharingSchema", dependencies: ["HopeSync"], path: "Tests/Fixtures/Sharing/Generated/swift"),
        // The row types of every reference schema (Tests/HopeSyncGeneratorTests/References),
        // compiled together (their names differ; each GeneratedSchema is left out), for the test
        // that holds each row's own column coding equal to the Codable path's. shared_scope's
        // names are other references' (TaskList, Note): SwiftOutputTests type-checks it alone.
        .target(
            name: "HopeSyncReferenceRecords", dependencies: ["HopeSync"], path: "Tests/HopeSyncGeneratorTests/References",
            exclude: ["shared_scope"]
                + referenceSchemas.flatMap { schema in
                    [
                        "schema.yaml", "expected/swift/GeneratedSchema.swift", "expected/schema.snapshot.json", "expected/rust",
                        "expected/sqlite", "expected/supabase",
                    ]
                    .map { "\(schema)/\($0)" }
                },
            sources: referenceSchemas.map { "\($0)/expected/swift" }
        ),
        .testTarget(
            name: "HopeSyncRuntimeTests",
            dependencies: [
                "HopeSync", "HopeSyncTesting", "HopeSchema", "HopeSyncSQLite", "HopeSyncTestSupport", "HopeSyncUpgradeSchemaV1",
                "HopeSyncUpgradeSchemaV2", "HopeSyncReferenceRecords", "HopeSyncLifecycleSchemaV1", "HopeSyncLifecycleSchemaV2",
                "HopeSyncLifecycleSchemaV3",
            ]
        ),
        .testTarget(
            name: "HopeSyncTransportTests", dependencies: ["HopeSync", "HopeSchema", "HopeSyncTestSupport"], exclude: ["Golden"]),
        // Need a real PostgreSQL 15: HopeSyncPostgresFixture starts a throwaway cluster for the run.
        .testTarget(
            name: "HopeSyncPostgresTests",
            dependencies: [
                "HopeSyncPostgresFixture", "HopeSyncPostgresClient", "HopeSyncPostgresCluster", "HopeSyncGenerator",
                "HopeSyncGeneratorCore", "HopeSyncVerify", "HopeSyncSchema", "HopeSyncTestSupport",
            ]),
        // Builds Tests/Fixtures/HabitApp (an app that follows the README) with the real `swift`,
        // and the Rust client in Tests/Fixtures/RustClient with cargo, which pulls from the habit
        // app's SQL on HopeSyncPostgresFixture's cluster.
        .testTarget(
            name: "HopeSyncAdoptionTests",
            dependencies: ["HopeSyncPostgresFixture", "HopeSyncPostgresClient", "HopeSyncPostgresCluster", "HopeSyncTestSupport"]),
        .testTarget(
            name: "HopeSyncEndToEndTests",
            dependencies: [
                "HopeSyncPostgresFixture", "HopeSyncPostgresClient", "HopeSyncPostgresCluster", "HopeSyncGenerator", "HopeSyncVerify",
                "HopeSync", "HopeSyncTesting", "HopeSyncPostgres", "HopeSchema", "HopeSyncTestSupport", "HopeSyncUpgradeSchemaV1",
                "HopeSyncUpgradeSchemaV2", "HopeSyncSharingSchema", "HopeSyncLifecycleSchemaV1", "HopeSyncLifecycleSchemaV2",
                "HopeSyncLifecycleSchemaV3", "HopeSyncLifecycleSchemaV4", "HopeSyncTableRenameSchemaV1", "HopeSyncTableRenameSchemaV2",
                "HopeSyncTableRenameSchemaV3",
            ]
        ),
    ]
)
