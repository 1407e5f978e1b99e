import Foundation

// UUIDs cross every row as text. Foundation's conversions on Linux go through sprintf and sscanf,
// which made them a large share of a local write; these do the same by hand.
extension UUID {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The form both databases store: lowercase text.
    package var lowercasedString: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = Self.hexDigits[Int(byte >> 4)]
                    buffer[position + 1] = Self.hexDigits[Int(byte & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    /// Reads a UUID's 36-character text in either case; nil for anything else.
    package init?(text: String) {
        var bytes = uuid_t(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var text = text
        // Through the text's own bytes: every row a read decodes has a uuid or two.
        let parsed: Bool = text.withUTF8 { utf8 in
            guard utf8.count == 36 else { return false }
            return withUnsafeMutableBytes(of: &bytes) { output in
                var count = 0
                for position in 0..<36 {
                    let character = utf8[position]
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        guard character == UInt8(ascii: "-") else { return false }
                        continue
                    }
                    guard let nibble = Self.nibble(character) else { return false }
                    if count % 2 == 0 {
                        output[count / 2] = nibble << 4
                    } else {
                        output[count / 2] |= nibble
                    }
                    count += 1
                }
                return true
            }
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }

    /// Whether `utf8` is a uuid in the form both databases store (8-4-4-4-12 lowercase hex
    /// digits, as PostgreSQL's uuid_out writes it): then it is its own stored text.
    package static func isLowercaseText(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            switch index {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else {
                    return false
                }
            }
        }
        return true
    }

    package static func isLowercaseText(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isLowercaseText($0) }
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
