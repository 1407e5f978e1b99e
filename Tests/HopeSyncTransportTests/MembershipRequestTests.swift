import Foundation
import HopeSchema
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// Membership changes over PostgREST (docs/PROTOCOL.md, "Sharing (scopes)"), byte for byte: the
/// upsert on the scope and the user, the patch that ends a membership, and what comes back.
/// A host of its own for the goldens, so the suite runs serialized.
@Suite(.serialized)
struct MembershipRequestTests {
    static let host = "membershipsabcde.supabase.co"
    /// The project's generated membership table.
    static let members = TaskListMember.table
    static let listID = UUID(uuidString: "7A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D")!
    static let memberID = UUID(uuidString: "1C2D3E4F-5A6B-4C7D-8E9F-0A1B2C3D4E5F")!
    static let answerRow = """
        [{"id":"0d0e0f10-1112-4314-9516-171819202122","scope_id":"7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",\
        "user_id":"1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f","role":"editor","added_by":"6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7",\
        "added_at":"2026-12-03T10:00:00.123456+00:00","deleted_ms":null,"server_seq":812}]
        """

    private func send(
        _ answer: StubServer.Answer, _ change: MembershipChange, in table: TableSchema = members
    ) async throws(SyncError) -> (rows: [ColumnValues], request: RecordedRequest?) {
        let server = StubServer(host: Self.host, answers: [answer])
        let rows = try await Fixtures.transport(server).changeMembership(change, in: table, as: Fixtures.user)
        return (rows, server.requests.first)
    }

    @Test func shareUpsertsOnTheScopeAndTheUserAndReadsTheServersRowBack() async throws {
        let (rows, request) = try await send(
            .respond(status: 201, body: Self.answerRow), MembershipChange(scopeID: Self.listID, userID: Self.memberID, role: .editor))
        try expectGolden(try #require(request).goldenText, named: "membership-share")
        #expect(rows.count == 1)
        #expect(rows.first?.columns == Self.members.columnNames)
        #expect(rows.first?["role"] == .text("editor"))
        #expect(rows.first?["added_at"] == .text("2026-12-03T10:00:00.123456+00:00"))
        #expect(rows.first?["server_seq"] == .int(812))
    }

    @Test func aRemovalPatchesDeletedMsOnTheOneMembership() async throws {
        let (rows, request) = try await send(
            .respond(status: 200, body: "[]"), MembershipChange(scopeID: Self.listID, userID: Self.memberID, role: nil))
        try expectGolden(try #require(request).goldenText, named: "membership-remove")
        // Nothing row-level security let through: an empty answer, not an error.
        #expect(rows.isEmpty)
    }

    @Test(arguments: [(403, "42501"), (400, "HS001"), (400, "HS002"), (400, "22023"), (500, "55P03")])
    func aRefusalKeepsItsSQLSTATE(_ status: Int, _ code: String) async throws {
        let body = #"{"code":"\#(code)","details":null,"hint":null,"message":"refused"}"#
        let error = await syncError { () async throws(SyncError) in
            try await send(
                .respond(status: status, body: body), MembershipChange(scopeID: Self.listID, userID: Self.memberID, role: .viewer))
        }
        #expect(error?.code == .server)
        #expect(error?.serverError == ServerError(status: status, code: code, message: "refused"))
    }

    @Test func aTableThatIsNotAMembershipTableIsRefusedBeforeAnythingIsSent() async throws {
        let server = StubServer(answers: [])
        let error = await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server).changeMembership(
                MembershipChange(scopeID: Self.listID, userID: Self.memberID, role: .owner), in: Fixtures.tasks, as: Fixtures.user)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("tasks is not a scope's membership table") == true)
        #expect(server.requests.isEmpty)
    }
}
