/// The bodies of the functions a rendered script creates, keyed by name, exactly as
/// PostgreSQL keeps them (`pg_proc.prosrc`: the text between the `$$` quotes), so a live
/// function can be compared with what the templates make now.
enum FunctionBodies {
    static func `in`(_ sql: String) -> [String: String] {
        var bodies: [String: String] = [:]
        var rest = sql[...]
        let header = "create or replace function public."
        while let start = rest.range(of: header) {
            rest = rest[start.upperBound...]
            guard let parenthesis = rest.firstIndex(of: "("),
                let open = rest.range(of: "$$"),
                let close = rest[open.upperBound...].range(of: "$$")
            else { break }
            bodies[String(rest[..<parenthesis])] = String(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return bodies
    }
}
