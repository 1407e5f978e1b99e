import Foundation
import HopeSync
import HopeSyncModel

/// JWTs as Supabase Auth signs them (HS256 with the project's secret), for the test Storage
/// server, which checks them as Storage does (the tests and `bench files`).
public enum TestJWT {
    public static let secret = "hope-sync-test-secret-at-least-32-bytes"

    /// A user's access token, valid for `seconds` (negative: already expired).
    public static func token(for user: UUID, expiresIn seconds: Int = 3_600) -> String {
        let header = #"{"alg":"HS256","typ":"JWT"}"#
        let expiry = Int(Date().timeIntervalSince1970) + seconds
        let claims = #"{"sub":"\#(user.uuidString.lowercased())","role":"authenticated","aud":"authenticated","exp":\#(expiry)}"#
        let signed = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        return signed + "." + base64URL(Data(hmacSHA256(key: Array(secret.utf8), message: Array(signed.utf8))))
    }

    /// HMAC (RFC 2104) over SHA-256.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? SHA256.digest(key) : key
        block += Array(repeating: 0, count: 64 - block.count)
        let inner = SHA256.digest(block.map { $0 ^ 0x36 } + message)
        return SHA256.digest(block.map { $0 ^ 0x5c } + inner)
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
