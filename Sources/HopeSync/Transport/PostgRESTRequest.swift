import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One PostgREST request before it is addressed and signed: the method, the table (or the
/// function, under `rpc/`), the query (already percent-encoded), the `Prefer` header and the body.
struct PostgRESTRequest: Sendable, Equatable {
    /// The header a push sends when its device announces the write itself (see the generated
    /// `sync_poke_written`, which reads it from PostgREST's `request.headers`).
    static let pokesHeader = "X-Sync-Pokes"
    /// The header stating the build's schema version (decision 0051; the generated
    /// `sync_request_schema` reads it).
    static let schemaVersionHeader = "X-Sync-Schema"

    var method: String
    var table: String
    var query: [QueryItem]
    var prefer: String?
    var body: Data?
    /// `table` names a function: the request goes to `/rest/v1/rpc/<function>`.
    var isFunction = false
    /// The device announces this write itself: `X-Sync-Pokes: client`, and the server's
    /// triggers skip their poke.
    var announcingPokes = false
    /// The build's schema version, stated on the request when known.
    var schemaVersion: Int?

    /// A `name=value` pair of the query string, percent-encoded when it is made, so nothing
    /// downstream (URLComponents.queryItems leaves '+' and ':' alone) can encode it differently.
    struct QueryItem: Sendable, Equatable {
        let encodedName: String
        let encodedValue: String

        /// A parameter with a plain value: `limit=1`, `order=server_seq.asc`.
        static func parameter(_ name: String, _ value: String) -> QueryItem {
            QueryItem(encodedName: percentEncoded(name), encodedValue: percentEncoded(value))
        }

        /// A horizontal filter: `column=op.value`. Everything after the operator is the value,
        /// so it is encoded whole: a timestamptz's `+00:00` goes as `%2B00%3A00`.
        static func filter(_ column: String, _ op: String, _ value: String) -> QueryItem {
            QueryItem(encodedName: percentEncoded(column), encodedValue: op + "." + percentEncoded(value))
        }

        /// `column=in.(a,b,c)`, for values that need no quoting inside the list (uuids, numbers).
        static func filter(_ column: String, in values: [String]) -> QueryItem {
            QueryItem(encodedName: percentEncoded(column), encodedValue: "in.(" + values.map(percentEncoded).joined(separator: ",") + ")")
        }

        /// A condition beside the key. SQL's `= NULL` matches nothing, so equality with null is
        /// sent as PostgREST's `is.null` (and inequality as `not.is.null`).
        static func filter(_ filter: Filter) -> QueryItem {
            switch (filter.op, filter.value) {
            case (.isNull, _), (.eq, .null): .filter(filter.column, "is", "null")
            case (.neq, .null): .filter(filter.column, "not.is", "null")
            case (.eq, let value), (.neq, let value): .filter(filter.column, filter.op.rawValue, value.postgresText ?? "null")
            }
        }

        /// `select=a,b,c`: each name encoded, the separating commas left literal (PostgREST reads
        /// `,` and `%2C` alike; literal commas keep the URL readable).
        static func select(_ columns: [String]) -> QueryItem {
            QueryItem(encodedName: "select", encodedValue: columns.map(percentEncoded).joined(separator: ","))
        }

        var text: String { encodedName + "=" + encodedValue }
    }

    /// What may stay literal in a query value: the query set without the delimiters PostgREST,
    /// or a form decoder, could read as syntax ('+' reads as a space).
    static let queryValueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: ":#[]@!$&'()*+,;="))
    static let pathSegmentAllowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;"))

    static func percentEncoded(_ text: String) -> String {
        // Only fails on unpaired surrogates, which a Swift String cannot hold.
        text.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? ""
    }

    /// The URL request to send: `<project>/rest/v1/<table>?<query>` with the gateway's key, the
    /// user's token and a timeout.
    func urlRequest(projectURL: URL, anonKey: String, token: String, timeout: TimeInterval) throws(SyncError) -> URLRequest {
        guard var components = URLComponents(url: projectURL, resolvingAgainstBaseURL: false),
            let table = table.addingPercentEncoding(withAllowedCharacters: Self.pathSegmentAllowed)
        else { throw SyncError(.configuration, "The project URL is not a valid URL") }
        let projectPath =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = projectPath + (isFunction ? "/rest/v1/rpc/" : "/rest/v1/") + table
        components.percentEncodedQuery = query.isEmpty ? nil : query.map(\.text).joined(separator: "&")
        guard let url = components.url else { throw SyncError(.invalidRequest, "A request to \(self.table) could not be addressed") }

        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue(anonKey, forHTTPHeaderField: "apikey")
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let prefer { request.setValue(prefer, forHTTPHeaderField: "Prefer") }
        if announcingPokes { request.setValue("client", forHTTPHeaderField: Self.pokesHeader) }
        if let schemaVersion { request.setValue(String(schemaVersion), forHTTPHeaderField: Self.schemaVersionHeader) }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        return request
    }
}
