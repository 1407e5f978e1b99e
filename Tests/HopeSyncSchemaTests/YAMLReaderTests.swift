import Testing

@testable import HopeSyncSchema

@Suite struct YAMLReaderTests {
    @Test func buildsATreeWithOneBasedMarksAndQuoting() throws {
        let reader = YAMLReader(
            """
            a: 1
            b:
              - "x"
              - 'y'
              - z
            c:
              d: |
                text
            """, file: "f.yaml")
        #expect(reader.log.isEmpty)
        let root = try #require(reader.root?.mapping)
        #expect(root.map(\.key) == ["a", "b", "c"])
        #expect(root.map(\.keyMark) == [YAMLMark(line: 1, column: 1), YAMLMark(line: 2, column: 1), YAMLMark(line: 6, column: 1)])
        #expect(root[0].value.scalar == YAMLScalar(text: "1", isQuoted: false))
        #expect(root[0].value.mark == YAMLMark(line: 1, column: 4))
        let items = try #require(root[1].value.sequence)
        #expect(
            items.map(\.scalar) == [
                YAMLScalar(text: "x", isQuoted: true), YAMLScalar(text: "y", isQuoted: true), YAMLScalar(text: "z", isQuoted: false),
            ])
        #expect(items.map(\.mark) == [YAMLMark(line: 3, column: 5), YAMLMark(line: 4, column: 5), YAMLMark(line: 5, column: 5)])
        let inner = try #require(root[2].value.mapping)
        #expect(inner.first?.value.scalar == YAMLScalar(text: "text", isQuoted: true))
    }

    @Test func plainScalarsResolveByTheCoreSchemaQuotedOnesNever() {
        let plain: [(String, ScalarValue)] = [
            ("", .null), ("~", .null), ("null", .null), ("true", .bool(true)), ("FALSE", .bool(false)),
            ("yes", .string("yes")), ("42", .int(42)), ("-7", .int(-7)), ("+3", .int(3)), ("1.5", .double(1.5)),
            ("1e3", .double(1000)), (".5", .double(0.5)), ("99999999999999999999", .double(1e20)),
            ("inf", .string("inf")), (".nan", .string(".nan")), ("0x1F", .string("0x1F")), ("1.2.3", .string("1.2.3")),
        ]
        for (text, value) in plain {
            #expect(YAMLScalar(text: text, isQuoted: false).value == value, "\(text)")
            #expect(YAMLScalar(text: text, isQuoted: true).value == .string(text), "\(text)")
        }
    }

    @Test func refusesAnchorsAliasesTagsAndASecondDocument() {
        let reader = YAMLReader(
            """
            a: &base { x: 1 }
            b: *base
            c: !!str 5
            ---
            d: 2
            """, file: "f.yaml")
        #expect(
            reader.log.diagnostics.map(\.description) == [
                "f.yaml:1:4: error: YAML anchors are not supported ('&base'); hint: remove the anchor and write each value out in full",
                "f.yaml:2:4: error: YAML aliases are not supported; hint: write the value out in full where it is used",
                "f.yaml:3:4: error: YAML tags are not supported ('tag:yaml.org,2002:str'); hint: remove the tag; quote a value to make it a string",
                "f.yaml:4:1: error: a second YAML document; hint: schema.yaml holds one document; remove this '---' and what follows it, or merge it into the first",
            ])
        #expect(!reader.isFaithful)
    }

    @Test func reportsEveryDuplicateKeyWithItsPathAndKeepsTheFirst() throws {
        let reader = YAMLReader(
            """
            a:
              - { k: 1, k: 2 }
            a: 3
            """, file: "f.yaml")
        #expect(
            reader.log.diagnostics.map(\.description) == [
                "f.yaml:2:13: error: duplicate key 'k' in a[0]; hint: 'k' is already defined at line 2; each key may appear once, so remove or rename one",
                "f.yaml:3:1: error: duplicate key 'a' in the top-level mapping; hint: 'a' is already defined at line 1; each key may appear once, so remove or rename one",
            ])
        #expect(reader.isFaithful)
        let first = try #require(reader.root?.mapping?.first?.value.sequence?.first?.mapping)
        #expect(first.map(\.value.scalar?.text) == ["1"])
    }

    @Test func aSyntaxErrorGivesLibyamlsProblemAtItsPlace() {
        let reader = YAMLReader("a: [1, 2\nb: 3\n", file: "f.yaml")
        #expect(!reader.isFaithful)
        #expect(reader.log.diagnostics.count == 1)
        #expect(reader.log.diagnostics.first?.message.hasPrefix("invalid YAML: did not find expected ',' or ']'") == true)
    }

    @Test func aDeeplyNestedDocumentStopsAtTheDepthLimitWithoutExhaustingTheStack() {
        let depth = 5_000
        let reader = YAMLReader(String(repeating: "[", count: depth) + String(repeating: "]", count: depth), file: "f.yaml")
        #expect(!reader.isFaithful)
        #expect(reader.log.diagnostics.map(\.message) == ["the YAML nests deeper than \(YAMLReader.maxDepth) levels"])
    }
}

extension YAMLReaderTests {
    @Test func aControlCharacterIsPlacedByCountingToItsByte() {
        let reader = YAMLReader("a: 1\nbé: x\u{1}y\n", file: "f.yaml")
        #expect(reader.log.diagnostics.map(\.location) == [SourceLocation(file: "f.yaml", line: 2, column: 6)])
        #expect(reader.log.diagnostics.first?.message == "invalid YAML: control characters are not allowed")
    }
}
