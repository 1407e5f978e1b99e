import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The runtime's PostgREST transport reading pages as PostgREST writes them, served over a
/// URLProtocol from files written beforehand (untimed), so that serving a page costs the
/// "server" nearly nothing and memory stays flat.
enum PostgRESTPages {
    static let pageSize = 1_000

    /// A transport whose pulls `source` answers: the body of a table's page after a server_seq,
    /// nil for an empty page.
    static func transport(serving source: @escaping @Sendable (_ table: String, _ after: Int) -> Data?) -> PostgRESTTransport {
        PageProtocol.source.value = source
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [PageProtocol.self]
        return PostgRESTTransport(
            configuration: .init(
                projectURL: URL(string: "https://bench.supabase.test")!, anonKey: "anon",
                session: URLSession(configuration: configuration), accessToken: { "token" }
            ))
    }

    /// ``SessionRows`` (sequential keys) as the sessions table's pages; every other table empty.
    static func transport(rows count: Int) throws -> PostgRESTTransport {
        let file = Locked(try PageFile(SessionRows(keys: .sequential), count: count))
        return transport { table, after in table == Session.table.name ? file.withLock { $0.page(after: after) } : nil }
    }

    /// Pages written by ``write(_:_:after:to:)`` into `directory`, one file each.
    static func transport(directory: URL) -> PostgRESTTransport {
        transport { table, after in try? Data(contentsOf: file(table, after: after, in: directory)) }
    }

    /// Writes one page's body (`json`, as PostgREST sends it) for a pull of `table` after `after`.
    static func write(_ json: Data, _ table: String, after: Int64, to directory: URL) throws {
        try json.write(to: file(table, after: Int(after), in: directory))
    }

    private static func file(_ table: String, after: Int, in directory: URL) -> URL {
        directory.appendingPathComponent("\(table)-\(after).json")
    }

    /// A row as PostgREST writes it: keys in table order, json columns embedded.
    static func json(_ row: ColumnValues, of table: TableSchema) -> String {
        var output = "{"
        for (index, column) in table.columns.enumerated() {
            if index > 0 { output += "," }
            JSONValue.writeString(column.name, to: &output)
            output += ":"
            switch row[column.name] ?? .null {
            case .text(let text) where column.type == .json: output += text
            case .text(let text): JSONValue.writeString(text, to: &output)
            case .int(let number): output += String(number)
            case .double(let number): output += "\(number)"
            case .bool(let flag): output += flag ? "true" : "false"
            case .null, .bytes: output += "null"
            }
        }
        return output + "}"
    }
}

/// Serves `GET /rest/v1/<table>?...server_seq=gt.N...` from ``source``, and answers the sync
/// functions (`/rest/v1/rpc/...`) as a server without them does, so the engine pulls table by
/// table: what these benchmarks measure.
private final class PageProtocol: URLProtocol {
    static let source = Locked<(@Sendable (String, Int) -> Data?)?>(nil)

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func stopLoading() {}

    override func startLoading() {
        let url = request.url!
        if url.deletingLastPathComponent().lastPathComponent == "rpc" {
            let body = #"{"code":"PGRST202","details":null,"hint":null,"message":"Could not find the function in the schema cache"}"#
            answer(status: 404, body: Data(body.utf8), url: url)
            return
        }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let after = items.first { $0.name == ReservedColumn.serverSeq }?.value.flatMap { Int($0.dropFirst("gt.".count)) } ?? 0
        answer(status: 200, body: Self.source.value?(url.lastPathComponent, after) ?? Data("[]".utf8), url: url)
    }

    private func answer(status: Int, body: Data, url: URL) {
        let response = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }
}

/// Pages of session rows as PostgREST writes them, in a temporary file.
private final class PageFile {
    private let handle: FileHandle
    private var ranges: [Int: Range<UInt64>] = [:]

    init(_ rows: SessionRows, count: Int) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bench-pages-\(UUID().uuidString).json")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw BenchmarkError("cannot create \(url.path)") }
        let writer = try FileHandle(forWritingTo: url)
        var offset: UInt64 = 0
        for start in stride(from: 0, to: count, by: PostgRESTPages.pageSize) {
            let json = (start..<min(start + PostgRESTPages.pageSize, count)).map { PostgRESTPages.json(rows.row($0), of: Session.table) }
            let page = Data(("[" + json.joined(separator: ",") + "]").utf8)
            try writer.write(contentsOf: page)
            ranges[start] = offset..<(offset + UInt64(page.count))
            offset += UInt64(page.count)
        }
        try writer.close()
        handle = try FileHandle(forReadingFrom: url)
        // Unlinked at once: the open handle keeps reading, and a child process that exits
        // without running deinit leaves nothing behind.
        try? FileManager.default.removeItem(at: url)
    }

    deinit {
        try? handle.close()
    }

    /// The page after server_seq `after`; past the last row, an empty array.
    func page(after: Int) -> Data {
        guard let range = ranges[after] else { return Data("[]".utf8) }
        try? handle.seek(toOffset: range.lowerBound)
        return (try? handle.read(upToCount: Int(range.count))) ?? Data("[]".utf8)
    }
}
