import Foundation

/// A `timestamp` column's value (PostgreSQL `timestamptz`): an instant to the microsecond, as the
/// server keeps it.
///
/// It is written and read in one canonical text form everywhere, PostgREST's:
/// `YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00`, the fraction's trailing zeros trimmed and no fraction
/// when it is zero. The device stores that text, the server sends it back, and every other
/// device reads the same text and the same instant. It converts to and from `Date`
/// (rounding to the nearest microsecond) and encodes as its canonical text.
///
/// Years 0001 to 9999 are held; a `Date` outside them is clamped to the nearest end.
public struct SyncTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public let microsecondsSinceEpoch: Int64

    /// 0001-01-01T00:00:00+00:00 and 9999-12-31T23:59:59.999999+00:00.
    public static let earliest = SyncTimestamp(unchecked: -62_135_596_800_000_000)
    public static let latest = SyncTimestamp(unchecked: 253_402_300_799_999_999)

    private init(unchecked microseconds: Int64) {
        microsecondsSinceEpoch = microseconds
    }

    /// The instant `microseconds` after the Unix epoch; nil outside years 0001 to 9999.
    public init?(microsecondsSinceEpoch microseconds: Int64) {
        guard (Self.earliest.microsecondsSinceEpoch...Self.latest.microsecondsSinceEpoch).contains(microseconds) else { return nil }
        self.init(unchecked: microseconds)
    }

    /// `date` to the nearest microsecond (clamped to years 0001 to 9999).
    public init(_ date: Date) {
        let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let low = Double(Self.earliest.microsecondsSinceEpoch)
        let high = Double(Self.latest.microsecondsSinceEpoch)
        self.init(unchecked: microseconds.isNaN ? 0 : Int64(min(max(microseconds, low), high)))
    }

    /// The current instant, to the microsecond.
    public static var now: SyncTimestamp { SyncTimestamp(Date()) }

    /// The instant as a `Date` (exact to well under a microsecond for years near today).
    public var date: Date {
        let seconds = microsecondsSinceEpoch.floorDivided(by: 1_000_000)
        let fraction = microsecondsSinceEpoch - seconds * 1_000_000
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / 1_000_000)
    }

    /// The canonical text: `YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00`.
    public var text: String {
        let seconds = microsecondsSinceEpoch.floorDivided(by: 1_000_000)
        var fraction = microsecondsSinceEpoch - seconds * 1_000_000
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        if fraction != 0 {
            var count = 6
            while fraction % 10 == 0 {
                fraction /= 10
                count -= 1
            }
            bytes.append(UInt8(ascii: "."))
            digits(fraction, count)
        }
        bytes.append(contentsOf: "+00:00".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { text }

    /// Reads an ISO 8601 / RFC 3339 timestamp with an offset, as PostgreSQL and PostgREST write
    /// it and as apps commonly do: `2026-10-18T13:00:27.486123+00:00`, `…27.486Z`,
    /// `2026-10-18 15:00:27+02`, `…+0200`. A fraction beyond microseconds is rounded, as
    /// PostgreSQL does. Nil for anything else, including a time without an offset (which the
    /// server would read in its own time zone) and dates that do not exist.
    public init?(_ text: String) {
        guard let microseconds = Self.parse(Array(text.utf8)) else { return nil }
        self.init(microsecondsSinceEpoch: microseconds)
    }

    public static func < (lhs: SyncTimestamp, rhs: SyncTimestamp) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = SyncTimestamp(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text.prefix(64))' is not a timestamp with an offset")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    // MARK: Parsing and the calendar

    private static func parse(_ bytes: [UInt8]) -> Int64? {
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func skip(_ allowed: String) -> Bool {
            guard index < bytes.count, allowed.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2),
            skip("Tt "), let hour = number(2), skip(":"), let minute = number(2)
        else { return nil }
        var second: Int64 = 0
        var microsecond: Int64 = 0
        if skip(":") {
            guard let value = number(2) else { return nil }
            second = value
            if skip(".,") {
                var scale: Int64 = 100_000
                var digitCount = 0
                var roundUp = false
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    let digit = Int64(bytes[index] - UInt8(ascii: "0"))
                    if digitCount < 6 {
                        microsecond += digit * scale
                        scale /= 10
                    } else if digitCount == 6 {
                        roundUp = digit >= 5
                    }
                    digitCount += 1
                    index += 1
                }
                guard digitCount > 0 else { return nil }
                if roundUp { microsecond += 1 }
            }
        }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month),
            hour < 24, minute < 60, second < 60, year >= 1
        else { return nil }
        // The offset: Z, or a sign with HH, HH:MM or HHMM.
        var offsetSeconds: Int64 = 0
        if skip("Zz") {
            offsetSeconds = 0
        } else {
            guard index < bytes.count else { return nil }
            let sign: Int64 = bytes[index] == UInt8(ascii: "+") ? 1 : bytes[index] == UInt8(ascii: "-") ? -1 : 0
            guard sign != 0 else { return nil }
            index += 1
            guard let offsetHours = number(2) else { return nil }
            var offsetMinutes: Int64 = 0
            if index < bytes.count {
                _ = skip(":")
                guard let value = number(2) else { return nil }
                offsetMinutes = value
            }
            guard offsetHours <= 15, offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard index == bytes.count else { return nil }
        let seconds = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return seconds * 1_000_000 + microsecond
    }

    private static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
