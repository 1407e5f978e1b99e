import Foundation
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import Testing

/// `column_stamps` and a stamp's text, written as bytes, are the texts their definitions give:
/// `lpad(updated_ms, 15, '0') + ":" + device_id`, and the object of them with keys sorted bytewise.
@Suite struct ColumnStampsTextTests {
    static func referenceText(_ stamp: WriteStamp) -> String {
        let digits = String(stamp.ms)
        return String(repeating: "0", count: max(0, 15 - digits.count)) + digits + ":" + stamp.deviceID
    }

    static func referenceJSON(_ stamps: ColumnStamps) -> String {
        var output = "{"
        for (index, key) in stamps.stamps.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
            if index > 0 { output += "," }
            JSONValue.writeString(key, to: &output)
            output += ":"
            JSONValue.writeString(referenceText(stamps[key]!), to: &output)
        }
        return output + "}"
    }

    @Test func aStampsTextIsItsPaddedMillisecondsAndDevice() {
        let milliseconds: [Int64] = [0, 1, 9, 10, 1_800_000_000_000, WriteStamp.maxMs, WriteStamp.maxMs + 1, .max, -1, -42, .min]
        for ms in milliseconds {
            for device in ["", "device-a", "dé\"v\\ice\n", "😀"] {
                let stamp = WriteStamp(ms: ms, deviceID: device)
                #expect(stamp.text == Self.referenceText(stamp))
            }
        }
    }

    @Test func columnStampsAreTheSortedObjectOfTheirTexts() {
        var random = SeededGenerator(seed: 230)
        let columns = ["note", "name", "ended_ms", "deleted_ms", "é", "a\"b", "", "Z", "started_ms"]
        let devices = ["", "device-a", "device-b", "d\u{01}ev", "ü"]
        for _ in 0..<500 {
            // A few stamps shared by several columns, as a save or a merge writes them.
            let shared = (0..<3).map { _ in
                WriteStamp(ms: Int64(random.below(2_000_000)) * 1_000_000, deviceID: devices[random.below(devices.count)])
            }
            var stamps = ColumnStamps()
            for column in columns where random.below(3) > 0 { stamps[column] = shared[random.below(shared.count)] }
            #expect(stamps.json == Self.referenceJSON(stamps))
            #expect(ColumnStamps(json: stamps.json) == stamps)
        }
    }
}
