import Foundation

/// One figure of a run. Every benchmark's output ends with its figures, one line each,
/// `FIGURE <name> <value> aim <aim>`, so that a script can compare runs; docs/BENCHMARKS.md says
/// what each name measures and which way its aim points. A figure with no recorded aim prints
/// `aim -`.
struct Figure {
    let name: String
    let value: Double
    let aim: Double?
    let digits: Int

    init(_ name: String, _ value: Double, aim: Double?, digits: Int = 2) {
        self.name = name
        self.value = value
        self.aim = aim
        self.digits = digits
    }

    var line: String {
        "FIGURE \(name) \(Measure.format(value, digits: digits)) aim \(aim.map { String(format: "%g", $0) } ?? "-")"
    }

    /// The lines that end a benchmark's output; none for a run that measured nothing (a
    /// benchmark's child process).
    static func printLines(_ figures: [Figure]) {
        guard !figures.isEmpty else { return }
        print("")
        for figure in figures { print(figure.line) }
    }
}

/// Cells padded to their columns' widths (at least one space after each): the tables the
/// benchmarks print.
func tableRow(_ cells: [String], widths: [Int]) -> String {
    zip(cells, widths + Array(repeating: 0, count: max(0, cells.count - widths.count)))
        .map { $0.padded(max($1, $0.count + 1)) }.joined()
}

extension String {
    func padded(_ width: Int) -> String { padding(toLength: max(width, count), withPad: " ", startingAt: 0) }
}
