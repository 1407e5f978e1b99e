/// What a rendered script creates, read from its statements: the triggers, policies, grants,
/// row-level security and sequences `verify` expects. Read from the SQL the templates render,
/// never declared again here, so a template a user overrides (a policy renamed, a trigger
/// added) is what `verify` checks for.
struct RenderedObjects {
    struct Trigger: Equatable {
        var name: String
        var table: String
        var definition: LiveCatalog.TriggerInfo
    }

    /// A `create policy`: its name, its table, and its clauses exactly as written (`as …`,
    /// `for …`, `to …`, `using (…)`, `with check (…)`), which PostgreSQL deparses for the
    /// comparison (see ``PolicyDeparser``).
    struct Policy: Equatable {
        var name: String
        var table: String
        var clauses: String
    }

    /// What a relation's grants come to once every `grant` and `revoke` ran, role by role in
    /// the order the script names them; privileges as the catalog spells them (`SELECT`).
    struct Grant: Equatable {
        var relation: String
        var isSequence: Bool
        var role: String
        var privileges: [String]
    }

    /// Who may execute a function once every `grant` and `revoke` on it ran, starting from what
    /// a new function in schema public has on Supabase: `PUBLIC` (PostgreSQL's default) and the
    /// three API roles (Supabase's default privileges). Kept only for functions the script
    /// grants or revokes on.
    struct FunctionGrant: Equatable {
        var function: String
        var roles: Set<String> = ["public", "anon", "authenticated", "service_role"]

        /// Whether `role` may execute it, itself or through `PUBLIC`.
        func allows(_ role: String) -> Bool { roles.contains(role) || roles.contains("public") }
    }

    var triggers: [Trigger] = []
    var policies: [Policy] = []
    var grants: [Grant] = []
    var functionGrants: [FunctionGrant] = []
    /// Tables whose row-level security the script enables.
    var securedTables: [String] = []
    var sequences: [String] = []

    init(parsing sql: String) {
        for statement in SQLStatements.split(sql) {
            let words = SQLStatements.words(statement)
            let keywords = words.map { $0.lowercased() }
            if let trigger = Self.trigger(keywords) {
                triggers.append(trigger)
            } else if keywords.starts(with: ["create", "policy"]), keywords.count > 4, keywords[3] == "on" {
                policies.append(
                    Policy(
                        name: keywords[2], table: Self.unqualified(keywords[4]),
                        clauses: statement[words[4].endIndex...].trimmingWhitespace()))
            } else if keywords.first == "grant" || keywords.first == "revoke" {
                apply(keywords)
            } else if keywords.starts(with: ["alter", "table"]), keywords.suffix(4) == ["enable", "row", "level", "security"] {
                securedTables.append(Self.unqualified(keywords[keywords.count - 5]))
            } else if keywords.starts(with: ["create", "sequence"]),
                let name = keywords.dropFirst(2).first(where: { !["if", "not", "exists"].contains($0) })
            {
                sequences.append(Self.unqualified(name))
            }
        }
    }

    /// `create [or replace] trigger NAME before|after|instead of EVENT [or EVENT] on TABLE
    /// … for [each] row|statement … execute function|procedure FUNCTION(…)`.
    private static func trigger(_ words: [String]) -> Trigger? {
        guard let keyword = words.firstIndex(of: "trigger"), words.prefix(keyword).allSatisfy(["create", "or", "replace"].contains),
            words.first == "create", keyword + 2 < words.count,
            let on = words.firstIndex(of: "on"), let level = words.firstIndex(of: "for"), let execute = words.firstIndex(of: "execute"),
            on > keyword + 2, level > on, execute + 2 < words.count
        else { return nil }
        var timing = words[keyword + 2]
        var events = Array(words[(keyword + 3)..<on])
        if timing == "instead", events.first == "of" {
            timing = "instead of"
            events.removeFirst()
        }
        // `update of a, b`: the columns are not an event.
        var eventNames: [String] = []
        var skipping = false
        for word in events {
            if word == "or" { skipping = false } else if word == "of" { skipping = true } else if !skipping { eventNames.append(word) }
        }
        let each = words[level + 1] == "each" ? level + 2 : level + 1
        guard each < words.count else { return nil }
        let function = words[execute + 2].prefix { $0 != "(" }
        return Trigger(
            name: words[keyword + 1], table: unqualified(words[on + 1]),
            definition: LiveCatalog.TriggerInfo(
                timing: timing, events: eventNames.sorted(), level: words[each],
                function: function.contains(".") ? String(function) : "public." + function))
    }

    /// `grant|revoke PRIVILEGES on [table|sequence] NAMES to|from ROLES …`.
    private mutating func apply(_ words: [String]) {
        let isGrant = words[0] == "grant"
        guard let on = words.firstIndex(of: "on"), let preposition = words.firstIndex(of: isGrant ? "to" : "from"), preposition > on else {
            return
        }
        var privileges = words[1..<on].joined(separator: " ").split(separator: ",").map { $0.trimmingWhitespace().uppercased() }
        if privileges.first == "GRANT OPTION FOR" { return } // takes no privilege away
        var target = Array(words[(on + 1)..<preposition])
        let roles = words[(preposition + 1)...].prefix { !["with", "granted", "cascade", "restrict"].contains($0) }
            .joined(separator: " ").split(separator: ",").map { $0.trimmingWhitespace() }
        if target.first == "function" {
            applyToFunction(target.dropFirst().joined(separator: " "), isGrant: isGrant, roles: roles)
            return
        }
        let isSequence = target.first == "sequence"
        if target.first == "table" || isSequence { target.removeFirst() }
        if privileges == ["ALL"] || privileges == ["ALL PRIVILEGES"] {
            privileges =
                isSequence ? ["USAGE", "SELECT", "UPDATE"] : ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"]
        }
        let relations = target.joined(separator: " ").split(separator: ",").map { Self.unqualified($0.trimmingWhitespace()) }
        for relation in relations {
            for role in roles {
                let index =
                    grants.firstIndex { $0.relation == relation && $0.role == role }
                    ?? {
                        grants.append(Grant(relation: relation, isSequence: isSequence, role: role, privileges: []))
                        return grants.count - 1
                    }()
                if isGrant {
                    grants[index].privileges += privileges.filter { !grants[index].privileges.contains($0) }
                } else {
                    grants[index].privileges.removeAll(where: privileges.contains)
                }
            }
        }
    }

    /// `grant execute on function public.f(uuid) to …`, `revoke all on function public.f() from …`:
    /// one function a statement, as the templates write them; the name without its arguments.
    private mutating func applyToFunction(_ signature: String, isGrant: Bool, roles: [String]) {
        let function = Self.unqualified(signature.prefix { $0 != "(" })
        let index =
            functionGrants.firstIndex { $0.function == function }
            ?? {
                functionGrants.append(FunctionGrant(function: function))
                return functionGrants.count - 1
            }()
        if isGrant {
            functionGrants[index].roles.formUnion(roles)
        } else {
            functionGrants[index].roles.subtract(roles)
        }
    }

    /// `public.sessions` -> `sessions` (verify reads schema public only).
    private static func unqualified(_ name: some StringProtocol) -> String {
        name.hasPrefix("public.") ? String(name.dropFirst("public.".count)) : String(name)
    }
}
