import Foundation
import HopeSyncModel

/// PostgreSQL's text forms of values, shared by every transport so that a value reads and
/// writes the same whichever way it travels (PostgREST's JSON, or libpq's text format).
extension SyncValue {
    /// The value as PostgreSQL reads it in text form (a filter's value, a libpq text
    /// parameter); nil for null.
    package var postgresText: String? {
        switch self {
        case .null: nil
        case .int(let number): String(number)
        case .double(let number) where number.isFinite: "\(number)"
        case .double(let number): number.isNaN ? "NaN" : number < 0 ? "-Infinity" : "Infinity"
        case .bool(let flag): flag ? "true" : "false"
        case .text(let text): text
        case .bytes(let data): Self.byteaText(data)
        }
    }

    /// Bytes from bytea's hex text (`\x` then two hex digits a byte); nil when it is not that.
    package init?(byteaText text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        var data = Data(capacity: (utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = hexDigitValue(utf8[index]), let low = hexDigitValue(utf8[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        self = .bytes(data)
    }

    /// PostgreSQL's bytea hex format: `\x` then two lowercase hex digits a byte.
    static func byteaText(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + data.count * 2)
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A json column's value: its canonical text (compact, keys sorted bytewise, a repeated key
    /// keeping its last value), as the HTTP transport keeps it; nil when `text` is not JSON.
    package init?(canonicalJSON text: String) {
        guard let canonical = try? JSONValue.canonicalText(of: text) else { return nil }
        self = .text(canonical)
    }
}
