/// The `Date` header every HTTP answer carries (RFC 9110's IMF-fixdate,
/// `Sun, 06 Nov 1994 08:49:37 GMT`): the server's clock, to the second, which the store uses to
/// tell how far this device's clock is off.
enum HTTPDate {
    /// Milliseconds since 1970 of an IMF-fixdate; nil for anything else (the obsolete formats
    /// are not sent by any server this library talks to).
    static func millisecondsSince1970(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), text.hasSuffix(" GMT") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        let monthName = String(decoding: bytes[8..<11], as: UTF8.self)
        guard let day = number(5..<7), let month = months.firstIndex(of: monthName), let year = number(12..<16),
            let hour = number(17..<19), let minute = number(20..<22), let second = number(23..<25),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysSince1970(year: year, month: Int64(month) + 1, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1_000
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// days_from_civil).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
