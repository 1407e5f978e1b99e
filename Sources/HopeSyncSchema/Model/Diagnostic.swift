/// Where something is in schema.yaml, 1-based.
public struct SourceLocation: Sendable, Equatable, Hashable {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
}

/// One problem with the schema, said the way compilers say it:
/// `schema.yaml:5:27: error: unknown key 'nulable' in column 'note'; hint: did you mean 'nullable'?`
public struct Diagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    public var hint: String?

    public init(_ location: SourceLocation, _ message: String, hint: String? = nil) {
        self.location = location
        self.message = message
        self.hint = hint
    }

    public var description: String {
        let head = "\(location.file):\(location.line):\(location.column): error: \(message)"
        return hint.map { "\(head); hint: \($0)" } ?? head
    }
}

/// Every problem found in one run, in source order. Thrown instead of a schema: nothing is
/// generated from a schema with any error.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// A parsed schema with the place of each table and column, so later stages (the diff against
/// the snapshot) can point at the line that needs changing.
public struct ParsedSchema: Sendable {
    public var schema: Schema
    public var locations: SourceLocations

    public init(schema: Schema, locations: SourceLocations) {
        self.schema = schema
        self.locations = locations
    }
}

public struct SourceLocations: Sendable, Equatable {
    public var file: String
    public var tables: [String: SourceLocation]
    /// Keyed "table.column".
    public var columns: [String: SourceLocation]

    public init(file: String, tables: [String: SourceLocation] = [:], columns: [String: SourceLocation] = [:]) {
        self.file = file
        self.tables = tables
        self.columns = columns
    }

    /// The column's place, else its table's, else the top of the file.
    public func location(table: String, column: String? = nil) -> SourceLocation {
        if let column, let location = columns["\(table).\(column)"] { return location }
        return tables[table] ?? SourceLocation(file: file, line: 1, column: 1)
    }
}
