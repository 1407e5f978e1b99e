import Testing

@testable import HopeSyncSchema

@Suite struct OldestWriterParsingTests {
    @Test func absentLetsEveryBuildWrite() throws {
        let schema = try SchemaParser.parse("tables:\n  a: { columns: { x: int } }\n").schema
        #expect(schema.oldestWriter == nil)
    }

    @Test func aMigrationNumberIsRead() throws {
        let schema = try SchemaParser.parse("oldest_writer: 12\ntables:\n  a: { columns: { x: int } }\n").schema
        #expect(schema.oldestWriter == 12)
    }

    @Test(arguments: ["0", "-3", "twelve", "[1]", "1.5"])
    func anythingButAPositiveNumberIsRefused(value: String) {
        #expect {
            _ = try SchemaParser.parse("oldest_writer: \(value)\ntables:\n  a: { columns: { x: int } }\n")
        } throws: { error in
            "\(error)".contains("oldest_writer")
        }
    }
}
