import Foundation
import HopeSyncModel

/// The pull function's argument and answer, for both transports: it answers
/// `{"mark": m, "tables": {"t": {"rows": [...], "exits": [...], "more": bool}, ...},
/// "scopes": {"<id>": {"role": "editor", "tables": {...}}}}`, each row as PostgREST writes a
/// table's rows, read straight from the bytes.
package enum FunctionCoding {
    /// The pull function's `cursors` argument: `{"table": after, ..., "@scopes": {"<id>":
    /// {"table": after, ...}}}`, the scopes only when asked in the shape with sharing.
    package static func cursorsArgument(_ cursors: PullCursors) -> String {
        var output = "{"
        writeCursors(cursors.own, to: &output)
        if let scopes = cursors.scopes {
            if !cursors.own.isEmpty { output += "," }
            output += "\"@scopes\":{"
            for (index, (scope, tables)) in scopes.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(scope, to: &output)
                output += ":{"
                writeCursors(tables, to: &output)
                output += "}"
            }
            output += "}"
        }
        return output + "}"
    }

    private static func writeCursors(_ cursors: [TableCursor], to output: inout String) {
        for (index, cursor) in cursors.enumerated() {
            if index > 0 { output += "," }
            JSONValue.writeString(cursor.table.name, to: &output)
            output += ":" + String(cursor.after)
        }
    }

    /// The pull function's answer. A table asked for that the answer lacks (the server's
    /// function does not know it), or whose rows lack a column this client has, is schema drift
    /// for that table; a table the answer has that was not asked for is skipped. A scope's
    /// pages are read as ``PullCursors/sharedTables`` (or the scope's cursors) have their tables.
    package static func pulledTables(
        _ body: Data, asked cursors: PullCursors, since: Int64?, serverTimeMs: Int64?
    ) throws(SyncError) -> PulledTables {
        let own = Dictionary(cursors.own.map { ($0.table.name, $0.table) }) { first, _ in first }
        let shared = Dictionary((cursors.sharedTables + (cursors.scopes ?? [:]).values.flatMap { $0.map(\.table) }).map { ($0.name, $0) }) {
            first, _ in first
        }
        var mark: Int64?
        var pages: [String: PulledPage] = [:]
        var drifted: [String: [ServerError]] = [:]
        var scopes: [String: PulledScope]?
        var reader = JSONReader(utf8: body)
        do {
            try reader.readObject { key, member throws(JSONSyntaxError) in
                switch key {
                case "mark":
                    if case .number(let literal) = try member.readValue() { mark = Int64(literal) }
                case "tables":
                    try readPages(&member, of: own, into: &pages, drifted: &drifted)
                case "scopes" where cursors.scopes != nil:
                    var listed: [String: PulledScope] = [:]
                    try member.readObject { id, scope throws(JSONSyntaxError) in
                        var role: MemberRole?
                        var scopePages: [String: PulledPage] = [:]
                        try scope.readObject { key, value throws(JSONSyntaxError) in
                            switch key {
                            case "role":
                                if case .string(let name) = try value.readValue() { role = MemberRole(rawValue: name) }
                            case "tables":
                                try readPages(&value, of: shared, into: &scopePages, drifted: &drifted)
                            default:
                                _ = try value.readCanonicalText()
                            }
                        }
                        // A role this build does not know reads as a viewer's: it never writes
                        // what the server may refuse.
                        listed[id.lowercased()] = PulledScope(role: role ?? .viewer, pages: scopePages)
                    }
                    scopes = listed
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
            for cursor in cursors.own where pages[cursor.table.name] == nil && drifted[cursor.table.name] == nil {
                drifted[cursor.table.name] = [
                    ServerError(status: 404, code: "42P01", message: "relation \"public.\(cursor.table.name)\" does not exist")
                ]
            }
        }
        // The time is the answer's, observed once per answer (TablesPuller), not once per page.
        return PulledTables(mark: mark, pages: pages, drifted: drifted, scopes: scopes, serverTimeMs: serverTimeMs)
    }

    /// A `tables` object (null for none): each known table's page, or its drift.
    private static func readPages(
        _ reader: inout JSONReader, of tables: [String: TableSchema], into pages: inout [String: PulledPage],
        drifted: inout [String: [ServerError]]
    ) throws(JSONSyntaxError) {
        if try reader.readNull() { return }
        try reader.readObject { name, value throws(JSONSyntaxError) in
            guard let table = tables[name] else {
                _ = try value.readCanonicalText()
                return
            }
            let (page, missing) = try readPage(&value, of: table)
            if missing.isEmpty {
                pages[name] = page
            } else {
                drifted[name] = missing.map { ServerError(status: 400, code: "42703", message: "column \(name).\($0) does not exist") }
            }
        }
    }

    /// One table's `{"rows": [...], "exits": [...], "more": bool}`; the columns of the table
    /// that its first row lacks (the server's table lacks them: every row would).
    private static func readPage(_ reader: inout JSONReader, of table: TableSchema) throws(JSONSyntaxError) -> (PulledPage, [String]) {
        var page = PageReading(table)
        var missing: [String] = []
        var exits: [PulledExit] = []
        var exitCount = 0
        var lastExit: Int64?
        try reader.readObject { key, value throws(JSONSyntaxError) in
            switch key {
            case "rows":
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
            case "exits":
                try value.readArray { element throws(JSONSyntaxError) in
                    exitCount += 1
                    var id: String?
                    var serverSeq: Int64?
                    try element.readObject { name, member throws(JSONSyntaxError) in
                        switch (name, try member.readValue()) {
                        case ("id", .string(let text)): id = text.lowercased()
                        case ("server_seq", .number(let literal)): serverSeq = Int64(literal)
                        default: break
                        }
                    }
                    if let serverSeq { lastExit = max(lastExit ?? serverSeq, serverSeq) }
                    if let id, let serverSeq { exits.append(PulledExit(id: id, serverSeq: serverSeq)) }
                }
            default:
                _ = try value.readCanonicalText()
            }
        }
        var result = page.result
        result.exits = exits
        result.receivedCount += exitCount
        if let lastExit { result.lastServerSeq = max(result.lastServerSeq ?? lastExit, lastExit) }
        return (result, missing)
    }
}
