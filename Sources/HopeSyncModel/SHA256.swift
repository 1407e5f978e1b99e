/// SHA-256 (FIPS 180-4): the generator's migration checksums and the runtime's content-addressed
/// file names. Foundation on Linux has no digest API and no outside package can be used, so this
/// is the textbook algorithm, checked against the standard test vectors in the tests. It hashes
/// as bytes arrive (``update(_:)``), so a large file never has to be in memory whole.
public struct SHA256: Sendable {
    private var hash: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes of an incomplete block, carried to the next update.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    /// The hex digest of a text's UTF-8 bytes.
    public static func hex(_ text: String) -> String {
        var hasher = SHA256()
        hasher.update(Array(text.utf8))
        return hexDigits(hasher.finalize())
    }

    /// The digest of `message`.
    public static func digest(_ message: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(message)
        return hasher.finalize()
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { update($0) }
    }

    /// Hashes `bytes` after everything before; whole blocks straight from the buffer, only a
    /// block's worth of leftovers copied.
    public mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        length &+= UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let taken = min(64 - pending.count, bytes.count)
            pending += bytes[0..<taken]
            start = taken
            guard pending.count == 64 else { return }
            let block = pending
            pending.removeAll(keepingCapacity: true)
            block.withUnsafeBufferPointer { compressBlocks($0, count: 64) }
        }
        let whole = (bytes.count - start) / 64 * 64
        if whole > 0 { compressBlocks(UnsafeBufferPointer(rebasing: bytes[start..<(start + whole)]), count: whole) }
        pending += bytes[(start + whole)...]
    }

    /// The digest of everything given; the hasher is spent.
    public mutating func finalize() -> [UInt8] {
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        let bitLength = length &* 8
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        tail.withUnsafeBufferPointer { compressBlocks($0, count: $0.count) }
        pending = []
        return hash.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - $0 * 8)) } }
    }

    private mutating func compressBlocks(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { words in
            hash.withUnsafeMutableBufferPointer { hash in
                for start in stride(from: 0, to: count, by: 64) { Self.compress(bytes, at: start, words: words, hash: hash) }
            }
        }
    }

    private static func compress(
        _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, words: UnsafeMutableBufferPointer<UInt32>,
        hash: UnsafeMutableBufferPointer<UInt32>
    ) {
        for i in 0..<16 {
            let base = start + i * 4
            words[i] = UInt32(bytes[base]) << 24 | UInt32(bytes[base + 1]) << 16 | UInt32(bytes[base + 2]) << 8 | UInt32(bytes[base + 3])
        }
        for i in 16..<64 {
            let s0 = words[i - 15].rotatedRight(7) ^ words[i - 15].rotatedRight(18) ^ (words[i - 15] >> 3)
            let s1 = words[i - 2].rotatedRight(17) ^ words[i - 2].rotatedRight(19) ^ (words[i - 2] >> 10)
            words[i] = words[i - 16] &+ s0 &+ words[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7])
        roundConstants.withUnsafeBufferPointer { constants in
            for i in 0..<64 {
                let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                let choice = (e & f) ^ (~e & g)
                let temp1 = h &+ s1 &+ choice &+ constants[i] &+ words[i]
                let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ s0 &+ majority)
            }
        }
        hash[0] = hash[0] &+ a
        hash[1] = hash[1] &+ b
        hash[2] = hash[2] &+ c
        hash[3] = hash[3] &+ d
        hash[4] = hash[4] &+ e
        hash[5] = hash[5] &+ f
        hash[6] = hash[6] &+ g
        hash[7] = hash[7] &+ h
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension SHA256 {
    /// Lowercase hex, two digits a byte: how digests are written.
    public static func hexDigits(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}
