import Foundation
import HopeSyncTestSupport
import Testing

@testable import HopeSync

/// The runtime's own uuid text conversions (UUID+Text) agree with Foundation's.
@Suite struct UUIDTextTests {
    @Test func textIsFoundationsLowercasedAndReadsBackInEitherCase() {
        var random = SeededGenerator(seed: 23)
        for _ in 0..<2_000 {
            let uuid = random.uuid()
            let text = uuid.uuidString.lowercased()
            #expect(uuid.lowercasedString == text)
            #expect(UUID(text: text) == uuid)
            #expect(UUID(text: uuid.uuidString) == uuid)
            let mixed = String(text.enumerated().map { $0.offset % 3 == 0 ? Character($0.element.uppercased()) : $0.element })
            #expect(UUID(text: mixed) == uuid)
        }
        #expect(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).lowercasedString == "00000000-0000-0000-0000-000000000000")
        #expect(UUID(text: "FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF")?.lowercasedString == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }

    @Test func everythingElseIsNotAUUID() {
        let good = "0f8fad5b-d9cb-469f-a165-70867728950e"
        var bad = [
            "", "0f8fad5b", good + "0", String(good.dropLast()), good.replacingOccurrences(of: "-", with: ""), "{\(good.dropFirst(2))}",
        ]
        // Every character in turn made one a hex digit cannot be, or a dash where a digit goes.
        for offset in 0..<36 {
            for replacement in ["g", "G", "-", " ", "/", ":", "@", "`", "é", "\u{0}"] {
                var characters = Array(good)
                guard String(characters[offset]) != replacement else { continue }
                characters[offset] = Character(replacement)
                bad.append(String(characters))
            }
        }
        // (Foundation's own reading on Linux, through sscanf, takes some of these.)
        for text in bad { #expect(UUID(text: text) == nil, "\(text)") }
    }

    @Test func textRoundTripsAndMatchesFoundation() throws {
        for _ in 0..<200 {
            let uuid = UUID()
            let text = try #require(UUID(text: uuid.uuidString)).uuidString
            #expect(text == uuid.uuidString)
            let stored = try #require(try SyncValue.encoding(uuid).text)
            #expect(stored == uuid.uuidString.lowercased())
        }
    }

    @Test(arguments: [
        "", "not-a-uuid", "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f", "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f70",
        "6f1c2a34x5b6d-4e7f-8091-a2b3c4d5e6f7", "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6g7",
    ])
    func malformedTextIsRefused(_ text: String) {
        #expect(UUID(text: text) == nil)
    }
}
