// swift-tools-version: 6.0
import Foundation
import PackageDescription

// A habit tracker that adopts hope-sync exactly as hope-sync's README says ("Use it in your
// app"). It lives inside hope-sync's own tests, so it depends on it by path; a path dependency's
// identity is its folder's name ("hope-sync" in a clone of that name), so it is read from the
// path here rather than spelled out.
let hopeSyncPath = "../../.."
let hopeSync = URL(fileURLWithPath: hopeSyncPath, relativeTo: URL(fileURLWithPath: #filePath).deletingLastPathComponent())
    .standardizedFileURL.lastPathComponent

let package = Package(
    name: "HabitApp",
    platforms: [.macOS(.v14), .iOS(.v17), .watchOS(.v10)],
    dependencies: [
        .package(path: hopeSyncPath)
    ],
    targets: [
        // Modules of the app's own named as other packages name theirs (SQLite.swift's is
        // `SQLite`): target names are global across a package graph, and hope-sync's all carry
        // its prefix, so these build beside it.
        .target(name: "Locking"),
        .target(name: "SQLite", dependencies: ["Locking"]),
        .target(name: "Postgres", dependencies: ["Locking"]),
        // A stand-in for supabase-swift's `Supabase` module (which a test cannot fetch): the
        // declarations SupabaseAuthSource.swift, the adapter README shows, compiles against.
        .target(name: "Supabase"),
        // `generate`'s Swift output, checked against schema.yaml on every build.
        .target(
            name: "HabitSchema",
            dependencies: [.product(name: "HopeSync", package: hopeSync)],
            path: "Generated/swift",
            plugins: [.plugin(name: "CheckGeneratedSync", package: hopeSync)]
        ),
        .executableTarget(
            name: "HabitApp",
            dependencies: [
                "HabitSchema", "SQLite", "Postgres", "Locking", "Supabase",
                .product(name: "HopeSync", package: hopeSync),
                // The in-memory server the two devices sync through.
                .product(name: "HopeSyncTesting", package: hopeSync),
            ]
        ),
    ]
)
