import CHopeSyncSQLite
import Foundation

/// The current row of a stepping statement. Valid only until the statement steps again.
public struct Row {
    let handle: OpaquePointer

    public var count: Int { Int(sqlite3_column_count(handle)) }

    public subscript(index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(text(at: index) ?? "")
        case SQLITE_BLOB: return .blob(data(at: index) ?? Data())
        default: return .null
        }
    }

    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    public func double(at index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    public func text(at index: Int) -> String? {
        guard let bytes = sqlite3_column_text(handle, Int32(index)) else { return nil }
        return String(cString: bytes)
    }

    public func data(at index: Int) -> Data? {
        let column = Int32(index)
        guard let bytes = sqlite3_column_blob(handle, column) else {
            return isNull(at: index) ? nil : Data()
        }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }
}
