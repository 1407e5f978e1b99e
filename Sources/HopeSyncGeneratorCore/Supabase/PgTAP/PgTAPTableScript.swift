import HopeSyncSchema

/// The statements and values of one table's pgTAP script (table_tests.sql.mustache): the
/// renderer writes the statements, the template says what each test proves.
///
/// Rows: 0 the row-level security row (Alice's), 1 the row Bob tries to add as Alice, 2 the
/// merge row, 3 to 6 the open rows (three of Alice's, one of Bob's). A value is `variant`
/// of its row, so rows differ in every column that can differ (unique indexes hold), and
/// variants 0, 1, 2 of one row differ where the type allows.
struct PgTAPTableScript {
    let table: Table
    let number: Int
    let quote: String

    init(_ table: Table, number: Int, quote: String) {
        self.table = table
        self.number = number
        self.quote = quote
    }

    var context: TableTestsContext {
        let lww = table.conflict == .lww
        var context = TableTestsContext()
        context.table = table.name
        context.pullFunction = ServerFunctions.pull
        context.q = quote
        context.alice = SupabaseTestRenderer.alice
        context.aliceClaims = Self.claims(SupabaseTestRenderer.alice)
        context.bobClaims = Self.claims(SupabaseTestRenderer.bob)
        context.rowId = id(0)
        context.columns = table.columns.map(\.name).joined(separator: ", ")
        context.rowValues = table.columns.map { cell($0, row: 0, variant: 0) }.joined(separator: ", ")
        context.insertRow = insert(row: 0, pair: lww ? (1000, "device-a") : nil)
        context.bobUpdate = update(row: 0, set: changed(row: 0, variant: 1), pair: lww ? (9000, "device-b") : nil)
        context.bobUpsert = upsert(row: 0, variant: 1, pair: lww ? (9000, "device-b") : nil)
        context.bobInsertAsAlice = insert(row: 1, pair: lww ? (1000, "device-b") : nil, owner: SupabaseTestRenderer.alice)
        context.aliceUpdate = update(row: 0, set: changed(row: 0, variant: 1), pair: lww ? (2000, "device-a") : nil)
        context.versionInteger = table.conflict.versionKind == .integer
        context.versionTimestamp = table.conflict.versionKind == .timestamp
        context.rowMerge = table.mergesWholeRows
        switch table.conflict.versionKind {
        case .integer:
            let version = VersionKind.integer.columnName
            context.versionSentUpdate = update(row: 0, set: changed(row: 0, variant: 2) + ["\(version) = 41"], pair: nil)
            context.staleUpdate = update(row: 0, set: changed(row: 0, variant: 0), pair: nil) + " and \(version) = 1"
        case .timestamp:
            let old = "\(VersionKind.timestamp.columnName) = '2000-01-01T00:00:00Z'"
            context.versionSentUpdate = update(row: 0, set: changed(row: 0, variant: 2) + [old], pair: nil)
            context.staleUpdate = update(row: 0, set: changed(row: 0, variant: 0), pair: nil) + " and \(old)"
        case nil:
            break
        }
        if lww {
            context.mergeRowId = id(2)
            context.insertMergeRow = insert(row: 2, pair: (1000, "device-a"))
        }
        if table.mergesColumns, let (a, b) = Self.mergeColumns(of: table) {
            columnMergeContext(a: a, b: b, into: &context)
        }
        if lww, !table.mergesColumns {
            let all = { (variant: Int) in table.columns.map { "\($0.name) = \(cell($0, row: 2, variant: variant))" } }
            context.newerRow = update(row: 2, set: all(1), pair: (2000, "device-b"))
            context.newerValues = table.columns.map { cell($0, row: 2, variant: 1) }.joined(separator: ", ")
            context.olderRow = update(row: 2, set: all(2), pair: (1500, "device-c"))
            context.tiedRow = update(row: 2, set: all(2), pair: (2000, "device-a"))
        }
        if let rule = table.openRowRule {
            openRowContext(start: rule.start, end: rule.end, into: &context)
        }
        return context
    }

    // MARK: Column merge

    /// The two columns the merge tests edit: `a` takes three different values, `b` two (or is
    /// deleted_ms, when no other user column can change). None belongs to the open-row rule.
    static func mergeColumns(of table: Table) -> (a: Column, b: Column?)? {
        let rule = table.openRowRule.map { [$0.start, $0.end] } ?? []
        // Nor the scope column, which holds null (see `cell`).
        let scope = table.sharing.flatMap { $0 == .scope ? nil : $0.scopeColumn }
        let free = table.columns.filter { !rule.contains($0.name) && $0.name != scope }
        guard let a = free.first(where: { distinctValues($0.type) >= 3 }) else { return nil }
        let b = free.first { $0.name != a.name && distinctValues($0.type) >= 2 }
        // Deleting a scope ends every membership, its owner's too: the tests could not read the
        // row back, so a scope table with no second column to edit has no merge tests.
        if b == nil, table.sharing == .scope { return nil }
        return (a, b)
    }

    private func columnMergeContext(a: Column, b: Column?, into context: inout TableTestsContext) {
        let row = 2
        let base = Self.stamp(1000, "device-a")
        // A device's whole row: every value as it holds it, every stamp it has.
        func write(_ values: [String: String], _ stamps: [String: String], pair: (Int, String)) -> String {
            let set =
                table.columns.map { "\($0.name) = \(values[$0.name] ?? cell($0, row: row, variant: 0))" }
                + ["\(ReservedColumn.deletedMs) = \(values[ReservedColumn.deletedMs] ?? "null")"]
            let stamped = table.stampedColumns.map { "\"\($0.name)\": \"\(stamps[$0.name] ?? base)\"" }
            return update(row: row, set: set + ["\(ReservedColumn.columnStamps) = '{\(stamped.joined(separator: ", "))}'"], pair: pair)
        }
        let bName = b?.name ?? ReservedColumn.deletedMs
        let bEdited = b.map { cell($0, row: row, variant: 1) } ?? "2000::bigint"
        context.columnMerge = true
        context.a = a.name
        context.b = bName
        context.aEdited = cell(a, row: row, variant: 1)
        context.bEdited = bEdited
        context.editA = write(
            [a.name: cell(a, row: row, variant: 1)], [a.name: Self.stamp(2000, "device-b")], pair: (2000, "device-b"))
        context.editB = write([bName: bEdited], [bName: Self.stamp(2000, "device-c")], pair: (2000, "device-c"))
        // Two devices that pulled both edits set a at the same ms: the larger device id wins.
        let pulled = [a.name: Self.stamp(2000, "device-b"), bName: Self.stamp(2000, "device-c")]
        let both = [a.name: cell(a, row: row, variant: 1), bName: bEdited]
        context.aLarger = cell(a, row: row, variant: 2)
        context.aLargerStamp = Self.stamp(3000, "device-d")
        context.largerA =
            (write(
                both.merging([a.name: cell(a, row: row, variant: 2)]) { $1 },
                pulled.merging([a.name: Self.stamp(3000, "device-d")]) { $1 }, pair: (3000, "device-d")))
        context.smallerA =
            (write(
                both.merging([a.name: cell(a, row: row, variant: 0)]) { $1 },
                pulled.merging([a.name: Self.stamp(3000, "device-c")]) { $1 }, pair: (3000, "device-c")))
    }

    // MARK: Sharing

    /// A scope table's sharing tests: row 7 is the scope Alice shares.
    var scopeContext: ScopeTestsContext {
        let lww = table.conflict == .lww
        let row = 7
        let edit = { (variant: Int, pair: (Int, String)) in
            update(row: row, set: changed(row: row, variant: variant), pair: lww ? pair : nil)
        }
        let delete = { (pair: (Int, String)) in
            update(row: row, set: ["\(ReservedColumn.deletedMs) = 1"], pair: lww ? pair : nil)
        }
        return ScopeTestsContext(
            table: table.name, members: table.membershipTableName, q: quote, alice: SupabaseTestRenderer.alice,
            bob: SupabaseTestRenderer.bob, carol: SupabaseTestRenderer.carol, stranger: SupabaseTestRenderer.stranger,
            aliceClaims: Self.claims(SupabaseTestRenderer.alice), bobClaims: Self.claims(SupabaseTestRenderer.bob),
            carolClaims: Self.claims(SupabaseTestRenderer.carol), scopeId: id(row),
            insertScope: insert(row: row, pair: lww ? (1000, "device-a") : nil), bobUpdate: edit(1, (2000, "device-b")),
            carolUpdate: edit(2, (3000, "device-c")), bobDelete: delete((4000, "device-b")), aliceDelete: delete((5000, "device-a")))
    }

    // MARK: One open row per owner

    private func openRowContext(start: String, end: String, into context: inout TableTestsContext) {
        let lww = table.conflict == .lww
        // Starts: the late row 0 < the first row 1 < the second row 2 (and Bob's, 3).
        func open(row: Int, start startValue: Int) -> String {
            var values = Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, cell($0, row: row, variant: 0)) })
            values[start] = "\(startValue)::bigint"
            values[end] = "null"
            return insert(row: row, values: values, pair: lww ? (1000 + row, "device-a") : nil)
        }
        context.openRow = true
        context.end = end
        context.firstId = id(3)
        context.secondId = id(4)
        context.lateId = id(5)
        context.secondStart = "2000::bigint"
        context.openFirst = open(row: 3, start: 1000)
        context.openSecond = open(row: 4, start: 2000)
        context.openLate = open(row: 5, start: 500)
        context.openBob = open(row: 6, start: 3000)
    }

    // MARK: Statements

    private func insert(row: Int, pair: (Int, String)?, owner: String? = nil) -> String {
        insert(
            row: row, values: Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, cell($0, row: row, variant: 0)) }),
            pair: pair, owner: owner)
    }

    private func insert(row: Int, values: [String: String], pair: (Int, String)?, owner: String? = nil) -> String {
        var names = [ReservedColumn.id] + (owner == nil ? [] : [ReservedColumn.owner]) + table.columns.map(\.name)
        var list = ["'\(id(row))'"] + (owner.map { ["'\($0)'"] } ?? []) + table.columns.map { values[$0.name]! }
        if let pair {
            names += [ReservedColumn.updatedMs, ReservedColumn.deviceId]
            list += [String(pair.0), "'\(pair.1)'"]
        }
        return "insert into public.\(table.name) (\(names.joined(separator: ", "))) values (\(list.joined(separator: ", ")))"
    }

    /// PostgREST's push of row `row` with every value at `variant`: an upsert on the id.
    private func upsert(row: Int, variant: Int, pair: (Int, String)?) -> String {
        var names = table.columns.map(\.name)
        var values = table.columns.map { cell($0, row: row, variant: variant) }
        if let pair {
            names += [ReservedColumn.updatedMs, ReservedColumn.deviceId]
            values += [String(pair.0), "'\(pair.1)'"]
        }
        return
            "insert into public.\(table.name) (\(ReservedColumn.id), \(names.joined(separator: ", "))) values ('\(id(row))', \(values.joined(separator: ", ")))"
            + " on conflict (\(ReservedColumn.id)) do update set " + names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    }

    private func update(row: Int, set: [String], pair: (Int, String)?) -> String {
        let assignments = set + (pair.map { ["\(ReservedColumn.updatedMs) = \($0.0)", "\(ReservedColumn.deviceId) = '\($0.1)'"] } ?? [])
        return "update public.\(table.name) set \(assignments.joined(separator: ", ")) where \(ReservedColumn.id) = '\(id(row))'"
    }

    /// Every user column of `row` set to `variant`.
    private func changed(row: Int, variant: Int) -> [String] {
        table.columns.map { "\($0.name) = \(cell($0, row: row, variant: variant))" }
    }

    private func id(_ row: Int) -> String {
        "7e570000-0000-4000-8000-" + Self.padded(number, 6) + Self.padded(row, 6)
    }

    // MARK: Values

    /// A shared table's scope column (not a scope's own id) holds null in every test row: the
    /// rows are their owner's own, which every table test expects (the sharing tests are
    /// scope_tests.sql's).
    private func cell(_ column: Column, row: Int, variant: Int) -> String {
        if let sharing = table.sharing, sharing != .scope, column.name == sharing.scopeColumn { return "null::uuid" }
        return Self.value(column, row: row, variant: variant)
    }

    /// How many different values `value` gives a column of this type across variants.
    static func distinctValues(_ type: ColumnType) -> Int {
        switch type {
        case .bool: 2
        case .enumeration(let values): min(values.count, 3)
        default: 3
        }
    }

    /// A typed SQL value for `column`, different for each row and variant where the type allows.
    static func value(_ column: Column, row: Int, variant: Int) -> String {
        let n = row * 3 + variant
        switch column.type {
        case .text: return "'value \(n)'::text"
        case .int: return "\(n)::bigint"
        case .double: return "\(n).5::double precision"
        case .bool: return n % 2 == 0 ? "true" : "false"
        case .uuid: return "'00000000-0000-4000-8000-\(padded(n, 12))'::uuid"
        case .timestamp: return "('2025-01-01T00:00:00Z'::timestamptz + interval '\(n) minutes')"
        case .json: return "'{\"n\": \(n)}'::jsonb"
        case .bytes: return "'\\x\(padded(n % 100, 2))'::bytea"
        case .enumeration(let values): return SQLLiteral.string(values[n % values.count]) + "::text"
        // A file's content-addressed name: a SHA-256 in hex and an extension.
        case .file: return "'\(padded(n, 64)).bin'::text"
        }
    }

    static func stamp(_ ms: Int, _ device: String) -> String {
        padded(ms, 15) + ":" + device
    }

    static func claims(_ user: String) -> String {
        "{\"sub\": \"\(user)\", \"role\": \"authenticated\"}"
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
