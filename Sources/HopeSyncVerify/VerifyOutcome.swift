import HopeSyncGeneratorCore
import HopeSyncSchema

/// What `generate-verify` prints and the status it exits with.
package struct VerifyOutcome: Sendable, Equatable {
    /// 0: the database has everything; 1: something is missing; 2: cannot connect or read.
    package var status: Int32
    /// The report, or why there is none (never the password).
    package var text: String

    package init(status: Int32, text: String) {
        self.status = status
        self.text = text
    }

    package static let complete: Int32 = 0
    package static let incomplete: Int32 = 1
    package static let unreachable: Int32 = 2
}

extension SchemaVerifier {
    /// Verifies and turns the result into the command's output and exit status.
    package func outcome(_ schema: Schema, migrations: [Migration], databaseURL: String) -> VerifyOutcome {
        Self.outcome { try verify(schema, migrations: migrations, databaseURL: databaseURL) }
    }

    /// The same, naming migrations from Generated/schema.snapshot.json.
    package func outcome(_ schema: Schema, snapshot: Snapshot?, databaseURL: String) -> VerifyOutcome {
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
