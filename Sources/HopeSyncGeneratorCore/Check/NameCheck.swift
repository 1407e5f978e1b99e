import HopeSyncSchema

/// A parsed schema whose Swift and Rust names were checked: what plan and render take, so
/// nothing is planned for a schema whose output could not compile.
package struct CheckedSchema: Sendable {
    package let parsed: ParsedSchema

    package var schema: Schema { parsed.schema }
    package var locations: SourceLocations { parsed.locations }

    fileprivate init(_ parsed: ParsedSchema) {
        self.parsed = parsed
    }

    /// The same schema with what the snapshot carries (retired columns), which no name check
    /// needs: their names were checked when they were columns.
    package func carrying(_ schema: Schema) -> CheckedSchema {
        var carried = parsed
        carried.schema = schema
        return CheckedSchema(carried)
    }
}

/// Check: the names each output derives from the schema, refused at the line that needs
/// renaming when two of them would meet.
package struct NameCheckStage: PipelineStage {
    package init() {}

    package func run(_ parsed: ParsedSchema) throws(SchemaError) -> CheckedSchema {
        let problems = NameCheck.problems(in: parsed)
        guard problems.isEmpty else { throw SchemaError(problems) }
        return CheckedSchema(parsed)
    }
}

/// Proves that the Swift and Rust names derived from a schema are distinct where their
/// language needs them to be, before anything is written. The derivations are one-to-one
/// except where a name is changed to dodge a keyword or a name the output already uses; a
/// schema whose names still meet is refused at the later name's line.
enum NameCheck {
    static func problems(in parsed: ParsedSchema) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        let locations = parsed.locations
        var constants = Names()
        var files = Names()
        for table in parsed.schema.tables {
            problems += swiftMemberProblems(table, locations: locations)
            let place = locations.location(table: table.name)
            let constant = RustNames.constant(table)
            if let first = constants.take(constant, for: table.name) {
                problems.append(
                    Diagnostic(
                        place, "table '\(table.name)' would be the Rust constant '\(constant)', as table '\(first)' is",
                        hint: "rename one of the tables"))
            }
            // macOS and Windows file systems ignore case: two row types must not share a file.
            if let first = files.take(table.swiftTypeName.lowercased(), for: table.name) {
                problems.append(
                    Diagnostic(
                        place,
                        "table '\(table.name)' would be written to the Swift file '\(table.swiftTypeName).swift', which differs only in case from table '\(first)''s",
                        hint: "file systems that ignore case would keep one of them; give '\(table.name)' another swift_name"))
            }
        }
        return problems + membershipProblems(in: parsed)
    }

    /// A scope's membership table gets a row type of its own (`TaskListMember`), which no
    /// table's may be (its file neither, ignoring case); reported at the scope, whose
    /// `swift_name` can move it. (Its Rust constant, `TASK_LISTS_MEMBERS`, is one no table can
    /// take: the parser refuses a table named `task_lists_members`.)
    private static func membershipProblems(in parsed: ParsedSchema) -> [Diagnostic] {
        let tables = parsed.schema.tables
        var problems: [Diagnostic] = []
        for scope in tables {
            guard let members = scope.membershipTable else { continue }
            let place = parsed.locations.location(table: scope.name)
            let file = members.swiftTypeName.lowercased()
            if let other = tables.first(where: { $0.swiftTypeName.lowercased() == file }) {
                problems.append(
                    Diagnostic(
                        place,
                        "table '\(scope.name)' is a scope, so hope-sync adds the Swift type '\(members.swiftTypeName)' for its members, which table '\(other.name)' would take as '\(other.swiftTypeName)'",
                        hint: "give '\(scope.name)' or '\(other.name)' another swift_name"))
            }
        }
        return problems
    }

    /// The row type's properties and nested enum types: each name once.
    private static func swiftMemberProblems(_ table: Table, locations: SourceLocations) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        var properties = Names()
        var types = Names()
        for column in table.syncedColumns {
            let place = locations.location(table: table.name, column: column.name)
            let property = SwiftNames.propertyName(column.name)
            if let first = properties.take(property, for: column.name) {
                problems.append(
                    Diagnostic(
                        place, "column '\(table.name).\(column.name)' would be the Swift property '\(property)', as column '\(first)' is",
                        hint: "rename one of the columns"))
            }
            guard case .enumeration = column.type else { continue }
            let type = SwiftNames.enumTypeName(column.name)
            if let first = types.take(type, for: column.name) {
                problems.append(
                    Diagnostic(
                        place,
                        "enum column '\(table.name).\(column.name)' would be the Swift type '\(table.swiftTypeName).\(type)', as enum column '\(first)' is",
                        hint: "rename one of the columns"))
            }
        }
        return problems
    }

    /// Derived names and the schema name that took each first.
    private struct Names {
        private var owners: [String: String] = [:]

        /// Nil when `name` is free (it is now `owner`'s), else the schema name that has it.
        mutating func take(_ name: String, for owner: String) -> String? {
            if let first = owners[name] { return first }
            owners[name] = owner
            return nil
        }
    }
}
