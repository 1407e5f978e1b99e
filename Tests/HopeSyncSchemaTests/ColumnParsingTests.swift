import Foundation
import Testing

@testable import HopeSyncSchema

/// Parses one table named `items` whose columns are `columns`, indented under `columns:`.
func parseColumns(_ columns: String) throws -> [Column] {
    let body = columns.split(separator: "\n").map { "      \($0)" }.joined(separator: "\n")
    let schema = try SchemaParser.parse("tables:\n  items:\n    columns:\n\(body)\n").schema
    return try #require(schema.tables.first).columns
}

@Suite struct ColumnParsingTests {
    @Test func shorthandIsNotNullWithoutDefaultAndQuestionMarkMakesItNullable() throws {
        let columns = try parseColumns(
            """
            title: text
            note: text?
            count: int
            ratio: double?
            flag: bool
            ref: uuid?
            at: timestamp
            data: json?
            blob: bytes
            """)
        #expect(
            columns == [
                Column(name: "title", type: .text),
                Column(name: "note", type: .text, isNullable: true),
                Column(name: "count", type: .int),
                Column(name: "ratio", type: .double, isNullable: true),
                Column(name: "flag", type: .bool),
                Column(name: "ref", type: .uuid, isNullable: true),
                Column(name: "at", type: .timestamp),
                Column(name: "data", type: .json, isNullable: true),
                Column(name: "blob", type: .bytes),
            ])
    }

    @Test func mappingFormCarriesEveryField() throws {
        let columns = try parseColumns(
            """
            color: { type: text, default: "#8E8E93" }
            done: { type: bool, default: false, nullable: false }
            size: { type: int, default: -9223372036854775808 }
            weight: { type: double, default: 2.5e3, nullable: true }
            source: { type: enum, values: [desktop, phone, watch], default: desktop }
            created: { type: timestamp, default: now }
            owner_ref: { type: uuid, references: items, default: 0C6F3B1A-0000-4000-8000-00000000ABCD }
            """)
        #expect(
            columns == [
                Column(name: "color", type: .text, defaultValue: .text("#8E8E93")),
                Column(name: "done", type: .bool, defaultValue: .bool(false)),
                Column(name: "size", type: .int, defaultValue: .int(.min)),
                Column(name: "weight", type: .double, isNullable: true, defaultValue: .double(2500)),
                Column(name: "source", type: .enumeration(["desktop", "phone", "watch"]), defaultValue: .text("desktop")),
                Column(name: "created", type: .timestamp, defaultValue: .now),
                Column(name: "owner_ref", type: .uuid, defaultValue: .text("0C6F3B1A-0000-4000-8000-00000000ABCD"), references: "items"),
            ])
    }

    @Test func quotedScalarsAreStringsNeverBoolsNumbersOrNull() throws {
        let columns = try parseColumns(
            """
            a: { type: text, default: "true" }
            b: { type: text, default: '42' }
            c: { type: text, default: "null" }
            d: { type: enum, values: ["yes", "1.5", "null"], default: "1.5" }
            e: { type: text, default: "" }
            f: { type: text, default: yes }
            g: "text?"
            """)
        #expect(columns.map(\.defaultValue) == [.text("true"), .text("42"), .text("null"), .text("1.5"), .text(""), .text("yes"), nil])
        #expect(columns[3].type == .enumeration(["yes", "1.5", "null"]))
        #expect(columns[6] == Column(name: "g", type: .text, isNullable: true))
    }

    @Test func textDefaultsKeepEveryCharacterRaw() throws {
        let columns = try parseColumns(
            #"""
            quote: { type: text, default: "it's \"quoted\"; drop table x; --" }
            lines: { type: text, default: "a\nb\\c" }
            """#)
        #expect(columns.map(\.defaultValue) == [.text(#"it's "quoted"; drop table x; --"#), .text("a\nb\\c")])
    }

    @Test func jsonDefaultsBecomeCanonicalJSONText() throws {
        let columns = try parseColumns(
            """
            empty: { type: json, nullable: true, default: {} }
            list: { type: json, default: [1, 2.50, "x", true, "true", ~x] }
            nested: { type: json, default: { b: [], a: { d: "\\"q\\"", c: 1.0 } } }
            word: { type: json, default: hello }
            """)
        #expect(
            columns.map(\.defaultValue) == [
                .json("{}"),
                .json(#"[1,2.5,"x",true,"true","~x"]"#),
                .json(#"{"a":{"c":1,"d":"\"q\""},"b":[]}"#),
                .json(#""hello""#),
            ])
    }
}

@Suite struct FileColumnTests {
    @Test func aFileColumnNamesItsBucketAndWhenDevicesFetchItsFiles() throws {
        let columns = try parseColumns(
            """
            photo: { type: file, bucket: task-photos }
            scan: { type: file, bucket: scans_2, download: on_read, nullable: true }
            """)
        #expect(
            columns == [
                Column(name: "photo", type: .file(bucket: "task-photos")),
                Column(name: "scan", type: .file(bucket: "scans_2"), isNullable: true, download: .onRead),
            ])
        #expect(columns.map(\.type.sqliteType) == ["TEXT", "TEXT"])
        #expect(columns.map(\.type.postgresType) == ["text", "text"])
    }

    /// The snapshot keeps the bucket (a changed bucket is a changed type, refused) and the
    /// download mode only when it is not the default.
    @Test func theSnapshotKeepsTheBucketAndTheDownloadMode() throws {
        let columns = [
            Column(name: "photo", type: .file(bucket: "task-photos")),
            Column(name: "scan", type: .file(bucket: "scans"), isNullable: true, download: .onRead),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(columns), as: UTF8.self)
        #expect(
            json
                == #"[{"bucket":"task-photos","name":"photo","type":"file"},{"bucket":"scans","download":"on_read","name":"scan","nullable":true,"type":"file"}]"#
        )
        #expect(try JSONDecoder().decode([Column].self, from: Data(json.utf8)) == columns)
    }

    @Test func movingAColumnToAnotherBucketIsRefusedButChangingItsDownloadIsNot() throws {
        let old = try SchemaParser.parse("tables:\n  items:\n    columns:\n      photo: { type: file, bucket: a }\n").schema
        let moved = try SchemaParser.parse("tables:\n  items:\n    columns:\n      photo: { type: file, bucket: b }\n")
        #expect(throws: SchemaError.self) { try SchemaDiff.changes(from: old, to: moved) }
        let lazy = try SchemaParser.parse("tables:\n  items:\n    columns:\n      photo: { type: file, bucket: a, download: on_read }\n")
        #expect(try SchemaDiff.changes(from: old, to: lazy).isEmpty)
    }
}
