import Foundation
import HopeSyncGenerator
import Testing

@Suite struct CommandTests {
    @Test func helpAndBadUsage() throws {
        let project = try ScratchProject()
        let help = project.run("--help")
        #expect(help.status == 0)
        #expect(help.out.contains("USAGE: generate"))
        let unknown = project.run("--chekc")
        #expect(unknown.status == 2)
        #expect(unknown.error.hasPrefix("error: unknown argument '--chekc'"))
        #expect(project.run("--output").status == 2)
    }

    /// The build plugin's mode: a stamp file when current; when stale, no stamp and an error
    /// that names both fixes.
    @Test func checkWithStampWritesTheStampOnlyWhenCurrent() throws {
        let project = try ScratchProject()
        try project.writeSchema(ColumnAddTests.before)
        #expect(project.run().status == 0)
        let stamp = project.root.appendingPathComponent("stamp.swift")
        #expect(project.run("--check", "--stamp", stamp.path).status == 0)
        #expect(try String(contentsOf: stamp, encoding: .utf8).hasPrefix("// hope-sync: Generated/ was current"))
        try FileManager.default.removeItem(at: stamp)
        try project.writeSchema(ColumnAddTests.after)
        let stale = project.run("--check", "--stamp", stamp.path)
        #expect(stale.status == 1)
        #expect(!FileManager.default.fileExists(atPath: stamp.path))
        #expect(stale.error.contains("error: Generated/ is stale for"))
        #expect(stale.error.contains("swift package --allow-writing-to-package-directory generate-sync"))
        #expect(project.run("--stamp", stamp.path).status == 2)
    }

    @Test func aMissingSchemaFileIsAUsageError() throws {
        let project = try ScratchProject()
        let result = project.run()
        #expect(result.status == 2)
        #expect(result.error.contains("cannot read"))
    }

    /// Every bad schema of the parser's corpus fails with 65 and leaves Generated/ as it was.
    @Test func badSchemasLeaveGeneratedUntouched() throws {
        let project = try ScratchProject()
        try project.writeSchema(ColumnAddTests.before)
        #expect(project.run().status == 0)
        let before = try project.generatedTree()
        let corpus = packageRoot.appendingPathComponent("Tests/HopeSyncSchemaTests/BadSchemas")
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(files.count >= 30)
        for file in files {
            try project.writeSchema(String(contentsOf: corpus.appendingPathComponent(file), encoding: .utf8))
            for result in [project.run(), project.run("--check")] {
                #expect(result.status == 65, "\(file)")
                #expect(result.error.contains(": error: "), "\(file)")
            }
            #expect(try project.generatedTree() == before, "\(file) changed Generated/")
        }
    }

    @Test func userTemplatesOverrideTheBuiltInOnes() throws {
        let project = try ScratchProject()
        try project.writeSchema(ColumnAddTests.before)
        let templates = project.root.appendingPathComponent("Templates")
        #expect(project.run("--init-templates", templates.path).status == 0)
        let rust = templates.appendingPathComponent("rust/tables.rs.mustache")
        try Data(("// Our house style.\n" + String(contentsOf: rust, encoding: .utf8)).utf8).write(to: rust)
        #expect(project.run().status == 0)
        let tree = try project.generatedTree()
        #expect(tree["rust/tables.rs"]!.hasPrefix("// Our house style.\n"))
        #expect(!tree["swift/Session.swift"]!.contains("house style"))
    }

    @Test func aBrokenUserTemplateIsReportedByNameAndLineAndNothingIsWritten() throws {
        let project = try ScratchProject()
        try project.writeSchema(ColumnAddTests.before)
        #expect(project.run().status == 0)
        let before = try project.generatedTree()
        let templates = project.root.appendingPathComponent("Templates")
        #expect(project.run("--init-templates", templates.path).status == 0)
        let rust = templates.appendingPathComponent("rust/tables.rs.mustache")
        try Data(("// {{tabel}}\n" + String(contentsOf: rust, encoding: .utf8)).utf8).write(to: rust)
        try project.writeSchema(ColumnAddTests.after)

        let result = project.run()
        #expect(result.status == 2)
        #expect(result.error == "rust/tables.rs.mustache:1: error: unknown name 'tabel'")
        #expect(try project.generatedTree() == before)
    }

    /// A folder that cannot be written is an error the user fixes (exit 2, saying where and
    /// why), not "stale" (exit 1), which CI reads as "run generate".
    @Test func templatesThatCannotBeWrittenAreAnErrorNotStale() throws {
        let project = try ScratchProject()
        let blocked = project.root.appendingPathComponent("Templates")
        try Data("a file, not a folder\n".utf8).write(to: blocked)
        let result = project.run("--init-templates", blocked.path)
        #expect(result.status == GenerateCommand.ExitCode.usage)
        #expect(result.status == 2)
        #expect(result.error.hasPrefix("error: cannot write the templates into \(blocked.path): "))
        #expect(result.out.isEmpty)
    }
}
