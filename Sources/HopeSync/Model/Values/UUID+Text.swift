import Foundation

// UUIDs cross every row as text. Foundation's conversions on Linux go through sprintf and sscanf,
// which made them a large share of a local write; these do the same by hand.
extension UUID {
    /// The form both databases store: lowercase text.
    @usableFromInline package var lowercasedString: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = Self.hexDigit(bytes[index] >> 4)
                    buffer[position + 1] = Self.hexDigit(bytes[index] & 0x0F)
                    position += 2
                }
                return position
            }
        }
    }

    /// Reads a UUID's 36-character text in either case; nil for anything else.
    @usableFromInline package init?(text: String) {
        var text = text
        // Through the text's own bytes: every row a read decodes has a uuid or two.
        guard let bytes = text.withUTF8(Self.parse) else { return nil }
        self.init(uuid: bytes)
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        let dash = UInt8(ascii: "-")
        guard utf8.count == 36, utf8[8] == dash, utf8[13] == dash, utf8[18] == dash, utf8[23] == dash else { return nil }
        var bytes = uuid_t(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &bytes) { output in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 { position += 1 }
                guard let high = nibble(utf8[position]), let low = nibble(utf8[position + 1]) else { return false }
                output[index] = high << 4 | low
                position += 2
            }
            return true
        }
        return parsed ? bytes : nil
    }

    /// Whether `utf8` is a uuid in the form both databases store (8-4-4-4-12 lowercase hex
    /// digits, as PostgreSQL's uuid_out writes it): then it is its own stored text.
    package static func isLowercaseText(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let dash = UInt8(ascii: "-")
        guard utf8.count == 36, utf8[8] == dash, utf8[13] == dash, utf8[18] == dash, utf8[23] == dash else { return false }
        // Every byte a digit, a-f or a dash, and no dash but those four: one pass, no position test.
        var dashes = 0
        for byte in utf8 {
            // Wrapping subtraction: one comparison each for 0-9 and a-f.
            if byte &- UInt8(ascii: "0") < 10 || byte &- UInt8(ascii: "a") < 6 { continue }
            guard byte == dash else { return false }
            dashes += 1
        }
        return dashes == 4
    }

    package static func isLowercaseText(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isLowercaseText($0) }
    }

    /// A hex digit's value, in either case.
    private static func nibble(_ character: UInt8) -> UInt8? {
        let digit = character &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        // Setting 0x20 lowercases A-F and moves nothing else into a-f.
        let letter = (character | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter + 10 : nil
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }
}
