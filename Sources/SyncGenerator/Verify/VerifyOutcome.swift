import SyncSchema

/// What `generate verify` prints and the status it exits with.
public struct VerifyOutcome: Sendable, Equatable {
    /// 0: the database has everything; 1: something is missing; 2: cannot connect or read.
    public var status: Int32
    /// The report, or why there is none (never the password).
    public var text: String

    public init(status: Int32, text: String) {
        self.status = status
        self.text = text
    }

    public static let complete: Int32 = 0
    public static let incomplete: Int32 = 1
    public static let unreachable: Int32 = 2
}

extension SchemaVerifier {
    /// Verifies and turns the result into the command's output and exit status.
    public func outcome(_ schema: Schema, migrations: [Migration], databaseURL: String) -> VerifyOutcome {
        Self.outcome { try verify(schema, migrations: migrations, databaseURL: databaseURL) }
    }

    /// The same, naming migrations from Generated/schema.snapshot.json.
    public func outcome(_ schema: Schema, snapshot: Snapshot?, databaseURL: String) -> VerifyOutcome {
        Self.outcome { try verify(schema, snapshot: snapshot, databaseURL: databaseURL) }
    }

    private static func outcome(_ verify: () throws -> VerificationReport) -> VerifyOutcome {
        do {
            let report = try verify()
            return VerifyOutcome(status: report.isComplete ? VerifyOutcome.complete : VerifyOutcome.incomplete, text: report.description)
        } catch {
            return VerifyOutcome(status: VerifyOutcome.unreachable, text: "error: cannot verify the database: \(error)")
        }
    }
}
