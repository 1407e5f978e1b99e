/// A rendered script cut into its statements, comments left out, so `verify` can read what
/// the templates create. Quotes are respected (`'…'`, `"…"`, `$tag$…$tag$`): a `;` or `--`
/// inside a function body or a literal belongs to it.
enum SQLStatements {
    static func split(_ sql: String) -> [String] {
        let characters = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0
        func finish() {
            let statement = String(current).trimmingWhitespace()
            if !statement.isEmpty { statements.append(statement) }
            current = String.UnicodeScalarView()
        }
        func starts(_ text: String, at position: Int) -> Bool {
            let scalars = Array(text.unicodeScalars)
            return position + scalars.count <= characters.count && Array(characters[position..<position + scalars.count]) == scalars
        }
        while index < characters.count {
            let character = characters[index]
            if starts("--", at: index) {
                while index < characters.count, characters[index] != "\n" { index += 1 }
                continue
            }
            if starts("/*", at: index) {
                index += 2
                while index < characters.count, !starts("*/", at: index) { index += 1 }
                index += 2
                continue
            }
            if character == ";" {
                finish()
                index += 1
                continue
            }
            // Copies a quoted run whole: up to the closing quote (a doubled quote stays inside).
            var closing: [Unicode.Scalar]?
            if character == "'" || character == "\"" {
                closing = [character]
            } else if character == "$", let tagEnd = characters[(index + 1)...].firstIndex(of: "$"),
                characters[(index + 1)..<tagEnd].allSatisfy({ $0.properties.isAlphabetic || $0 == "_" || ("0"..."9").contains($0) })
            {
                closing = Array(characters[index...tagEnd])
            }
            guard let closing else {
                current.append(character)
                index += 1
                continue
            }
            current.append(contentsOf: closing)
            index += closing.count
            while index < characters.count {
                if Array(characters[index..<min(characters.count, index + closing.count)]) == closing {
                    current.append(contentsOf: closing)
                    index += closing.count
                    break
                }
                current.append(characters[index])
                index += 1
            }
        }
        finish()
        return statements
    }

    /// The statement's words as they stand in it (match keywords with `lowercased()`; the
    /// text after a word is `statement[word.endIndex...]`).
    static func words(_ statement: String) -> [Substring] {
        statement.split(whereSeparator: \.isWhitespace)
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var text = self[...]
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
