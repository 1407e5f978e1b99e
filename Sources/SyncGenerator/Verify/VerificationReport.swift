/// What `verify` found: per table, everything the database lacks, each with its fix.
public struct VerificationReport: Sendable, Equatable, CustomStringConvertible {
    public var findings: [Finding]
    /// The tables checked, in schema order (a table without findings is fine).
    public var tables: [String]

    public init(findings: [Finding], tables: [String]) {
        self.findings = findings
        self.tables = tables
    }

    /// True when the database has everything the schema needs (notes do not count).
    public var isComplete: Bool { !findings.contains { !$0.isNote } }

    public func findings(for table: String?) -> [Finding] { findings.filter { $0.table == table } }

    public var description: String {
        var lines: [String] = []
        func add(_ finding: Finding) {
            lines.append("  \(finding.isNote ? "note" : "missing"): \(finding.message)")
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
        let problems = findings.filter { !$0.isNote }.count
        lines.append(
            problems == 0
                ? "The database has everything schema.yaml needs."
                : "\(problems) missing: the database does not match schema.yaml.")
        return lines.joined(separator: "\n")
    }
}

/// One thing the database lacks (or, as a note, has beyond the schema).
public struct Finding: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case table, column, columnType, trigger, function, policy, index, sequence, grant, rowLevelSecurity
        case extraColumn, extraPolicy
    }

    /// nil for what all tables share (the sequence).
    public var table: String?
    public var kind: Kind
    public var message: String
    /// The migration that makes it, as its file stem (`0002_sessions_add_tag`).
    public var migration: String?
    /// SQL that makes it, taken from that migration; nil for notes.
    public var fix: String?

    public var isNote: Bool { kind == .extraColumn || kind == .extraPolicy }

    public init(table: String?, kind: Kind, message: String, migration: String? = nil, fix: String? = nil) {
        self.table = table
        self.kind = kind
        self.message = message
        self.migration = migration
        self.fix = fix
    }
}
