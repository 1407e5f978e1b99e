import SyncSchema

/// One verification: the live catalog against the schema, object by object. Every finding
/// names the migration that makes the object and carries the SQL the templates render for it.
struct Check {
    let renderer: SupabaseRenderer
    let catalog: LiveCatalog
    let history: MigrationHistory

    /// What every table shares: the sequence and the lock function.
    func shared() throws -> [Finding] {
        let name = "sync_server_seq"
        let sql = try renderer.sequenceSQL()
        let migration = history.first
        func finding(_ kind: Finding.Kind, _ message: String) -> Finding {
            Finding(table: nil, kind: kind, message: message, migration: migration, fix: sql)
        }
        guard catalog.sequences.contains(name) else { return [finding(.sequence, "sequence public.\(name)")] }
        var findings: [Finding] = []
        if catalog.grants[name]?["authenticated"]?.contains("USAGE") != true {
            findings.append(finding(.grant, "usage on sequence public.\(name) for authenticated"))
        }
        for (function, body) in FunctionBodies.in(sql).sorted(by: { $0.key < $1.key }) where catalog.functions[function] != body {
            let state = catalog.functions[function] == nil ? "missing" : "outdated"
            findings.append(finding(.function, "function public.\(function) (\(state))"))
        }
        return findings
    }

    func table(_ table: Table) throws -> [Finding] {
        guard catalog.tables[table.name] != nil else {
            return [Finding(table: table.name, kind: .table, message: "table public.\(table.name)",
                            migration: history.creating(table: table.name),
                            fix: try renderer.tableSQL(table, upgrading: false))]
        }
        return try columns(of: table) + triggers(of: table) + access(of: table) + indexes(of: table)
    }

    private func columns(of table: Table) throws -> [Finding] {
        var findings: [Finding] = []
        let live = catalog.columns[table.name] ?? [:]
        for column in table.syncedColumns {
            let type = SchemaVerifier.catalogType(column.type)
            let migration = history.adding(column: column.name, to: table.name)
            guard let found = live[column.name] else {
                findings.append(Finding(table: table.name, kind: .column, message: "column \(column.name) (\(type))",
                                        migration: migration, fix: try renderer.addColumnSQL(column, to: table)))
                continue
            }
            if found.type != type {
                let sqlType = column.type.postgresType
                findings.append(Finding(
                    table: table.name, kind: .columnType, message: "column \(column.name) is \(found.type), expected \(type)",
                    migration: migration,
                    fix: "alter table public.\(table.name) alter column \(column.name) type \(sqlType) using \(column.name)::\(sqlType);"))
            }
        }
        let expected = Set(table.syncedColumns.map(\.name))
        for (name, column) in live.sorted(by: { $0.key < $1.key }) where !expected.contains(name) {
            findings.append(Finding(table: table.name, kind: .extraColumn,
                                    message: "extra column \(name) (\(column.type)) on the server, not in schema.yaml; clients ignore it"))
        }
        return findings
    }

    private func triggers(of table: Table) throws -> [Finding] {
        let sql = try renderer.triggersSQL(table, replacing: false)
        let migration = history.lastWritingTriggers(of: table.name)
        let live = catalog.triggers[table.name] ?? [:]
        var findings: [Finding] = []
        for name in SchemaVerifier.triggerNames(table) {
            switch live[name] {
            case true?: continue
            case false?:
                findings.append(Finding(table: table.name, kind: .trigger, message: "trigger \(name) (disabled)",
                                        migration: migration, fix: "alter table public.\(table.name) enable trigger \(name);"))
            case nil:
                findings.append(Finding(table: table.name, kind: .trigger, message: "trigger \(name)", migration: migration, fix: sql))
            }
        }
        for (function, body) in FunctionBodies.in(sql).sorted(by: { $0.key < $1.key }) {
            guard let live = catalog.functions[function], live != body else { continue }
            findings.append(Finding(table: table.name, kind: .function,
                                    message: "function \(function) differs from what schema.yaml makes now (outdated)",
                                    migration: migration, fix: sql))
        }
        return findings
    }

    /// Row-level security, policies and grants: one block of SQL makes them all.
    private func access(of table: Table) throws -> [Finding] {
        let sql = try renderer.accessSQL(table)
        let migration = history.creating(table: table.name)
        func finding(_ kind: Finding.Kind, _ message: String) -> Finding {
            Finding(table: table.name, kind: kind, message: message, migration: migration, fix: sql)
        }
        var findings: [Finding] = []
        if catalog.tables[table.name] == false {
            findings.append(finding(.rowLevelSecurity, "row-level security is disabled"))
        }
        let policies = catalog.policies[table.name] ?? [:]
        for (name, expected) in Self.ownerPolicies(of: table) {
            guard let live = policies[name] else {
                findings.append(finding(.policy, "policy \(name)"))
                continue
            }
            // A policy of the right name that lets more through is worse than a missing one.
            if live != expected {
                findings.append(finding(.policy, "policy \(name) is not the owner-only policy (it has \(live.describedDifference(from: expected)))"))
            }
        }
        let owned = Set(Self.ownerPolicies(of: table).map(\.name))
        for (name, live) in policies.sorted(by: { $0.key < $1.key }) where !owned.contains(name) && live.isPermissive {
            findings.append(Finding(
                table: table.name, kind: .extraPolicy,
                message: "extra permissive policy \(name) (\(live.command)) also lets rows through; make sure it is meant to"))
        }
        // Clients write as authenticated; server code and the dashboard as service_role.
        for (role, privileges) in [("authenticated", ["SELECT", "INSERT", "UPDATE"]), ("service_role", ["SELECT", "INSERT", "UPDATE", "DELETE"])] {
            let granted = catalog.grants[table.name]?[role] ?? []
            let lacking = privileges.filter { !granted.contains($0) }
            if !lacking.isEmpty {
                findings.append(finding(.grant, "\(lacking.joined(separator: ", ").lowercased()) for \(role)"))
            }
        }
        return findings
    }

    /// What the generated SQL creates, as PostgreSQL 15 spells it back in `pg_policies`.
    static func ownerPolicies(of table: Table) -> [(name: String, policy: LiveCatalog.PolicyInfo)] {
        let owner = "(\(ReservedColumn.owner) = ( SELECT auth.uid() AS uid))"
        return [
            ("\(table.name)_select_own", .init(command: "SELECT", roles: "{authenticated}", isPermissive: true, using: owner, withCheck: nil)),
            ("\(table.name)_insert_own", .init(command: "INSERT", roles: "{authenticated}", isPermissive: true, using: nil, withCheck: owner)),
            ("\(table.name)_update_own", .init(command: "UPDATE", roles: "{authenticated}", isPermissive: true, using: owner, withCheck: owner)),
        ]
    }

    /// Each index by name, then its uniqueness and columns: a unique index must be unique per
    /// owner (`user_id` first), and one left unique across all owners is replaced.
    private func indexes(of table: Table) throws -> [Finding] {
        let live = catalog.indexes[table.name] ?? [:]
        return try ([renderer.pullIndex(table)] + table.indexes).compactMap { index in
            let migration = history.adding(index: index.name, on: table.name)
            let expected = LiveCatalog.IndexInfo(isUnique: index.isUnique, columns: SupabaseContext.serverColumns(of: index))
            guard let found = live[index.name] else {
                return Finding(table: table.name, kind: .index, message: "index \(index.name)",
                               migration: migration, fix: try renderer.indexSQL(index, on: table))
            }
            guard found != expected else { return nil }
            return Finding(table: table.name, kind: .index,
                           message: "index \(index.name) is \(found.described), expected \(expected.described)",
                           migration: migration, fix: try renderer.indexSQL(index, on: table, replacing: true))
        }
    }
}
