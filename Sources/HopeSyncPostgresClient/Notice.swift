import CHopeSyncLibPQ
import Foundation
import HopeSyncLocking

/// A message the server sent beside a result (NOTICE, WARNING, INFO ...): `raise notice`, or
/// "relation already exists, skipping". It never fails the statement.
public struct Notice: Sendable, Equatable, CustomStringConvertible {
    /// Not localized: `NOTICE`, `WARNING`, `INFO`, `LOG` or `DEBUG`.
    public var severity: String
    public var message: String

    public init(severity: String, message: String) {
        self.severity = severity
        self.message = message
    }

    public var description: String { "\(severity): \(message)" }
}

/// The notices a connection received, newest last, at most `capacity` (the oldest go first),
/// so a connection that lives long never grows. libpq calls `receive` on the connection's
/// thread; readers may be on any other.
final class NoticeLog: Sendable {
    static let capacity = 1_000
    private let notices = Locked<[Notice]>([])

    func append(_ notice: Notice) {
        notices.withLock { notices in
            if notices.count == Self.capacity { notices.removeFirst() }
            notices.append(notice)
        }
    }

    func take() -> [Notice] {
        notices.withLock { notices in
            defer { notices = [] }
            return notices
        }
    }

    /// libpq's notice receiver: `arg` is the log, unretained (the connection keeps it alive).
    static func receive(_ arg: UnsafeMutableRawPointer?, _ result: OpaquePointer?) {
        guard let arg, let result else { return }
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let notice = Notice(severity: field("V") ?? field("S") ?? "NOTICE", message: field("M") ?? "")
        Unmanaged<NoticeLog>.fromOpaque(arg).takeUnretainedValue().append(notice)
    }
}
