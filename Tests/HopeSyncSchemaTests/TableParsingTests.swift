import Testing

@testable import HopeSyncSchema

@Suite struct TableParsingTests {
    @Test func conflictModesInEveryForm() throws {
        let schema = try SchemaParser.parse(
            """
            tables:
              a: { columns: { x: int } }
              b: { conflict: lww, columns: { x: int } }
              c: { conflict: version, columns: { x: int } }
              d: { conflict: { mode: version, version: integer }, columns: { x: int } }
              e: { conflict: { mode: version, version: timestamp }, columns: { x: int } }
              f: { conflict: { mode: version }, columns: { x: int } }
              g: { conflict: { mode: lww }, columns: { x: int } }
            """
        ).schema
        #expect(
            schema.tables.map(\.conflict) == [
                .lww, .lww, .version(.timestamp), .version(.integer), .version(.timestamp), .version(.timestamp), .lww,
            ])
    }

    @Test func tableOptionsAndOrderAreKept() throws {
        let schema = try SchemaParser.parse(
            """
            tables:
              zebras:
                swift_name: Zebra
                exact_ordering: false
                columns:
                  stripes: int
              apples:
                columns:
                  kind: text
            """
        ).schema
        #expect(schema.tables.map(\.name) == ["zebras", "apples"])
        #expect(schema.tables[0].swiftName == "Zebra")
        #expect(schema.tables[0].exactOrdering == false)
        #expect(schema.tables[1].swiftName == nil)
        #expect(schema.tables[1].exactOrdering == true)
    }

    @Test func indexesTakeUserAndImplicitColumnsAndDefaultTheirName() throws {
        let schema = try SchemaParser.parse(
            """
            tables:
              notes:
                conflict: { mode: version, version: integer }
                columns:
                  body: text
                  pinned: bool
                indexes:
                  - columns: [pinned, version]
                  - { columns: [body], unique: true, name: notes_by_body }
                  - columns: [server_seq]
            """)
        #expect(
            schema.schema.tables[0].indexes == [
                Index(name: "notes_pinned_version_idx", columns: ["pinned", "version"]),
                Index(name: "notes_by_body", columns: ["body"], isUnique: true),
                Index(name: "notes_server_seq_idx", columns: ["server_seq"]),
            ])
    }

    @Test func referencesMayPointForwardOrAtTheirOwnTable() throws {
        let schema = try SchemaParser.parse(
            """
            tables:
              comments:
                columns:
                  post_id: { type: uuid, references: posts }
                  parent_id: { type: uuid, nullable: true, references: comments }
              posts:
                columns:
                  title: text
            """
        ).schema
        #expect(schema.tables[0].columns.map(\.references) == ["posts", "comments"])
    }

    @Test func locationsPointAtTheKeys() throws {
        let parsed = try SchemaParser.parse(
            """
            # comment
            tables:
              posts:   # trailing
                columns: { title: text,   body: "text?" }
            """, file: "app/schema.yaml")
        #expect(parsed.locations.file == "app/schema.yaml")
        #expect(parsed.locations.tables == ["posts": SourceLocation(file: "app/schema.yaml", line: 3, column: 3)])
        #expect(
            parsed.locations.columns == [
                "posts.title": SourceLocation(file: "app/schema.yaml", line: 4, column: 16),
                "posts.body": SourceLocation(file: "app/schema.yaml", line: 4, column: 31),
            ])
    }
}
