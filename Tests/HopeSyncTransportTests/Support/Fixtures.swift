import Foundation
import HopeSyncModel
import HopeSyncTestSupport

@_spi(Transport) @testable import HopeSync

/// Table schemas written by hand, shaped like the generated ones (HopeSchema is not generated yet).
enum Fixtures {
    /// A last-writer-wins table: uuid, enum, text, integer columns.
    static let sessions = TableSchema(
        name: "sessions",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("kind", .enumeration(["work", "break"])),
            ColumnSchema("note", .text, nullable: true),
            ColumnSchema("started_ms", .int),
            ColumnSchema("ended_ms", .int, nullable: true),
            ColumnSchema("updated_ms", .int, role: .updatedMs),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("device_id", .text, role: .deviceId),
            ColumnSchema("server_seq", .int, role: .serverSeq),
        ],
        conflict: .lww,
        ordering: .exact,
        openRowRule: OpenRowRule(start: "started_ms", end: "ended_ms")
    )

    /// A version table: the server's trigger moves `updated_at` on every update.
    static let tasks = TableSchema(
        name: "tasks",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("title", .text),
            ColumnSchema("done", .bool),
            ColumnSchema("notes", .text, nullable: true),
            ColumnSchema("updated_at", .timestamp, role: .version),
            ColumnSchema("server_seq", .int, role: .serverSeq),
        ],
        conflict: .version(.timestamp),
        ordering: .lookback(50)
    )

    /// A table with json, bytes and double columns.
    static let attachments = TableSchema(
        name: "attachments",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("meta", .json, nullable: true),
            ColumnSchema("thumbnail", .bytes, nullable: true),
            ColumnSchema("ratio", .double, nullable: true),
            ColumnSchema("updated_ms", .int, role: .updatedMs),
            ColumnSchema("device_id", .text, role: .deviceId),
            ColumnSchema("server_seq", .int, role: .serverSeq),
        ],
        conflict: .lww,
        ordering: .exact
    )

    static let userID = UUID(uuidString: "6F1C2A34-5B6D-4E7F-8091-A2B3C4D5E6F7")!
    static let user = Credentials(userID: userID, accessToken: "token-of-user-1")
    static let anonKey = "anon-key-123"
    /// The worked example's version T1 (seeds/000): its '+' and ':' must be percent-encoded.
    static let versionT1 = "2026-10-18T13:00:27.486123+00:00"
    static let taskID = UUID(uuidString: "0B5E2C4A-9D11-4F0E-A1B2-C3D4E5F60042")!

    static func transport(
        _ server: StubServer,
        timeout: TimeInterval = 30,
        accessToken: @escaping @Sendable () async throws -> String? = { "fresh-token" }
    ) -> PostgRESTTransport {
        PostgRESTTransport(
            configuration: .init(
                projectURL: server.projectURL,
                anonKey: anonKey,
                requestTimeout: timeout,
                session: StubServer.session(),
                accessToken: accessToken
            ))
    }

    /// Calls the access-token provider counts, for the refresh tests.
    final class TokenProvider: Sendable {
        private let tokens: Locked<[String?]>
        private let calls = Locked(0)

        init(_ tokens: [String?]) { self.tokens = Locked(tokens) }

        var callCount: Int { calls.withLock { $0 } }

        func next() -> String? {
            calls.withLock { $0 += 1 }
            return tokens.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
    }
}

/// Runs `body` and returns the SyncError it throws; nil when it succeeds.
func syncError<T>(_ body: () async throws(SyncError) -> T) async -> SyncError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}
