import Foundation

/// How the engine paces itself. The defaults are the protocol's.
public struct SyncConfiguration: Sendable {
    /// How often to pull while signed in and healthy.
    public var pollInterval: Duration = .seconds(5)
    /// How often to pull while a poke source is connected (a write elsewhere pokes a pull at
    /// once; the poll only catches what a lost poke missed). Back to ``pollInterval`` the moment
    /// the source disconnects.
    public var pollIntervalWithPokes: Duration = .seconds(60)
    /// How long a local write waits for others before they are pushed together. The first
    /// write after a quiet spell goes at once; the writes that follow it within this interval
    /// go when writes pause for this long.
    public var debounce: Duration = .milliseconds(500)
    /// Rows per upsert request; clamped to 500 (`maxBatchSize`).
    public var batchSize = Self.maxBatchSize {
        didSet { batchSize = min(max(1, batchSize), Self.maxBatchSize) }
    }
    /// Rows per pull request; clamped to the server's row cap.
    public var pageSize = 1_000 {
        didSet { pageSize = min(max(1, pageSize), Self.serverRowCap) }
    }
    /// How many sequence numbers behind its cursor a `.lookback` table's pull starts; nil: the
    /// schema's figure. Tables with `.exact` ordering always start at the cursor.
    public var lookback: Int64? {
        didSet { lookback = lookback.map { max(0, $0) } }
    }
    /// The first delay after a failure; it doubles per failure up to ``backoffCeiling``.
    public var backoffBase: Duration = .seconds(1)
    /// The longest wait between attempts, and the pace at which schema drift is retried.
    public var backoffCeiling: Duration = .seconds(60)
    /// Waits; tests replace it to run the schedule without real time passing.
    package var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// The current time, for the status (`lastSyncedAt`, `backingOff(until:)`).
    package var now: @Sendable () -> Date = { Date() }

    /// Settles the conflicts a replay of a version table's queued writes meets; nil: this
    /// device's change wins a row that moved, and an update of a row that is gone is dropped.
    public var resolver: ConflictResolver?
    /// How long the resolver may take before the write is held.
    public var resolverTimeout: Duration = .seconds(30)
    /// Where warnings go (a resolver that failed or took too long): the table and the failure's
    /// type only, never values.
    public var warn: @Sendable (String) -> Void = { message in
        FileHandle.standardError.write(Data("hope-sync warning: \(message)\n".utf8))
    }

    /// The protocol's largest upsert: bigger bodies risk the gateway's request-size limit.
    package static let maxBatchSize = 500

    /// Self-hosted Supabase answers at most this many rows per request (db-max-rows).
    package static let serverRowCap = 1_000

    public init() {}

    /// The wait after `failures` consecutive failures.
    package func backoff(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return pollInterval }
        return .doubling(from: backoffBase, afterFailures: failures, upTo: backoffCeiling)
    }
}
