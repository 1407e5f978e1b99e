/// A short unified diff of two texts, for `generate --check`: enough to see what is stale.
enum UnifiedDiff {
    static func render(old: String, new: String, path: String, context: Int = 2, maxLines: Int = 40) -> String {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let edits = lineEdits(a, b)
        var lines = ["--- Generated/\(path) (on disk)", "+++ Generated/\(path) (generated now)"]
        var index = 0
        while index < edits.count {
            guard edits[index].kind != .same else {
                index += 1
                continue
            }
            let start = max(0, index - context)
            var end = index
            while end < edits.count {
                if edits[end].kind != .same {
                    end += 1
                    continue
                }
                let nextChange = edits[end...].firstIndex { $0.kind != .same }
                guard let nextChange, nextChange - end <= context * 2 else { break }
                end = nextChange
            }
            end = min(edits.count, end + context)
            let oldStart = edits[start].oldLine
            let newStart = edits[start].newLine
            let oldCount = edits[start..<end].filter { $0.kind != .insert }.count
            let newCount = edits[start..<end].filter { $0.kind != .delete }.count
            lines.append("@@ -\(oldStart + 1),\(oldCount) +\(newStart + 1),\(newCount) @@")
            for edit in edits[start..<end] {
                switch edit.kind {
                case .same: lines.append(" " + a[edit.oldLine])
                case .delete: lines.append("-" + a[edit.oldLine])
                case .insert: lines.append("+" + b[edit.newLine])
                }
            }
            index = end
        }
        if lines.count > maxLines + 2 {
            let hidden = lines.count - maxLines - 2
            lines = Array(lines.prefix(maxLines + 2)) + ["... (\(hidden) more lines)"]
        }
        return lines.joined(separator: "\n")
    }

    private enum Kind { case same, delete, insert }
    private struct Edit {
        var kind: Kind
        var oldLine: Int
        var newLine: Int
    }

    /// Longest common subsequence over lines; generated files are small enough for O(n·m).
    private static func lineEdits(_ a: [String], _ b: [String]) -> [Edit] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let middleA = Array(a[prefix..<(a.count - suffix)])
        let middleB = Array(b[prefix..<(b.count - suffix)])
        let n = middleA.count
        let m = middleB.count
        var table = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = middleA[i] == middleB[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var edits = (0..<prefix).map { Edit(kind: .same, oldLine: $0, newLine: $0) }
        var i = 0
        var j = 0
        while i < n || j < m {
            if i < n, j < m, middleA[i] == middleB[j] {
                edits.append(Edit(kind: .same, oldLine: prefix + i, newLine: prefix + j))
                i += 1
                j += 1
            } else if i < n, j == m || table[i + 1][j] >= table[i][j + 1] {
                edits.append(Edit(kind: .delete, oldLine: prefix + i, newLine: prefix + j))
                i += 1
            } else {
                edits.append(Edit(kind: .insert, oldLine: prefix + i, newLine: prefix + j))
                j += 1
            }
        }
        edits += (0..<suffix).map { Edit(kind: .same, oldLine: a.count - suffix + $0, newLine: b.count - suffix + $0) }
        return edits
    }
}
