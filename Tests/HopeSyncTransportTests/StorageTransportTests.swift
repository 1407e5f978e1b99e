import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// Storage's REST API as ``StorageTransport`` speaks it: the requests, Storage's two error shapes
/// read as what they mean, "already exists" as done, and a refused token replaced once.
@Suite struct StorageTransportTests {
    static let file = SyncFile(name: String(repeating: "ab", count: 32) + ".jpg")!
    static let object = FileObject(bucket: "task-photos", owner: Fixtures.userID, file: file)
    static let path = "/storage/v1/object/task-photos/6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7/\(file.name)"
    static let notFoundIn400 = #"{"statusCode":"404","error":"not_found","code":"NoSuchKey","message":"Object not found"}"#
    static let notFound404 = #"{"code":"NoSuchKey","message":"Object not found"}"#
    static let expiredToken =
        #"{"statusCode":"400","error":"InvalidJWT","code":"InvalidJWT","message":"\"exp\" claim timestamp check failed"}"#

    func transport(_ server: StubServer, tokens: Fixtures.TokenProvider = Fixtures.TokenProvider(["fresh-token"])) -> StorageTransport {
        StorageTransport(
            configuration: .init(projectURL: server.projectURL, anonKey: Fixtures.anonKey, session: StubServer.session()) {
                tokens.next()
            })
    }

    func source(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("storage-source-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test func anUploadPostsTheFileIntoTheOwnersFolderNeverReplacing() async throws {
        let server = StubServer(answers: [.respond(status: 200, body: #"{"Key":"task-photos/x","Id":"1"}"#)])
        try await transport(server).upload(try source("photo bytes"), as: Self.object, for: Fixtures.user) { _ in }
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == "https://\(server.host)\(Self.path)")
        #expect(request.header("apikey") == Fixtures.anonKey)
        #expect(request.bearerToken == "token-of-user-1")
        #expect(request.header("Content-Type") == "image/jpeg")
        #expect(request.header("x-upsert") == "false")
        // A body sent from a file never reaches a URLProtocol; the test Storage server keeps the
        // bytes as sent (HopeSyncEndToEndTests).
    }

    /// The name is the bytes' hash: an object already there is this file.
    @Test(arguments: [
        (400, #"{"statusCode":"409","error":"Duplicate","code":"KeyAlreadyExists","message":"The resource already exists"}"#),
        (409, #"{"code":"KeyAlreadyExists","message":"The resource already exists"}"#),
    ])
    func anObjectAlreadyThereIsUploaded(status: Int, body: String) async throws {
        let server = StubServer(answers: [.respond(status: status, body: body)])
        try await transport(server).upload(try source("photo bytes"), as: Self.object, for: Fixtures.user) { _ in }
    }

    /// Read on an upload's answer: on Linux, URLSession crashes on a download task a URLProtocol
    /// serves, so downloads are tested against the test Storage server (HopeSyncEndToEndTests), both
    /// shapes included.
    @Test(arguments: [(400, notFoundIn400), (404, notFound404)])
    func bothNotFoundShapesReadAsNotFound(status: Int, body: String) async throws {
        let server = StubServer(answers: [.respond(status: status, body: body)])
        let file = try source("x")
        let error = await syncError { () async throws(SyncError) in
            try await transport(server).upload(file, as: Self.object, for: Fixtures.user) { _ in }
        }
        #expect(error?.isObjectNotFound == true && error?.code == .server)
        #expect(error?.serverError?.code == "NoSuchKey")
        #expect(error?.serverError?.details == (status == 400 ? "Storage answered HTTP 400" : nil))
        #expect(error?.message.contains("token") == false && error?.message.contains(server.host) == false)
    }

    @Test func aPolicyRefusalIsARefusal() async throws {
        let refusal =
            #"{"statusCode":"403","error":"Unauthorized","code":"AccessDenied","message":"new row violates row-level security policy"}"#
        let server = StubServer(answers: [.respond(status: 400, body: refusal)])
        let file = try source("x")
        let error = await syncError { () async throws(SyncError) in
            try await transport(server).upload(file, as: Self.object, for: Fixtures.user) { _ in }
        }
        #expect(error?.isObjectRefused == true && error?.httpStatus == 403)
    }

    @Test func anExpiredTokenIsReplacedOnceAndTheRequestSentAgain() async throws {
        let server = StubServer(answers: [.respond(status: 400, body: Self.expiredToken), .respond(status: 200, body: "{}")])
        let tokens = Fixtures.TokenProvider(["token-2"])
        try await transport(server, tokens: tokens).upload(try source("bytes"), as: Self.object, for: Fixtures.user) { _ in }
        #expect(server.requests.map(\.bearerToken) == ["token-of-user-1", "token-2"])
    }

    @Test func aTokenRefusedTwiceIsTheAccessTokensFailure() async throws {
        let server = StubServer(answers: [.respond(status: 400, body: Self.expiredToken)])
        let tokens = Fixtures.TokenProvider(["token-2"])
        let file = try source("bytes")
        let error = await syncError { () async throws(SyncError) in
            try await transport(server, tokens: tokens).upload(file, as: Self.object, for: Fixtures.user) { _ in }
        }
        #expect(error?.code == .accessToken && error?.isObjectRefused == true)
        #expect(tokens.callCount == 1 && server.requests.count == 2)
    }

    @Test func serverAndNetworkFailuresKeepTheirKinds() async throws {
        let unavailable = StubServer(answers: [.respond(status: 503, body: #"{"statusCode":"503","error":"x","message":"down"}"#)])
        let file = try source("x")
        let error = await syncError { () async throws(SyncError) in
            try await transport(unavailable).upload(file, as: Self.object, for: Fixtures.user) { _ in }
        }
        #expect(error?.code == .server && error?.httpStatus == 503 && error?.isObjectNotFound == false)
        let offline = StubServer(answers: [.fail(.notConnectedToInternet)])
        let lost = await syncError { () async throws(SyncError) in
            try await transport(offline).upload(file, as: Self.object, for: Fixtures.user) { _ in }
        }
        #expect(lost?.code == .connectivity)
    }
}
