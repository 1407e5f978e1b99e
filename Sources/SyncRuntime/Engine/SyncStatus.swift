import Foundation

/// What the engine is doing and what waits, as a value apps can draw.
public struct SyncStatus: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        case idle
        case syncing
        /// The network failed or was switched off; writes queue locally.
        case offline
        /// The last attempt failed; the next one is at this time.
        case backingOff(until: Date)
        /// The server lacks a column this client has: it needs the generated migration.
        case schemaDrift(SchemaDrift)
    }

    public var phase: Phase = .idle
    /// Local rows waiting to be pushed.
    public var dirtyCount = 0
    /// Writes the server refused, waiting for the app to retry or dismiss them.
    public var rejectedCount = 0
    public var lastSyncedAt: Date?
    public var lastError: SyncError?

    public var hasSynced: Bool { lastSyncedAt != nil }

    public init() {}
}

/// A column the client sends that the server does not have.
public struct SchemaDrift: Sendable, Equatable {
    public let table: String
    public let column: String

    public var message: String {
        "The server has no column '\(column)' in table '\(table)': apply the generated migration that adds it to the server."
    }

    /// Reads PostgREST's PGRST204 ("Could not find the 'x' column of 't' in the schema cache")
    /// or PostgreSQL's 42703 ("column t.x does not exist").
    init?(_ error: ServerError) {
        switch error.code {
        case "PGRST204":
            let quotedParts = error.message.split(separator: "'", omittingEmptySubsequences: false)
            guard quotedParts.count >= 5 else { return nil }
            column = String(quotedParts[1])
            table = String(quotedParts[3])
        case "42703":
            guard let range = error.message.range(of: #"column ([A-Za-z0-9_]+)\.([A-Za-z0-9_]+) does not exist"#, options: .regularExpression) else {
                return nil
            }
            let names = error.message[range].dropFirst("column ".count).split(separator: " ")[0].split(separator: ".")
            table = String(names[0])
            column = String(names[1])
        default:
            return nil
        }
    }
}

/// What one sync pass did.
public struct SyncReport: Sendable, Equatable {
    /// Rows the server accepted (or already had).
    public var pushed = 0
    /// Remote rows applied locally.
    public var pulled = 0
    /// Rows that went to the rejected list in this pass.
    public var rejected = 0
    /// Remote rows that could not be read: reported, never applied.
    public var undecodable: [UndecodableRow] = []

    public init() {}
}
