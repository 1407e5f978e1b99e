import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

@_spi(Transport) @testable import HopeSyncPostgres

/// A setup mistake is a configuration error that says what to fix (never the
/// password), not "offline" retried for ever.
@Suite struct SetupMistakeTests {
    func error(connecting url: String) async -> SyncError? {
        let transport = PostgresTransport(url: url)
        do {
            _ = try await transport.pull(Activity.table, after: 0, limit: 1, as: Credentials(userID: UUID(), accessToken: ""))
            return nil
        } catch {
            return error
        }
    }

    @Test func aWrongPasswordAnUnknownRoleAndAMissingDatabaseAreConfigurationErrors() async throws {
        let database = try PostgresCluster.createDatabase()
        let url = try #require(URLComponents(string: database.url))
        var wrongDatabase = url
        wrongDatabase.path = "/no_such_database"
        var unknownRole = url
        unknownRole.user = "no_such_role"
        for (broken, fix) in [(wrongDatabase, "database in the connection string"), (unknownRole, "user in the connection string")] {
            let failure = await error(connecting: try #require(broken.string))
            #expect(failure?.code == .configuration, "\(fix): \(String(describing: failure))")
            #expect(failure?.message.contains(fix) == true)
        }
        let notAURL = await error(connecting: "localhost:5432/app")
        #expect(notAURL?.code == .configuration && notAURL?.message.contains("postgresql://") == true)
    }

    /// The test cluster trusts every local user, so a wrong password is shown with libpq's text.
    @Test func aWrongPasswordSaysToCheckItAndNeverShowsIt() {
        let refusal = PostgresError(
            message: #"connection to server at "127.0.0.1", port 5432 failed: FATAL:  password authentication failed for user "app""#)
        let error = PostgresFailure.syncError(refusal, table: "activities")
        #expect(error.code == .configuration && error.message.contains("Check the user and password"))
        let unreachable = PostgresError(message: #"connection to server at "127.0.0.1", port 5432 failed: Connection refused"#)
        #expect(PostgresFailure.syncError(unreachable, table: "activities").code == .connectivity)
    }
}
