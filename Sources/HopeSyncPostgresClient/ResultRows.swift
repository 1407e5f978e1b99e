import CHopeSyncLibPQ

/// A statement's rows read in place, as libpq holds them: each value's bytes in PostgreSQL's
/// text format, with no Swift string made. For results read in bulk (a pulled page); valid only
/// inside the closure that receives it.
public struct ResultRows: ~Copyable {
    let handle: OpaquePointer

    public var count: Int { Int(PQntuples(handle)) }
    public var columnCount: Int { Int(PQnfields(handle)) }

    /// The value's bytes (nil for NULL), valid until the closure returns.
    public func bytes(row: Int, column: Int) -> UnsafeBufferPointer<UInt8>? {
        let (row, column) = (Int32(row), Int32(column))
        guard PQgetisnull(handle, row, column) == 0, let value = PQgetvalue(handle, row, column) else { return nil }
        return UnsafeBufferPointer(
            start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: Int(PQgetlength(handle, row, column)))
    }
}

extension Connection {
    /// Runs one statement like ``execute(_:_:)`` and hands its rows to `body` in place.
    public func execute<T>(
        _ sql: String, _ parameters: [String?], reading body: (borrowing ResultRows) throws(PostgresError) -> T
    ) throws(PostgresError) -> T {
        try withResult(of: sql, parameters) { (result: OpaquePointer) throws(PostgresError) -> T in
            try body(ResultRows(handle: result))
        }
    }
}
