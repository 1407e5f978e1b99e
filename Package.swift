// swift-tools-version: 6.0
import PackageDescription

// The reference schemas of the generator's tests (Tests/SyncGeneratorTests/References).
let referenceSchemas = [
    "column_types", "hard_names", "indexes", "lookback_ordering", "lww_table", "open_row_rule", "version_integer", "version_timestamp",
]

// The generator is a pipeline (parse -> check -> plan -> render -> write); the runtime is
// store / engine / transport / conflicts. Only the toolchain's modules and three system C
// libraries are used: nothing here needs a package registry.
let package = Package(
    name: "hope-sync",
    platforms: [.macOS(.v14), .iOS(.v17), .watchOS(.v10)],
    products: [
        .executable(name: "generate", targets: ["generate"]),
        .executable(name: "sync-demo", targets: ["sync-demo"]),
        .library(name: "SyncSchema", targets: ["SyncSchema"]),
        .library(name: "SyncGenerator", targets: ["SyncGenerator"]),
        .library(name: "SyncRuntime", targets: ["SyncRuntime"]),
        .library(name: "SyncPostgres", targets: ["SyncPostgres"]),
        .library(name: "SyncRuntimeTesting", targets: ["SyncRuntimeTesting"]),
        // `swift package --allow-writing-to-package-directory generate-sync`: generate as a command.
        .plugin(name: "GenerateSyncCommand", targets: ["GenerateSyncCommand"]),
        // Fails an app's build, with the fix, when its Generated/ is stale for schema.yaml.
        .plugin(name: "CheckGeneratedSync", targets: ["CheckGeneratedSync"]),
    ],
    targets: [
        // System libraries (Debian: libyaml-dev, libsqlite3-dev, libpq-dev).
        .systemLibrary(name: "CYaml", path: "Sources/CYaml"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ"),

        // The package's one lock box, for state shared between threads.
        .target(name: "Locking"),

        // Thin, typed wrappers over the C libraries, shared by generator, runtime and tests.
        .target(name: "SQLite", dependencies: ["CSQLite", "Locking"]),
        .target(name: "Postgres", dependencies: ["CLibPQ", "Locking"]),
        // A throwaway PostgreSQL 15 cluster with Supabase's roles, for tests, benchmarks and the
        // demo; kept out of `Postgres`, which `generate` links. Also Subprocess, the one way they
        // run programs.
        .target(name: "PostgresCluster", dependencies: ["Postgres", "Locking"]),

        // The vocabulary both halves speak: column types and roles, conflict and merge modes,
        // reserved names, the dirty states, canonical JSON. A leaf: it imports nothing.
        .target(name: "SyncModel"),

        // Generator: schema.yaml -> Schema -> plan -> rendered files -> Generated/.
        .target(name: "SyncSchema", dependencies: ["SyncModel", "CYaml"]),
        // The pipeline's stages after parsing (check, plan, render, write): pure, no database.
        .target(name: "SyncGeneratorCore", dependencies: ["SyncSchema", "Locking"]),
        // `generate verify`: a live database against what the templates render, over libpq.
        .target(name: "SyncVerify", dependencies: ["SyncGeneratorCore", "Postgres"]),
        // The `generate` command, callable in-process, and the core it re-exports for tools.
        .target(name: "SyncGenerator", dependencies: ["SyncGeneratorCore", "SyncVerify", "Locking"]),
        .executableTarget(name: "generate", dependencies: ["SyncGenerator"]),
        .plugin(
            name: "GenerateSyncCommand",
            capability: .command(
                intent: .custom(verb: "generate-sync", description: "Write Generated/ for the package's schema.yaml"),
                permissions: [.writeToPackageDirectory(reason: "generate writes the migrations, row types and table lists into Generated/")]
            ),
            dependencies: ["generate"]
        ),
        .plugin(name: "CheckGeneratedSync", capability: .buildTool(), dependencies: ["generate"]),

        // Runtime: local store, sync engine, transports, conflicts.
        .target(name: "SyncRuntime", dependencies: ["SyncModel", "SQLite", "Locking"]),
        .target(name: "SyncPostgres", dependencies: ["SyncRuntime", "Postgres", "Locking"]),
        // Test doubles for apps' and our own tests: the in-memory server with its fault
        // switches. Kept out of SyncRuntime, so what an iPhone or Watch app links holds none.
        .target(name: "SyncRuntimeTesting", dependencies: ["SyncRuntime"]),

        // The committed output of `generate` for schema.yaml (the time-tracker example), compiled
        // as it ships. Deliberately not a product: target names are global across a package
        // graph, and an app's own generated module must be free to take any name.
        .target(name: "HopeSchema", dependencies: ["SyncRuntime"], path: "Generated/swift"),

        .executableTarget(
            name: "sync-demo",
            dependencies: ["SyncRuntime", "SyncRuntimeTesting", "SyncPostgres", "PostgresCluster", "HopeSchema", "Locking"]
        ),
        .executableTarget(
            name: "bench",
            dependencies: [
                "SyncSchema", "SyncGenerator", "SyncRuntime", "SyncRuntimeTesting", "SyncPostgres", "HopeSchema", "SQLite", "Postgres",
                "PostgresCluster", "SyncTestSupport",
            ]
        ),
        // Shared by the tests and bench, so it lives in Sources; not a product: a manual clock
        // and sleeper, forwarding transports, the seeded generator, and Locking's `Locked`.
        .target(name: "SyncTestSupport", dependencies: ["SyncRuntime", "SyncRuntimeTesting", "Locking", "PostgresCluster"]),

        // Test support shared by the test targets: the PostgreSQL cluster.
        .target(name: "PostgresFixture", dependencies: ["Postgres", "PostgresCluster"], path: "Tests/PostgresFixture"),
        .testTarget(name: "SyncModelTests", dependencies: ["SyncModel", "SyncTestSupport"]),
        .testTarget(name: "SyncSchemaTests", dependencies: ["SyncSchema"], exclude: ["BadSchemas"]),
        .testTarget(
            name: "SyncGeneratorTests",
            dependencies: [
                "SyncGenerator", "SyncGeneratorCore", "SyncVerify", "SyncSchema", "SQLite", "HopeSchema", "PostgresFixture", "Postgres",
                "SyncTestSupport",
            ],
            exclude: ["References"]
        ),
        // One small app's generated code at schema v1 and at v2 (a column more in each table), for
        // the tests of devices on mixed builds and of upgrades.
        .target(name: "UpgradeSchemaV1", dependencies: ["SyncRuntime"], path: "Tests/Fixtures/Upgrade/v1/Generated/swift"),
        .target(name: "UpgradeSchemaV2", dependencies: ["SyncRuntime"], path: "Tests/Fixtures/Upgrade/v2/Generated/swift"),
        // The row types of every reference schema (Tests/SyncGeneratorTests/References), compiled
        // together (their names differ; each GeneratedSchema is left out), for the test that holds
        // each row's own column coding equal to the Codable path's.
        .target(
            name: "ReferenceRecords", dependencies: ["SyncRuntime"], path: "Tests/SyncGeneratorTests/References",
            exclude: referenceSchemas.flatMap { schema in
                [
                    "schema.yaml", "expected/swift/GeneratedSchema.swift", "expected/schema.snapshot.json", "expected/rust",
                    "expected/sqlite", "expected/supabase",
                ]
                .map { "\(schema)/\($0)" }
            },
            sources: referenceSchemas.map { "\($0)/expected/swift" }
        ),
        .testTarget(
            name: "SyncRuntimeTests",
            dependencies: [
                "SyncRuntime", "SyncRuntimeTesting", "HopeSchema", "SQLite", "SyncTestSupport", "UpgradeSchemaV1", "UpgradeSchemaV2",
                "ReferenceRecords",
            ]
        ),
        .testTarget(name: "TransportTests", dependencies: ["SyncRuntime", "HopeSchema", "SyncTestSupport"], exclude: ["Golden"]),
        // Need a real PostgreSQL 15: PostgresFixture starts a throwaway cluster for the run.
        .testTarget(
            name: "PostgresTests",
            dependencies: [
                "PostgresFixture", "Postgres", "PostgresCluster", "SyncGenerator", "SyncGeneratorCore", "SyncVerify", "SyncSchema",
                "SyncTestSupport",
            ]),
        // Builds Tests/Fixtures/HabitApp (an app that follows the README) with the real `swift`,
        // and the Rust client in Tests/Fixtures/RustClient with cargo, which pulls from the habit
        // app's SQL on PostgresFixture's cluster.
        .testTarget(name: "AdoptionTests", dependencies: ["PostgresFixture", "Postgres", "PostgresCluster", "SyncTestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "PostgresFixture", "Postgres", "PostgresCluster", "SyncGenerator", "SyncRuntime", "SyncRuntimeTesting", "SyncPostgres",
                "HopeSchema",
                "SyncTestSupport",
                "UpgradeSchemaV1", "UpgradeSchemaV2",
            ]
        ),
    ]
)
