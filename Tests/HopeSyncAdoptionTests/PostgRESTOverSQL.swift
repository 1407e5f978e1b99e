import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// Runs the request a Rust client printed last (`next: METHOD PATH`, then `prefer:` and `body:`
/// lines) on PostgreSQL the way PostgREST runs it, as `user` (shared/POSTGREST.md): the pull
/// function's GET; a PATCH with `eq.` filters; a POST upsert on `on_conflict` with
/// `resolution=merge-duplicates`; each write asking back its `select` columns. A refusal comes
/// back as PostgREST's body (`code`, `message`) with its status.
struct PostgRESTOverSQL {
    let connection: Connection

    struct Answer {
        let status: Int
        let body: String
    }

    func answer(_ output: String, as user: UUID) throws -> Answer {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.lastIndex { $0.hasPrefix("next: ") }, "no request in: \(output)")
        let requestLine = lines[start].dropFirst("next: ".count).split(separator: " ", maxSplits: 1).map(String.init)
        let (method, target) = (requestLine[0], try #require(URLComponents(string: requestLine[1])))
        let prefer = lines.dropFirst(start + 1).prefix { !$0.hasPrefix("next: ") }.first { $0.hasPrefix("prefer: ") }
        let bodyText = lines.dropFirst(start + 1).prefix { !$0.hasPrefix("next: ") }.first { $0.hasPrefix("body: ") }?
            .dropFirst("body: ".count)
        let query = Dictionary((target.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
        let path = target.path.split(separator: "/").map(String.init)
        let sql: String
        var parameters: [String?] = []
        switch (method, path.count == 4 && path[2] == "rpc") {
        case ("GET", true):
            sql = "select public.\(try Self.name(path[3]))($1::jsonb, $2::bigint, $3::integer)::text"
            parameters = [query["cursors"], query["since"], query["page_limit"]]
        case ("PATCH", false), ("POST", false):
            let table = "public." + (try Self.name(try #require(path.last)))
            let bodyData = Data(try #require(bodyText, "a write has a body: \(output)").utf8)
            let body = try #require(try JSONSerialization.jsonObject(with: bodyData) as? [String: Any])
            let keys = try body.keys.sorted().map(Self.name)
            let selected = try (query["select"] ?? "").split(separator: ",").map { try Self.name(String($0)) }
            let returned =
                "coalesce(json_agg(json_build_object(\(selected.map { "'\($0)', w.\($0)" }.joined(separator: ", ")))), '[]'::json)::text"
            let encodedBody = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
            if method == "PATCH" {
                let filters = try query.filter { $0.key != "select" }.mapValues { value in
                    guard value.hasPrefix("eq.") else { throw PostgresError(message: "only eq. filters: \(value)") }
                    return String(value.dropFirst(3))
                }
                let filterColumns = try filters.keys.sorted().map(Self.name)
                sql = """
                    with written as (
                      update \(table) as t set \(keys.map { "\($0) = b.\($0)" }.joined(separator: ", "))
                      from json_populate_record(null::\(table), $1::json) b, json_populate_record(null::\(table), $2::json) f
                      where \(filterColumns.map { "t.\($0) = f.\($0)" }.joined(separator: " and "))
                      returning t.*)
                    select \(returned) from written w
                    """
                let encodedFilters = String(decoding: try JSONSerialization.data(withJSONObject: filters), as: UTF8.self)
                parameters = [encodedBody, encodedFilters]
            } else {
                #expect(prefer?.contains("resolution=merge-duplicates") == true, "an upsert: \(output)")
                let conflict = try (query["on_conflict"] ?? "id").split(separator: ",").map { try Self.name(String($0)) }
                sql = """
                    with written as (
                      insert into \(table) as t (\(keys.joined(separator: ", ")))
                      select \(keys.joined(separator: ", ")) from json_populate_record(null::\(table), $1::json)
                      on conflict (\(conflict.joined(separator: ", "))) do update set \(keys.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
                      returning t.*)
                    select \(returned) from written w
                    """
                parameters = [encodedBody]
            }
        default:
            throw PostgresError(message: "not a request this helper runs: \(lines[start])")
        }
        do {
            let text = try connection.request(asUser: user) { try $0.execute(sql, parameters).scalar }
            return Answer(status: 200, body: text ?? "null")
        } catch let error as PostgresError where error.sqlState != nil {
            let code = error.sqlState ?? ""
            let status = code == "42501" ? 403 : ["55P03", "40P01"].contains(code) ? 500 : 400
            let body = try JSONSerialization.data(withJSONObject: ["code": code, "message": error.message])
            return Answer(status: status, body: String(decoding: body, as: UTF8.self))
        }
    }

    /// A table, column or function name as the request gave it, refused unless a plain identifier.
    private static func name(_ text: String) throws -> String {
        guard !text.isEmpty, text.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }), text.first?.isNumber == false else {
            throw PostgresError(message: "not a plain name: \(text)")
        }
        return text
    }
}
