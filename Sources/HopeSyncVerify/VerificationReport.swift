/// What `verify` found: per table, everything the database lacks, each with its fix.
package struct VerificationReport: Sendable, Equatable, CustomStringConvertible {
    package var findings: [Finding]
    /// The tables checked, in schema order (a table without findings is fine).
    package var tables: [String]
    /// The devices in the field by schema version; nil when the database has no record of them.
    package var census: DeviceCensus?

    package init(findings: [Finding], tables: [String], census: DeviceCensus? = nil) {
        self.findings = findings
        self.tables = tables
        self.census = census
    }

    /// True when the database has everything the schema needs (notes do not count).
    package var isComplete: Bool { !findings.contains { !$0.isNote } }

    package func findings(for table: String?) -> [Finding] { findings.filter { $0.table == table } }

    package var description: String {
        var lines: [String] = []
        func add(_ finding: Finding) {
            lines.append("  \(finding.label): \(finding.message)")
            guard let fix = finding.fix else { return }
            let how = finding.migration.map { "apply migration \($0), or run:" } ?? "run:"
            lines.append("    fix: \(how)")
            lines += fix.split(separator: "\n", omittingEmptySubsequences: false).map { "      " + $0 }
        }
        let shared = findings(for: nil)
        if !shared.isEmpty {
            lines.append("database:")
            shared.forEach(add)
        }
        for table in tables {
            let found = findings(for: table)
            lines.append(found.isEmpty ? "\(table): ok" : "\(table):")
            found.forEach(add)
        }
        if let census { lines.append(census.description) }
        let problems = findings.filter { !$0.isNote }.count
        lines.append(
            problems == 0
                ? "The database has everything schema.yaml needs."
                : "\(problems) missing: the database does not match schema.yaml.")
        return lines.joined(separator: "\n")
    }
}

/// One thing the database lacks (or, as a note, has beyond the schema).
package struct Finding: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case table, column, columnType, trigger, function, policy, index, sequence, grant, rowLevelSecurity, bucket
        /// A renamed table's old name (decision 0054).
        case view
        case extraColumn, extraPolicy
        /// A function an API role may execute that the schema's SQL keeps from it.
        case exposedFunction
    }

    /// nil for what all tables share (the sequence).
    package var table: String?
    package var kind: Kind
    package var message: String
    /// The migration that makes it, as its file stem (`0002_sessions_add_tag`).
    package var migration: String?
    /// SQL that makes it, taken from that migration; nil for notes.
    package var fix: String?

    package var isNote: Bool { kind == .extraColumn || kind == .extraPolicy }

    /// How the report names it: a note, something the database lacks, or something it opens too wide.
    var label: String { isNote ? "note" : kind == .exposedFunction ? "exposed" : "missing" }

    package init(table: String?, kind: Kind, message: String, migration: String? = nil, fix: String? = nil) {
        self.table = table
        self.kind = kind
        self.message = message
        self.migration = migration
        self.fix = fix
    }
}
