import Foundation
import HopeSyncModel

/// When a JWT expires: its payload's `exp` (seconds since 1970), read without checking the
/// signature (the server checks it; the client only plans the refresh).
enum AccessTokenExpiry {
    static func date(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let claims = try? JSONValue(parsing: data),
            case .number(let literal)? = claims["exp"], let seconds = Double(literal)
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
