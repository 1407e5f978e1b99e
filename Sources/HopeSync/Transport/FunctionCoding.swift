import Foundation
import HopeSyncModel

/// The pull function's argument and answer, for both transports: it answers
/// `{"mark": m, "tables": {"t": {"rows": [...], "more": bool}, ...}}`, each row as PostgREST
/// writes a table's rows, read straight from the bytes.
package enum FunctionCoding {
    /// The pull function's `cursors` argument: `{"table": after, ...}`.
    package static func cursorsArgument(_ cursors: [TableCursor]) -> String {
        var output = "{"
        for (index, cursor) in cursors.enumerated() {
            if index > 0 { output += "," }
            JSONValue.writeString(cursor.table.name, to: &output)
            output += ":" + String(cursor.after)
        }
        return output + "}"
    }

    /// The pull function's answer. A table asked for that the answer lacks (the server's
    /// function does not know it), or whose rows lack a column this client has, is schema drift
    /// for that table; a table the answer has that was not asked for is skipped.
    package static func pulledTables(
        _ body: Data, asked cursors: [TableCursor], since: Int64?, serverTimeMs: Int64?
    ) throws(SyncError) -> PulledTables {
        let tables = Dictionary(cursors.map { ($0.table.name, $0.table) }) { first, _ in first }
        var mark: Int64?
        var pages: [String: PulledPage] = [:]
        var drifted: [String: [ServerError]] = [:]
        var reader = JSONReader(utf8: body)
        do {
            try reader.readObject { key, member throws(JSONSyntaxError) in
                switch key {
                case "mark":
                    if case .number(let literal) = try member.readValue() { mark = Int64(literal) }
                case "tables":
                    try member.readObject { name, value throws(JSONSyntaxError) in
                        guard let table = tables[name] else {
                            _ = try value.readCanonicalText()
                            return
                        }
                        let (page, missing) = try readPage(&value, of: table)
                        if missing.isEmpty {
                            pages[name] = page
                        } else {
                            drifted[name] = missing.map {
                                ServerError(status: 400, code: "42703", message: "column \(name).\($0) does not exist")
                            }
                        }
                    }
                default:
                    _ = try member.readCanonicalText()
                }
            }
            try reader.end()
        } catch {
            throw SyncError(.decoding, "The pull function's answer is not JSON (\(error.reason) at byte \(error.offset))")
        }
        guard let mark else { throw SyncError(.decoding, "The pull function's answer has no mark") }
        if mark != since {
            for cursor in cursors where pages[cursor.table.name] == nil && drifted[cursor.table.name] == nil {
                drifted[cursor.table.name] = [
                    ServerError(status: 404, code: "42P01", message: "relation \"public.\(cursor.table.name)\" does not exist")
                ]
            }
        }
        // The time is the answer's, observed once per answer (TablesPuller), not once per page.
        return PulledTables(mark: mark, pages: pages, drifted: drifted, serverTimeMs: serverTimeMs)
    }

    /// One table's `{"rows": [...], "more": bool}`; the columns of the table that its first row
    /// lacks (the server's table lacks them: every row would).
    private static func readPage(_ reader: inout JSONReader, of table: TableSchema) throws(JSONSyntaxError) -> (PulledPage, [String]) {
        var page = PageReading(table)
        var missing: [String] = []
        try reader.readObject { key, value throws(JSONSyntaxError) in
            guard key == "rows" else {
                _ = try value.readCanonicalText()
                return
            }
            try value.readArray { element throws(JSONSyntaxError) in
                if page.result.receivedCount == 0, try element.peek() == .object {
                    var probe = element
                    var names: Set<String> = []
                    try probe.readObject { name, member throws(JSONSyntaxError) in
                        names.insert(name)
                        _ = try member.readCanonicalText()
                    }
                    missing = table.columnNames.filter { !names.contains($0) }
                }
                try page.readRow(&element)
            }
        }
        return (page.result, missing)
    }
}
