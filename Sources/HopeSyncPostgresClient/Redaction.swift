import CHopeSyncLibPQ
import Foundation

/// Keeps a connection string's password out of error messages.
enum Redaction {
    static func removingPassword(of url: String, from message: String) -> String {
        var result = message
        for password in passwords(in: url) where !password.isEmpty {
            result = result.replacingOccurrences(of: password, with: "***")
            if let decoded = password.removingPercentEncoding, !decoded.isEmpty {
                result = result.replacingOccurrences(of: decoded, with: "***")
            }
        }
        return result
    }

    /// The password as libpq reads it, and as it appears in a URL's user-info (for a URL
    /// libpq cannot parse at all).
    static func passwords(in url: String) -> [String] {
        var found: [String] = []
        if let options = PQconninfoParse(url, nil) {
            defer { PQconninfoFree(options) }
            var option = options
            while let keyword = option.pointee.keyword {
                if String(cString: keyword) == "password", let value = option.pointee.val {
                    found.append(String(cString: value))
                }
                option += 1
            }
        }
        if let scheme = url.range(of: "://") {
            let rest = url[scheme.upperBound...]
            if let at = rest.lastIndex(of: "@") {
                let userInfo = rest[..<at]
                if let colon = userInfo.firstIndex(of: ":") {
                    found.append(String(userInfo[userInfo.index(after: colon)...]))
                }
            }
        }
        return found
    }
}
