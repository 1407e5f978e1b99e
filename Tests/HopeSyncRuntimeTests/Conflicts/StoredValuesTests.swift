import Foundation
import Testing

@testable import HopeSync

/// What the queue and the lists keep reads back as exactly what was written.
@Suite struct StoredValuesTests {
    @Test func everyKindOfValueRoundTrips() throws {
        let values = ColumnValues([
            "big": .int(Int64.max), "small": .int(Int64.min), "ratio": .double(0.1), "infinite": .double(-.infinity),
            "done": .bool(false), "title": .text("Quote \" backslash \\ newline \n é ✓"), "icon": .bytes(Data([0, 0x7f, 0xff])),
            "notes": .null, "version": .text("2026-10-18T13:00:27.486123+00:00"),
        ])
        #expect(try StoredValues.decode(StoredValues.encode(values)) == values)
        let filters = [Filter("deleted_ms", .isNull), Filter("done", .eq, .bool(false)), Filter("title", .neq, .text("a\u{1F}b"))]
        #expect(try StoredValues.decodeFilters(StoredValues.encode(filters)) == filters)
        #expect(StoredValues.decodeList(StoredValues.encodeList(["title", "done"])) == ["title", "done"])
    }

    @Test func aDamagedEntryIsADecodingError() {
        #expect { try StoredValues.decode(#"[["title",{"q":1}]]"#) } throws: { ($0 as? SyncError)?.code == .decoding }
        #expect { try StoredValues.decode("not json") } throws: { ($0 as? SyncError)?.code == .decoding }
    }
}
