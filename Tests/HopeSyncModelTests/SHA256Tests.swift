import Testing

@testable import HopeSyncModel

@Suite struct SHA256Tests {
    @Test func matchesTheStandardVectors() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
        #expect(
            SHA256.hex(String(repeating: "a", count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        )
    }

    /// A file is hashed as its chunks arrive: any split of the bytes gives the digest of the whole.
    @Test(arguments: [1, 7, 63, 64, 65, 1000, 4096])
    func hashesInChunksOfAnySize(chunk: Int) {
        let message = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = SHA256()
        for start in stride(from: 0, to: message.count, by: chunk) {
            hasher.update(Array(message[start..<min(start + chunk, message.count)]))
        }
        #expect(hasher.finalize() == SHA256.digest(message))
        #expect(SHA256.hexDigits([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
    }
}
