import Foundation
import HopeSync
import Testing

@testable import HopeSyncPostgres

/// A pulled page is read from libpq's bytes in place: the integer and uuid readers there must
/// agree with Swift's own parsing on every edge.
struct InPlaceDecodingTests {
    @Test(arguments: [
        "0", "-0", "7", "-42", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "-9223372036854775809", "12345678901234567890", "", "-", "1.5", "1e3", " 1", "+1", "0x10", "٣",
    ])
    func integersReadAsSwiftReadsThem(_ text: String) {
        var text = text
        let inPlace = text.withUTF8 { PostgresRowDecoding.integer($0) }
        let expected = text.hasPrefix("+") ? nil : Int64(text)
        #expect(inPlace == expected, "\(text)")
    }

    @Test(arguments: [
        ("0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2b", true), ("0B5F7A8E-3C2D-4E1F-9A6B-7C8D9E0F1A2B", false),
        ("0b5f7a8e3c2d-4e1f-9a6b-7c8d9e0f1a2b-", false), ("0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2", false),
        // The bytes either side of 0-9 and a-f.
        ("0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2/", false), ("0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2:", false),
        ("0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2`", false), ("0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2g", false),
        ("09af0000-0000-0000-0000-000000000000", true), ("0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1-2b", false),
    ])
    func uuidsAreCheckedByte(_ text: String, _ valid: Bool) {
        #expect(UUID.isLowercaseText(text) == valid)
    }
}
