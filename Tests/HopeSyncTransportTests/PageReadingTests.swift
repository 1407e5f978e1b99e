import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// A pulled page is read straight from the answer's bytes; it must read exactly what the row
/// reader (the one for writes' answers, over a parsed tree) reads, and report the same failures.
struct PageReadingTests {
    static let table = TableSchema(
        name: "things",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("name", .text),
            ColumnSchema("meta", .json, nullable: true),
            ColumnSchema("count", .int),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
        ],
        conflict: .lww,
        ordering: .exact
    )

    static let id = "0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2b"

    @Test func validRowsReadAsTheTreeReadsThem() throws {
        let body = """
            [{"id":"\(Self.id)","name":"a","meta":{"b":[1,2.50],"a":null},"count":9223372036854775807,"server_seq":7},
             {"server_seq":8,"count":-1,"meta":null,"name":"é\\n","id":"\(Self.id.uppercased())","extra":{"x":[]}}]
            """
        let page = try PostgRESTRowCoding.page(Data(body.utf8), of: Self.table)
        let tree = try PostgRESTRowCoding.rows(JSONValue(parsing: body), columns: Self.table.columns, of: "things")
        #expect(page.rows == tree)
        #expect(page.receivedCount == 2 && page.lastServerSeq == 8 && page.undecodable.isEmpty)
        #expect(page.rows.first?["meta"] == .text(#"{"a":null,"b":[1,2.50]}"#))
    }

    @Test func aRepeatedKeyCountsOnceTheLast() throws {
        let body = #"[{"id":"\#(Self.id)","name":"a","name":"b","meta":null,"count":"bad","count":3,"server_seq":1}]"#
        let page = try PostgRESTRowCoding.page(Data(body.utf8), of: Self.table)
        #expect(page.rows.first?["name"] == .text("b") && page.rows.first?["count"] == .int(3))
    }

    @Test func rowsThatDoNotReadAreReportedAndTheRestArrive() throws {
        let body = """
            [7, {"id":"\(Self.id)","name":"a","meta":null,"server_seq":2},
             {"id":"\(Self.id)","name":"a","meta":null,"count":"x","server_seq":3},
             {"id":"\(Self.id)","name":"b","meta":[],"count":1,"server_seq":4}]
            """
        let page = try PostgRESTRowCoding.page(Data(body.utf8), of: Self.table)
        #expect(page.rows.count == 1 && page.receivedCount == 4 && page.lastServerSeq == 4)
        #expect(page.undecodable.map(\.serverSeq) == [nil, 2, 3])
        #expect(
            page.undecodable.map(\.reason) == [
                "the row is not a JSON object", "column count: missing", "column count: expected an integer",
            ])
        #expect(page.undecodable[1].key == Self.id)
    }

    @Test(arguments: [#"{"id":1}"#, "[1,", "[] x", "not json"])
    func aBodyThatIsNotAnArrayOfRowsFailsThePage(_ body: String) {
        let error = #expect(throws: SyncError.self) { try PostgRESTRowCoding.page(Data(body.utf8), of: Self.table) }
        #expect(error?.code == .decoding)
    }
}
