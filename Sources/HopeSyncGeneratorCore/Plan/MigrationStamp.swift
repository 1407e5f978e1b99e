import Foundation

/// The Supabase CLI's migration stamps (UTC yyyyMMddHHmmss), which order a server's migrations.
package enum MigrationStamp {
    /// Now; `SOURCE_DATE_EPOCH` fixes it for reproducible runs.
    package static func current() -> String {
        let environment = ProcessInfo.processInfo.environment
        let date = environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:)) ?? Date()
        return formatter().string(from: date)
    }

    /// `proposed`, or one second after the latest shipped stamp when it is not later than all
    /// of them: Supabase records applied migrations by stamp and applies them in stamp order, so a
    /// repeated stamp (two runs in one second) or an earlier one (a clock or `SOURCE_DATE_EPOCH`
    /// behind) would be skipped or applied out of order.
    package static func next(_ proposed: String, after shipped: [String]) -> String {
        guard let latest = shipped.max(), proposed <= latest, let date = formatter().date(from: latest) else { return proposed }
        return formatter().string(from: date.addingTimeInterval(1))
    }

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter
    }
}
