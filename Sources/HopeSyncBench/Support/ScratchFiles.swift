import Foundation

/// Where runs put their database files, and how they go away.
enum Scratch {
    /// A new file path for one run's database under `directory`.
    static func databasePath(_ prefix: String, in directory: URL = FileManager.default.temporaryDirectory) -> String {
        directory.appendingPathComponent("\(prefix)-\(UUID().uuidString).sqlite").path
    }

    /// Removes a database file with its WAL and shared-memory files.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// A new directory for this process's device files: on this machine's disk, or in memory
    /// (/dev/shm), nil where there is no such place.
    static func directory(_ name: String, inMemory: Bool) -> URL? {
        let memory = URL(fileURLWithPath: "/dev/shm")
        guard !inMemory || FileManager.default.isWritableFile(atPath: memory.path) else { return nil }
        let root = inMemory ? memory : FileManager.default.temporaryDirectory
        let directory = root.appendingPathComponent("\(name)-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
