import HopeSyncGeneratorCore
import HopeSyncSchema

/// One verification: the live catalog against the schema, object by object. What is expected
/// is read from the SQL the templates render (``RenderedObjects``), and every finding names the
/// migration that makes the object and carries that SQL as its fix.
struct CatalogCheck {
    let renderer: SupabaseRenderer
    let catalog: LiveCatalog
    let history: MigrationHistory
    /// The schema the tables are checked against: a shared table's triggers name the tables
    /// that follow it or that its scopes hold.
    let schema: Schema
    /// Table name -> policy name -> the rendered policy as the database deparses it.
    let renderedPolicies: [String: [String: LiveCatalog.PolicyInfo]]

    /// What every table shares: the sequence and its grants, the lock functions, the marks
    /// table with its row-level security and policy, and the pull function.
    func shared(_ schema: Schema) throws -> [Finding] {
        let sql = try renderer.sharedSQL(schema)
        let rendered = RenderedObjects(parsing: sql)
        let migration = history.lastWritingSharedCode ?? history.first
        func finding(_ kind: Finding.Kind, _ message: String) -> Finding {
            Finding(table: nil, kind: kind, message: message, migration: migration, fix: sql)
        }
        let missing = rendered.sequences.filter { !catalog.sequences.contains($0) }
        guard missing.isEmpty else { return missing.map { finding(.sequence, "sequence public.\($0)") } }
        var findings: [Finding] = []
        for table in rendered.securedTables {
            switch catalog.tables[table] {
            case nil: findings.append(finding(.table, "table public.\(table)"))
            case false?: findings.append(finding(.rowLevelSecurity, "row-level security of public.\(table) is disabled"))
            case true?: break
            }
        }
        for policy in rendered.policies where catalog.policies[policy.table]?[policy.name] == nil {
            findings.append(finding(.policy, "policy \(policy.name) on public.\(policy.table)"))
        }
        findings += lacking(rendered.grants).map { finding(.grant, $0) }
        findings += functionPrivileges(rendered).map { finding($0.kind, $0.message) }
        // What every table shares puts a trigger on each (the writer floor's check).
        findings += triggerProblems(rendered.triggers, namingTables: true).map { finding(.trigger, $0) }
        for (function, body) in FunctionBodies.in(sql).sorted(by: { $0.key < $1.key }) where catalog.functions[function] != body {
            let state = catalog.functions[function] == nil ? "missing" : "outdated"
            findings.append(finding(.function, "function public.\(function) (\(state))"))
        }
        return findings
    }

    func table(_ table: Table) throws -> [Finding] {
        guard catalog.tables[table.name] != nil else {
            return [
                Finding(
                    table: table.name, kind: .table, message: "table public.\(table.name)",
                    migration: history.creating(table: table.name),
                    fix: try renderer.tableSQL(table, upgrading: false, columnOrder: history.columnOrder, in: schema))
            ]
        }
        return try columns(of: table) + triggers(of: table) + access(of: table) + indexes(of: table) + oldNames(of: table)
    }

    private func columns(of table: Table) throws -> [Finding] {
        var findings: [Finding] = []
        let live = catalog.columns[table.name] ?? [:]
        for column in table.serverColumns {
            let type = SchemaVerifier.catalogType(column.type)
            let migration = history.adding(column: column.name, to: table.name)
            guard let found = live[column.name] else {
                findings.append(
                    Finding(
                        table: table.name, kind: .column, message: "column \(column.name) (\(type))",
                        migration: migration, fix: try renderer.addColumnSQL(column, to: table)))
                continue
            }
            if found.type != type {
                let sqlType = column.type.postgresType
                findings.append(
                    Finding(
                        table: table.name, kind: .columnType, message: "column \(column.name) is \(found.type), expected \(type)",
                        migration: migration,
                        fix:
                            "alter table public.\(table.name) alter column \(column.name) type \(sqlType) using \(column.name)::\(sqlType);"
                    ))
            }
        }
        let expected = Set(table.serverColumns.map(\.name))
        for (name, column) in live.sorted(by: { $0.key < $1.key }) where !expected.contains(name) {
            findings.append(
                Finding(
                    table: table.name, kind: .extraColumn,
                    message: "extra column \(name) (\(column.type)) on the server, not in schema.yaml; clients ignore it"))
        }
        return findings
    }

    /// What the live catalog lacks of `triggers`: each one missing, disabled or defined otherwise,
    /// with its table named when `namingTables` (what every table shares puts one on each).
    private func triggerProblems(_ triggers: [RenderedObjects.Trigger], namingTables: Bool) -> [String] {
        triggers.compactMap { trigger in
            let name = "trigger \(trigger.name)" + (namingTables ? " on public.\(trigger.table)" : "")
            guard let live = catalog.triggers[trigger.table]?[trigger.name] else { return name }
            if !live.isEnabled { return name + " (disabled)" }
            guard live.definition != trigger.definition else { return nil }
            return name + " is \(live.definition.described), expected \(trigger.definition.described)"
        }
    }

    private func triggers(of table: Table) throws -> [Finding] {
        let sql = try renderer.triggersSQL(table, replacing: false, in: schema)
        let rendered = RenderedObjects(parsing: sql)
        let migration = history.lastWritingTriggers(of: table.name)
        var findings: [Finding] = []
        func finding(_ message: String) {
            findings.append(Finding(table: table.name, kind: .trigger, message: message, migration: migration, fix: sql))
        }
        // The fix is the rendered SQL in every case: `create or replace trigger` also enables
        // a disabled trigger again.
        triggerProblems(rendered.triggers, namingTables: false).forEach(finding)
        for (kind, message) in functionPrivileges(rendered) {
            findings.append(Finding(table: table.name, kind: kind, message: message, migration: migration, fix: sql))
        }
        for (function, body) in FunctionBodies.in(sql).sorted(by: { $0.key < $1.key }) {
            guard let live = catalog.functions[function], live != body else { continue }
            findings.append(
                Finding(
                    table: table.name, kind: .function,
                    message: "function \(function) differs from what schema.yaml makes now (outdated)",
                    migration: migration, fix: sql))
        }
        return findings
    }

    /// Row-level security, policies and grants: one block of SQL makes them all.
    private func access(of table: Table) throws -> [Finding] {
        let sql = try renderer.accessSQL(table)
        let rendered = RenderedObjects(parsing: sql)
        let migration = history.creating(table: table.name)
        func finding(_ kind: Finding.Kind, _ message: String) -> Finding {
            Finding(table: table.name, kind: kind, message: message, migration: migration, fix: sql)
        }
        var findings: [Finding] = []
        if rendered.securedTables.contains(table.name), catalog.tables[table.name] == false {
            findings.append(finding(.rowLevelSecurity, "row-level security is disabled"))
        }
        let policies = catalog.policies[table.name] ?? [:]
        let expected = rendered.policies.filter { $0.table == table.name }
        for policy in expected {
            guard let live = policies[policy.name] else {
                findings.append(finding(.policy, "policy \(policy.name)"))
                continue
            }
            // A policy of the right name that lets more through is worse than a missing one.
            if let wanted = renderedPolicies[table.name]?[policy.name], live != wanted {
                findings.append(
                    finding(
                        .policy, "policy \(policy.name) is not the owner-only policy (it has \(live.describedDifference(from: wanted)))"))
            }
        }
        let owned = Set(expected.map(\.name))
        for (name, live) in policies.sorted(by: { $0.key < $1.key }) where !owned.contains(name) && live.isPermissive {
            findings.append(
                Finding(
                    table: table.name, kind: .extraPolicy,
                    message: "extra permissive policy \(name) (\(live.command)) also lets rows through; make sure it is meant to"))
        }
        findings += lacking(rendered.grants, of: table.name).map { finding(.grant, $0) }
        return findings
    }

    /// The privileges the rendered grants give that the database lacks, one message per role:
    /// `delete for service_role` (a table's own), `usage on sequence public.s for authenticated`.
    private func lacking(_ grants: [RenderedObjects.Grant], of table: String? = nil) -> [String] {
        grants.compactMap { grant in
            let granted = catalog.grants[grant.relation]?[grant.role] ?? []
            let lacking = grant.privileges.filter { !granted.contains($0) }
            guard !lacking.isEmpty else { return nil }
            let object =
                grant.isSequence ? " on sequence public.\(grant.relation)" : grant.relation == table ? "" : " on public.\(grant.relation)"
            return "\(lacking.joined(separator: ", ").lowercased())\(object) for \(grant.role)"
        }
    }

    /// Who may execute each function the rendered SQL grants or revokes on, against the
    /// database: a role that may call what the SQL keeps from it (a trigger function anyone can
    /// run, a security definer function open to `anon`) is exposed; one the SQL grants to that
    /// lacks it, missing. Only the API roles the database has are compared; a function the
    /// database lacks is reported as missing elsewhere.
    private func functionPrivileges(_ rendered: RenderedObjects) -> [(kind: Finding.Kind, message: String)] {
        let roles = catalog.apiRoles.sorted()
        return rendered.functionGrants.flatMap { grant -> [(kind: Finding.Kind, message: String)] in
            guard catalog.functions[grant.function] != nil else { return [] }
            let live = catalog.functionExecutors[grant.function] ?? []
            let exposed = roles.filter { live.contains($0) && !grant.allows($0) }
            let lacking = roles.filter { !live.contains($0) && grant.allows($0) }
            var found: [(kind: Finding.Kind, message: String)] = []
            if !exposed.isEmpty {
                let allowed = roles.filter(grant.allows)
                let only = allowed.isEmpty ? "no API role should" : "only \(allowed.joined(separator: ", ")) should"
                found.append(
                    (.exposedFunction, "function public.\(grant.function) may be executed by \(exposed.joined(separator: ", ")); \(only)"))
            }
            if !lacking.isEmpty {
                found.append((.grant, "execute on function public.\(grant.function) for \(lacking.joined(separator: ", "))"))
            }
            return found
        }
    }

    /// Each index by name, then its uniqueness and columns: a unique index must be unique per
    /// owner (`user_id` first), and one left unique across all owners is replaced.
    private func indexes(of table: Table) throws -> [Finding] {
        let live = catalog.indexes[table.name] ?? [:]
        return try ([ServerIndex.pull(of: table)] + table.indexes).compactMap { index in
            let migration = history.adding(index: index.name, on: table.name)
            let expected = LiveCatalog.IndexInfo(isUnique: index.isUnique, columns: ServerIndex.columns(of: index))
            guard let found = live[index.name] else {
                return Finding(
                    table: table.name, kind: .index, message: "index \(index.name)",
                    migration: migration, fix: try renderer.indexSQL(index, on: table))
            }
            guard found != expected else { return nil }
            return Finding(
                table: table.name, kind: .index,
                message: "index \(index.name) is \(found.described), expected \(expected.described)",
                migration: migration, fix: try renderer.indexSQL(index, on: table, replacing: true))
        }
    }
}
