import CHopeSyncLibPQ
import Foundation

/// One libpq connection. Sendable: every call holds the connection's lock, so threads take
/// turns; a transaction's body may call back into the same connection (the lock is recursive).
public final class Connection: @unchecked Sendable {
    private let handle: OpaquePointer
    private let lock = NSRecursiveLock()
    /// Made once, so ``cancel()`` needs neither the lock nor the connection's thread.
    private let cancelHandle: OpaquePointer?
    /// What the server sent beside results; see ``takeNotices()``.
    private let noticeLog = NoticeLog()
    /// The statements ``executePrepared(_:_:)`` prepared on this connection, named by their text.
    private var preparedNames: [String: String] = [:]

    /// Connects with a libpq URL or key/value string, e.g.
    /// `postgresql://postgres@127.0.0.1:5432/app`. Gives up after 10 seconds unless the URL
    /// sets its own `connect_timeout`. The error never contains the password.
    public init(url: String) throws(PostgresError) {
        // Keywords before "dbname" are defaults: the expanded URL overrides them.
        let connection = Self.withCStrings(["connect_timeout", "dbname", nil]) { keywords in
            Self.withCStrings(["10", url, nil]) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let handle = connection else {
            throw PostgresError(message: "cannot connect: out of memory")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = Self.text(PQerrorMessage(handle)) ?? "unknown reason"
            PQfinish(handle)
            throw PostgresError(message: "cannot connect: " + Redaction.removingPassword(of: url, from: reason))
        }
        self.handle = handle
        cancelHandle = PQgetCancel(handle)
        // The server's notices ("already exists, skipping") would go to stderr by default;
        // they are kept for ``takeNotices()`` instead.
        PQsetNoticeReceiver(handle, { arg, result in NoticeLog.receive(arg, result) }, Unmanaged.passUnretained(noticeLog).toOpaque())
    }

    /// The notices (and warnings) the server sent since the connection opened or since the
    /// last call, oldest first; at most the last thousand.
    public func takeNotices() -> [Notice] {
        noticeLog.take()
    }

    deinit {
        if let cancelHandle { PQfreeCancel(cancelHandle) }
        PQfinish(handle)
    }

    /// Asks the server to cancel the statement running on this connection, from any thread
    /// (libpq's PQcancel). The statement then fails with SQLSTATE 57014; with nothing running,
    /// nothing happens.
    public func cancel() {
        guard let cancelHandle else { return }
        var reason = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancelHandle, &reason, Int32(reason.count))
    }

    /// Runs one statement with `$1, $2 ...` parameters sent apart from the text (never spliced
    /// into it), in text format: nil is NULL.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> QueryResult {
        try withResult(of: sql, parameters) { (result: OpaquePointer) throws(PostgresError) -> QueryResult in Self.rows(of: result) }
    }

    /// Runs one statement and reads its successful result with `body` (the result is freed
    /// after); a failed statement throws the server's error.
    func withResult<T>(
        of sql: String, _ parameters: [String?], _ body: (OpaquePointer) throws(PostgresError) -> T
    ) throws(PostgresError) -> T {
        lock.lock()
        defer { lock.unlock() }
        let result = Self.withCStrings(parameters) { values in
            PQexecParams(handle, sql, Int32(values.count), nil, values, nil, nil, 0)
        }
        return try read(result, body)
    }

    /// Runs one statement as a prepared statement, prepared on this connection the first time its
    /// text comes (PostgREST sends its queries so): from the sixth run on the server may reuse one
    /// generic plan instead of planning each run. Parameters as in ``execute(_:_:)``.
    public func executePrepared(_ sql: String, _ parameters: [String?]) throws(PostgresError) {
        lock.lock()
        defer { lock.unlock() }
        let name: String
        if let known = preparedNames[sql] {
            name = known
        } else {
            name = "hope_sync_\(preparedNames.count + 1)"
            try read(PQprepare(handle, name, sql, Int32(parameters.count), nil)) { _ in }
            preparedNames[sql] = name
        }
        let result = Self.withCStrings(parameters) { values in
            PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
        }
        try read(result) { _ in }
    }

    /// Runs several statements separated by semicolons (a migration file, a prelude), stopping
    /// at the first error. Without an explicit transaction each statement commits on its own.
    public func execute(script: String) throws(PostgresError) {
        lock.lock()
        defer { lock.unlock() }
        _ = try consume(PQexec(handle, script))
    }

    /// Runs several statements like ``execute(script:)`` and returns each one's result, in
    /// order (a pgTAP file's TAP lines are the rows of its statements' results). The first
    /// error is thrown once the server has finished with the script.
    public func results(ofScript script: String) throws(PostgresError) -> [QueryResult] {
        lock.lock()
        defer { lock.unlock() }
        guard PQsendQuery(handle, script) == 1 else {
            throw PostgresError(message: Self.text(PQerrorMessage(handle)) ?? "cannot send the script")
        }
        var results: [QueryResult] = []
        var firstError: PostgresError?
        while let result = PQgetResult(handle) {
            do {
                results.append(try consume(result))
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
        return results
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    public func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        try execute("begin")
        do {
            let value = try body(self)
            try execute("commit")
            return value
        } catch {
            // A failed rollback means the connection is gone; the body's error says more.
            _ = try? execute("rollback")
            throw error
        }
    }

    private func consume(_ result: OpaquePointer?) throws(PostgresError) -> QueryResult {
        try read(result) { (result: OpaquePointer) throws(PostgresError) -> QueryResult in Self.rows(of: result) }
    }

    /// Reads a successful result with `body`, then frees it; a failed one throws the server's error.
    private func read<T>(_ result: OpaquePointer?, _ body: (OpaquePointer) throws(PostgresError) -> T) throws(PostgresError) -> T {
        guard let result else {
            throw PostgresError(message: Self.text(PQerrorMessage(handle)) ?? "no result from the server")
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return try body(result)
        default:
            throw Self.error(from: result, fallback: Self.text(PQerrorMessage(handle)))
        }
    }

    private static func rows(of result: OpaquePointer) -> QueryResult {
        let columnCount = PQnfields(result)
        let rowCount = PQntuples(result)
        let columns = (0..<columnCount).map { text(PQfname(result, $0)) ?? "" }
        let rows = (0..<rowCount).map { row in
            (0..<columnCount).map { column -> String? in
                PQgetisnull(result, row, column) == 1 ? nil : text(PQgetvalue(result, row, column))
            }
        }
        return QueryResult(columns: columns, rows: rows, affectedRows: Int(text(PQcmdTuples(result)) ?? "") ?? 0)
    }

    private static func error(from result: OpaquePointer, fallback: String?) -> PostgresError {
        func field(_ code: Character) -> String? {
            text(PQresultErrorField(result, Int32(code.asciiValue!)))
        }
        let message = field("M") ?? fallback?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
        return PostgresError(sqlState: field("C"), message: message, detail: field("D"), hint: field("H"))
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { $0.map { strdup($0)! } }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}
