import Foundation
import HopeSyncModel

/// Who a request is made for: the signed-in user and the token that proves it.
public struct Credentials: Sendable, Equatable {
    public let userID: UUID
    public let accessToken: String

    public init(userID: UUID, accessToken: String) {
        self.userID = userID
        self.accessToken = accessToken
    }
}

/// Descriptions, debug output and mirrors never show the token: descriptions end up in logs.
extension Credentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "Credentials(userID: \(userID), accessToken: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["userID": userID, "accessToken": "<redacted>"]) }
}

/// A page of pulled rows, in server_seq order.
@_spi(Transport) public struct PulledPage: Sendable {
    /// Rows that decoded, each with every column of the table.
    public var rows: [ColumnValues]
    /// Rows that did not decode: reported, never applied, never silently skipped.
    public var undecodable: [UndecodableRow]
    /// Rows that left the page's stream (a shared table's page in a pull of every table): moved
    /// to another scope, or between a scope and own rows.
    public var exits: [PulledExit]
    /// How many rows and exits the server sent (decoded or not): fewer than the limit means
    /// the end.
    public var receivedCount: Int
    /// The largest server_seq in the page (rows, decoded or not, and exits).
    public var lastServerSeq: Int64?
    /// The server's clock when it answered (milliseconds since 1970), when the answer says.
    public var serverTimeMs: Int64?

    public init(
        rows: [ColumnValues], undecodable: [UndecodableRow] = [], exits: [PulledExit] = [], receivedCount: Int, lastServerSeq: Int64?,
        serverTimeMs: Int64? = nil
    ) {
        self.rows = rows
        self.undecodable = undecodable
        self.exits = exits
        self.receivedCount = receivedCount
        self.lastServerSeq = lastServerSeq
        self.serverTimeMs = serverTimeMs
    }
}

/// A row that left a stream (`{"id": "<row id>", "server_seq": n}`): a device deletes its copy
/// only while the copy is still in that stream (a copy in another is newer).
@_spi(Transport) public struct PulledExit: Sendable, Hashable {
    /// The row's id, lowercase.
    public var id: String
    public var serverSeq: Int64

    public init(id: String, serverSeq: Int64) {
        self.id = id
        self.serverSeq = serverSeq
    }
}

/// What the server holds of the rows an upsert sent, once it has run them through its rules.
@_spi(Transport) public struct UpsertedRows: Sendable {
    /// The server's copy, every column, of each sent row it wrote. A row none of whose values
    /// won (a repeat, or a write older than everything it claims) is not written, and is absent.
    public var rows: [ColumnValues]
    /// Rows the server wrote that this client cannot read.
    public var undecodable: [UndecodableRow]
    /// The server's clock when it answered (milliseconds since 1970), when the answer says.
    public var serverTimeMs: Int64?

    public init(rows: [ColumnValues], undecodable: [UndecodableRow] = [], serverTimeMs: Int64? = nil) {
        self.rows = rows
        self.undecodable = undecodable
        self.serverTimeMs = serverTimeMs
    }
}

extension [ColumnValues] {
    /// The highest server_seq of rows the server wrote: what a poke for them says.
    package var highestServerSeq: Int64? { compactMap { $0[ReservedColumn.serverSeq]?.int }.max() }
}

public struct UndecodableRow: Sendable, Equatable {
    public let table: String
    /// The row's id when it could be read.
    public let key: String?
    public let serverSeq: Int64?
    public let reason: String

    @_spi(Transport) public init(table: String, key: String?, serverSeq: Int64?, reason: String) {
        self.table = table
        self.key = key
        self.serverSeq = serverSeq
        self.reason = reason
    }
}

/// How the engine reaches the server. Every method is one request (one transaction on the
/// server); errors are ``SyncError``s, classified as network or server failures.
@_spi(Transport) public protocol SyncTransport: Sendable {
    /// Upserts whole rows on `id` (PostgREST: `POST /t?on_conflict=id&select=<every column>`,
    /// `Prefer: resolution=merge-duplicates,return=representation`) and returns the server's copy
    /// of each row it wrote. Every row has every synced column of the table except `server_seq`,
    /// in table order.
    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows

    /// ``upsert(_:into:as:)`` from a device that announces its writes to the user's other
    /// devices itself (``PokeSource/announce(_:for:)``) when `announcingPokes`: the request says
    /// so (PostgREST: header `X-Sync-Pokes: client`) and the server skips its own poke. By
    /// default a plain upsert: the server pokes as well, a poke more, never one fewer. A
    /// transport that wraps another and implements only ``upsert(_:into:as:)`` keeps working:
    /// its pushes go as plain upserts.
    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials, announcingPokes: Bool) async throws(SyncError)
        -> UpsertedRows

    /// Rows with `server_seq > cursor`, ascending, at most `limit`.
    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage

    /// A guarded write (version tables): `PATCH /t?id=eq.K&<version>=eq.<base>&select=...`
    /// with `Prefer: return=representation`. Returns the rows that came back (empty when no
    /// row matched), each holding `returning`'s columns.
    func guardedUpdate(
        _ table: TableSchema,
        id: UUID,
        baseVersion: String,
        set values: ColumnValues,
        extraFilters: [Filter],
        returning: [String],
        as user: Credentials
    ) async throws(SyncError) -> [ColumnValues]

    /// Reads rows by key (`GET /t?id=in.(K1,K2)&select=...`), those visible, in no set order.
    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues]

    /// Every table's next page in one request, read in one snapshot: the server's pull function
    /// (PostgREST: `GET /rpc/<function>?cursors=...&since=...&page_limit=...`). A server without
    /// it fails the request as `SyncError.lacksFunction(_:)` says (so does a
    /// transport that does not implement it): the engine then pulls table by table.
    func pull(_ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials) async throws(SyncError)
        -> PulledTables

    /// Adds a member to a scope, changes their role or ends their membership, at once
    /// (docs/PROTOCOL.md, "Sharing (scopes)": PostgREST upserts `membershipTable` on
    /// `scope_id,user_id`, or patches `deleted_ms`). Returns the membership rows the server
    /// wrote, every column: empty when row-level security let nothing through. A refusal is
    /// the server's (`42501`, `22023`, `HS001`, `HS002`, `55P03`). By default a transport
    /// cannot: the request fails as a server without sharing would.
    @discardableResult
    func changeMembership(_ change: MembershipChange, in membershipTable: TableSchema, as user: Credentials) async throws(SyncError)
        -> [ColumnValues]

    /// Where file columns' files go, when this transport's server has a Storage beside it
    /// (PostgREST's project); nil (the default) when files need one configured separately.
    var files: (any SyncFileTransport)? { get }

    /// This transport with every request stating the schema version the app's build was
    /// generated with (PostgREST: header `X-Sync-Schema`), which a server with a writer floor
    /// checks (decision 0051). By default the transport itself: its requests state none, and
    /// such a server takes them for a build older than any floor.
    func stating(schemaVersion: Int) -> any SyncTransport

    /// The device's daily hello (`rpc/sync_hello`): records the build's schema version for the
    /// project's owner and answers with the oldest version the server lets write. Nil (the
    /// default, and a server without the function): the server says nothing of a floor.
    func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello?
}

extension SyncTransport {
    public var files: (any SyncFileTransport)? { nil }

    public func stating(schemaVersion: Int) -> any SyncTransport { self }

    public func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello? { nil }

    @discardableResult
    public func changeMembership(_ change: MembershipChange, in membershipTable: TableSchema, as user: Credentials) async throws(SyncError)
        -> [ColumnValues]
    {
        throw SyncError(
            .server, "The server cannot change memberships of \(membershipTable.name)",
            serverError: ServerError(status: 404, code: "42P01", message: "relation \"public.\(membershipTable.name)\" does not exist"))
    }

    @discardableResult
    public func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials, announcingPokes: Bool) async throws(SyncError)
        -> UpsertedRows
    {
        try await upsert(rows, into: table, as: user)
    }

    /// Reads one row by key; nil when no row is visible.
    public func fetch(_ table: TableSchema, id: UUID, columns: [String], as user: Credentials) async throws(SyncError) -> ColumnValues? {
        try await fetch(table, ids: [id], columns: columns, as: user).first
    }
}

/// A condition a guarded write adds beside the key and the version.
public struct Filter: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable {
        case eq, neq, isNull
    }

    public let column: String
    public let op: Operator
    public let value: SyncValue

    public init(_ column: String, _ op: Operator, _ value: SyncValue = .null) {
        self.column = column
        self.op = op
        self.value = value
    }
}

extension Filter {
    /// Whether a stored value meets the filter, as PostgREST would decide it (a row with the
    /// column null never meets `neq`).
    package func matches(_ value: SyncValue) -> Bool {
        switch op {
        case .eq: value == self.value
        case .neq: value != self.value && value != .null
        case .isNull: value == .null
        }
    }
}
