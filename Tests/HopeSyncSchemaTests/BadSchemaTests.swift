import Testing

@testable import HopeSyncSchema

@Suite struct BadSchemaTests {
    @Test(arguments: try BadSchema.all())
    func isRefusedWithExactlyTheExpectedDiagnostics(_ bad: BadSchema) throws {
        #expect(!bad.expected.isEmpty, "\(bad.fileName) has no '# expect:' line")
        do {
            _ = try SchemaParser.parse(bad.source, file: "schema.yaml")
            Issue.record("\(bad.fileName) parsed without an error")
        } catch {
            let actual = error.diagnostics.map(\.description)
            #expect(actual == bad.expected, "actual:\n\(actual.map { BadSchema.expectPrefix + $0 }.joined(separator: "\n"))")
        }
    }

    @Test func theCorpusIsLargeAndSomeFilesReportSeveralErrors() throws {
        let corpus = try BadSchema.all()
        #expect(corpus.count >= 35)
        #expect(corpus.filter { $0.expected.count >= 3 }.count >= 2)
        // Names follow NN_short_name.yaml with distinct numbers.
        let numbers = corpus.map { $0.fileName.prefix { $0 != "_" } }
        #expect(Set(numbers).count == corpus.count)
        #expect(numbers.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isNumber) })
    }
}
