import HopeSyncSchema

/// `supabase/tests.sql.mustache`: the pgTAP file.
struct TestsContext: TemplateContext {
    static let template = "supabase/tests.sql.mustache"
    static let summary = "`Generated/supabase/tests/sync_test.sql`, pgTAP tests of the server schema"

    var plan: String
    var alice: String
    var bob: String
    var aliceClaims: String
    var bobClaims: String
    var tables: [RenderedSQL]
    var buckets: [RenderedSQL]
    var scopes: [RenderedSQL] = []
    var writers: WriterTestsContext
    /// `table.column` of each backfill (decision 0053).
    var backfills: [String] = []
    var hasBackfills: Bool { !backfills.isEmpty }

    static var fields: [TemplateField<Self>] {
        [
            .init("plan", "how many tests the file runs (pgTAP's plan), counted from the rendered file", \.plan),
            .init("alice", "the first test user's id", \.alice),
            .init("bob", "the second test user's id", \.bob),
            .init("aliceClaims", "Alice's JWT claims (JSON)", \.aliceClaims),
            .init("bobClaims", "Bob's JWT claims (JSON)", \.bobClaims),
            .init("tables", "each table's tests, rendered by table_tests.sql", \.tables),
            .init("buckets", "each Storage bucket's tests, rendered by bucket_tests.sql", \.buckets),
            .init("scopes", "each scope table's sharing tests, rendered by scope_tests.sql", \.scopes),
            .init(
                "writers", "what the writer floor's tests need (`writers.table`, `writers.oldestWriter`, `writers.belowFloor`)", \.writers),
            .init("backfills", "`table.column` of each backfill (decision 0053)", \.backfills),
            .init("hasBackfills", "the schema has a backfill: `sync_backfills` exists", \.hasBackfills),
        ]
    }
}

/// What the tests of the writer floor and the devices' hello need (writers.sql).
struct WriterTestsContext: TemplateObject {
    /// A table to write to (an update that matches no row still fires the statement check).
    var table: String
    /// schema.yaml's oldest_writer and the version just below it, when set.
    var oldestWriter: String?
    var belowFloor: String?

    init(_ schema: Schema) {
        table = schema.tables.first?.name ?? ""
        oldestWriter = schema.oldestWriter.map(String.init)
        belowFloor = schema.oldestWriter.map { String($0 - 1) }
    }

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "a table to write to: an update matching no row still meets the check", \.table),
            .init("oldestWriter", "schema.yaml's oldest_writer, when set", \.oldestWriter),
            .init("belowFloor", "the schema version just below it, when set", \.belowFloor),
        ]
    }
}

/// `supabase/scope_tests.sql.mustache`: one scope table's sharing tests, as three users.
struct ScopeTestsContext: TemplateContext {
    static let template = "supabase/scope_tests.sql.mustache"
    static let summary = "one scope table's pgTAP tests of sharing: an owner, an editor and a viewer (the plan counts them)"

    var table: String
    var members: String
    var q: String
    var alice: String
    var bob: String
    var carol: String
    var stranger: String
    var aliceClaims: String
    var bobClaims: String
    var carolClaims: String
    var scopeId: String
    var insertScope: String
    var bobUpdate: String
    var carolUpdate: String
    var bobDelete: String
    var aliceDelete: String

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the scope table", \.table),
            .init("members", "its membership table", \.members),
            .init("q", "a dollar quote no enum value contains, for statements inside pgTAP calls", \.q),
            .init("alice", "the owner's user id", \.alice),
            .init("bob", "the editor's user id", \.bob),
            .init("carol", "the viewer's user id", \.carol),
            .init("stranger", "a user id nobody shares with", \.stranger),
            .init("aliceClaims", "Alice's JWT claims (JSON)", \.aliceClaims),
            .init("bobClaims", "Bob's JWT claims (JSON)", \.bobClaims),
            .init("carolClaims", "Carol's JWT claims (JSON)", \.carolClaims),
            .init("scopeId", "the id of the scope row the tests share", \.scopeId),
            .init("insertScope", "Alice's insert of that row", \.insertScope),
            .init("bobUpdate", "Bob's edit of the row (a newer pair on a last-writer-wins table)", \.bobUpdate),
            .init("carolUpdate", "Carol's edit of the row, the same", \.carolUpdate),
            .init("bobDelete", "Bob's delete of the row (setting deleted_ms)", \.bobDelete),
            .init("aliceDelete", "Alice's delete of the row", \.aliceDelete),
        ]
    }
}

/// `supabase/bucket_tests.sql.mustache`: one Storage bucket's tests.
struct BucketTestsContext: TemplateContext {
    static let template = "supabase/bucket_tests.sql.mustache"
    static let summary = "one Storage bucket's pgTAP tests (the plan counts the tests they call)"

    var bucket: String
    var literal: String
    var q: String
    var aliceClaims: String
    var bobClaims: String
    var aliceObject: String
    var bobObject: String
    var alice: String
    var bob: String
    var object: String
    var upperObject: String
    var scopeTable: String?
    var scopeId = ""
    var carol = ""
    var carolClaims = ""
    var strangerClaims = ""
    var scopeObject = ""
    var otherObject = ""

    static var fields: [TemplateField<Self>] {
        [
            .init("bucket", "the bucket's name", \.bucket),
            .init("literal", "the name as an SQL string literal", \.literal),
            .init("q", "a dollar quote no enum value contains, for statements inside pgTAP calls", \.q),
            .init("aliceClaims", "Alice's JWT claims (JSON)", \.aliceClaims),
            .init("bobClaims", "Bob's JWT claims (JSON)", \.bobClaims),
            .init("aliceObject", "an object name in Alice's folder (`<alice>/<sha256>.bin`)", \.aliceObject),
            .init("bobObject", "the same name in Bob's folder", \.bobObject),
            .init("alice", "Alice's user id (her folder's name)", \.alice),
            .init("bob", "Bob's user id", \.bob),
            .init("object", "the object's name without a folder (`<sha256>.bin`)", \.object),
            .init("upperObject", "the same name with its hash in upper case", \.upperObject),
            .init("scopeTable", "when a shared table keeps files in the bucket, the scope table whose folders the tests use", \.scopeTable),
            .init("scopeId", "the id of the scope whose folder the tests use", \.scopeId),
            .init("carol", "Carol's user id (the scope's viewer)", \.carol),
            .init("carolClaims", "Carol's JWT claims (JSON)", \.carolClaims),
            .init("strangerClaims", "the JWT claims of a user in no scope", \.strangerClaims),
            .init("scopeObject", "an object name in the scope's folder (`<scope>/<sha256>.bin`)", \.scopeObject),
            .init("otherObject", "another object's name without a folder", \.otherObject),
        ]
    }
}

/// `supabase/table_tests.sql.mustache`: one table's tests. The renderer writes every statement
/// (values typed, stamps spelled out); the template says what each test proves. Rows: the
/// row-level security row (Alice's), the row Bob tries to add as Alice, the merge row, the open
/// rows. A statement's text holds no final `;`.
struct TableTestsContext: TemplateContext {
    static let template = "supabase/table_tests.sql.mustache"
    static let summary = "one table's pgTAP tests (the plan counts the tests they call)"

    var table = ""
    var pullFunction = ""
    var q = ""
    var alice = ""
    var aliceClaims = ""
    var bobClaims = ""
    var rowId = ""
    var columns = ""
    var rowValues = ""
    var insertRow = ""
    var bobUpdate = ""
    var bobUpsert = ""
    var bobInsertAsAlice = ""
    var aliceUpdate = ""
    var versionInteger = false
    var versionTimestamp = false
    var versionSentUpdate: String?
    var staleUpdate: String?
    var mergeRowId: String?
    var insertMergeRow: String?
    var columnMerge = false
    var a: String?
    var b: String?
    var aEdited: String?
    var bEdited: String?
    var editA: String?
    var editB: String?
    var aLarger: String?
    var aLargerStamp: String?
    var largerA: String?
    var smallerA: String?
    var rowMerge = false
    var newerRow: String?
    var newerValues: String?
    var olderRow: String?
    var tiedRow: String?
    var openRow = false
    var end: String?
    var firstId: String?
    var secondId: String?
    var lateId: String?
    var secondStart: String?
    var openFirst: String?
    var openSecond: String?
    var openLate: String?
    var openBob: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("pullFunction", "the pull function's name (every table's next page in one request)", \.pullFunction),
            .init("q", "a dollar quote no enum value contains, for statements inside pgTAP calls", \.q),
            .init("alice", "Alice's user id", \.alice),
            .init("aliceClaims", "Alice's JWT claims (JSON)", \.aliceClaims),
            .init("bobClaims", "Bob's JWT claims (JSON)", \.bobClaims),
            .init("rowId", "the id of Alice's row", \.rowId),
            .init("columns", "the user's columns, comma-separated", \.columns),
            .init("rowValues", "Alice's row's values of those columns", \.rowValues),
            .init("insertRow", "Alice inserts her row", \.insertRow),
            .init("bobUpdate", "Bob updates Alice's row", \.bobUpdate),
            .init("bobUpsert", "Bob upserts over Alice's row", \.bobUpsert),
            .init("bobInsertAsAlice", "Bob inserts a row owned by Alice", \.bobInsertAsAlice),
            .init("aliceUpdate", "Alice updates her row", \.aliceUpdate),
            .init("versionInteger", "an integer version table", \.versionInteger),
            .init("versionTimestamp", "an updated_at version table", \.versionTimestamp),
            .init("versionSentUpdate", "version tables: an update that sends its own version", \.versionSentUpdate),
            .init("staleUpdate", "version tables: an update guarded by a stale version", \.staleUpdate),
            .init("mergeRowId", "lww: the id of the merge row", \.mergeRowId),
            .init("insertMergeRow", "lww: inserts the merge row", \.insertMergeRow),
            .init("columnMerge", "merges column by column (and has a column the tests can edit)", \.columnMerge),
            .init("a", "column merge: the first edited column", \.a),
            .init("b", "column merge: the second (deleted_ms when no other can change)", \.b),
            .init("aEdited", "column merge: a's edited value", \.aEdited),
            .init("bEdited", "column merge: b's edited value", \.bEdited),
            .init("editA", "column merge: one device edits a", \.editA),
            .init("editB", "column merge: another edits b", \.editB),
            .init("aLarger", "column merge: a's value from the larger device id", \.aLarger),
            .init("aLargerStamp", "column merge: that write's stamp", \.aLargerStamp),
            .init("largerA", "column merge: the larger device id sets a", \.largerA),
            .init("smallerA", "column merge: the smaller one sets a at the same ms", \.smallerA),
            .init("rowMerge", "lww, the whole row at once", \.rowMerge),
            .init("newerRow", "row merge: a newer whole-row write", \.newerRow),
            .init("newerValues", "row merge: its values", \.newerValues),
            .init("olderRow", "row merge: an older write", \.olderRow),
            .init("tiedRow", "row merge: a write at the same ms from a smaller device id", \.tiedRow),
            .init("openRow", "the table keeps one open row per owner", \.openRow),
            .init("end", "open row: the end column", \.end),
            .init("firstId", "open row: the first open row's id", \.firstId),
            .init("secondId", "open row: the second's", \.secondId),
            .init("lateId", "open row: the id of the row that arrives late with an earlier start", \.lateId),
            .init("secondStart", "open row: the second row's start", \.secondStart),
            .init("openFirst", "open row: inserts the first open row", \.openFirst),
            .init("openSecond", "open row: inserts the second", \.openSecond),
            .init("openLate", "open row: inserts the late one", \.openLate),
            .init("openBob", "open row: Bob's open row, which closes none of Alice's", \.openBob),
        ]
    }
}
