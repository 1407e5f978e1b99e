/// The problems found so far in one file. Every check adds to it and carries on, so one run
/// reports everything; ``sorted`` puts them in source order at the end.
struct DiagnosticLog {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) {
        self.file = file
    }

    var isEmpty: Bool { diagnostics.isEmpty }

    func location(_ mark: YAMLMark) -> SourceLocation {
        SourceLocation(file: file, line: mark.line, column: mark.column)
    }

    mutating func error(_ mark: YAMLMark, _ message: String, hint: String) {
        diagnostics.append(Diagnostic(location(mark), message, hint: hint))
    }

    mutating func append(contentsOf other: DiagnosticLog) {
        diagnostics += other.diagnostics
    }

    /// By line and column; problems at one place keep the order they were found in.
    var sorted: [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let left = (a.element.location.line, a.element.location.column, a.offset)
            let right = (b.element.location.line, b.element.location.column, b.offset)
            return left < right
        }.map(\.element)
    }
}
