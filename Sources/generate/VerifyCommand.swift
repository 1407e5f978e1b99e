import Foundation
import SyncGenerator
import SyncSchema

/// `generate verify --database-url URL`: compares the live database with schema.yaml and
/// prints what is missing, each with its fix. Returns 0 when the database has everything,
/// 1 when something is missing, 2 when the database cannot be reached or read (the reason
/// is printed, never the password).
func runVerify(databaseURL: String, parsed: ParsedSchema, migrations: [Migration]) -> Int32 {
    let outcome: VerifyOutcome
    do {
        let verifier = SchemaVerifier(renderer: SupabaseRenderer(templates: try TemplateSet(directory: nil)))
        outcome = verifier.outcome(parsed.schema, migrations: migrations, databaseURL: databaseURL)
    } catch {
        outcome = VerifyOutcome(status: VerifyOutcome.unreachable, text: "error: cannot load the templates: \(error)")
    }
    if outcome.status == VerifyOutcome.unreachable {
        FileHandle.standardError.write(Data((outcome.text + "\n").utf8))
    } else {
        print(outcome.text)
    }
    return outcome.status
}
