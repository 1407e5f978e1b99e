import Foundation
import Testing

@testable import HopeSyncGeneratorCore

@Suite struct TemplateTests {
    func render(_ source: String, _ context: TemplateValue) throws -> String {
        try Template(name: "t", source: source).render(context)
    }

    @Test func insertsValuesAndDottedNames() throws {
        #expect(try render("a {{x}} b {{o.y}}", ["x": "1", "o": ["y": "2"]]) == "a 1 b 2")
    }

    @Test func repeatsSectionsOverListsWithPositions() throws {
        let source = "{{#items}}{{name}}{{^@last}}, {{/@last}}{{/items}}"
        #expect(try render(source, ["items": [["name": "a"], ["name": "b"], ["name": "c"]]]) == "a, b, c")
        #expect(try render("{{#items}}{{@index}}{{/items}}", ["items": ["x", "y"]]) == "01")
        #expect(try render("{{#items}}[{{.}}]{{/items}}", ["items": ["x", "y"]]) == "[x][y]")
    }

    @Test func showsSectionsByTruthAndInvertsThem() throws {
        let source = "{{#on}}yes{{/on}}{{^on}}no{{/on}}"
        #expect(try render(source, ["on": true]) == "yes")
        #expect(try render(source, ["on": false]) == "no")
        #expect(try render(source, ["on": []]) == "no")
        #expect(try render(source, [:]) == "no")
        #expect(try render(source, ["on": ""]) == "no")
    }

    @Test func dropsLinesHoldingOnlyABlockTag() throws {
        let source = """
            begin
              {{#items}}
            - {{.}}
              {{/items}}
            {{! a comment line }}
            end
            """
        #expect(try render(source, ["items": ["a", "b"]]) == "begin\n- a\n- b\nend")
    }

    @Test func refusesUnknownNamesWithTheirLine() {
        #expect(throws: TemplateError(template: "t", line: 2, message: "unknown name 'nme'")) {
            try render("ok\n{{nme}}", ["name": "x"])
        }
    }

    @Test func refusesUnbalancedSections() {
        #expect(throws: TemplateError(template: "t", line: 1, message: "section 'a' is never closed")) {
            try Template(name: "t", source: "{{#a}}x")
        }
        #expect(throws: TemplateError(template: "t", line: 1, message: "'{{/b}}' closes no open section")) {
            try Template(name: "t", source: "{{#a}}x{{/b}}")
        }
    }

    @Test func refusesAListWhereTextIsNeeded() {
        #expect(throws: TemplateError.self) { try render("{{items}}", ["items": ["a"]]) }
    }
}

/// Partials: `{{> name}}` renders another template of the set in place.
@Suite struct PartialTests {
    /// A folder of user templates, removed when the test ends.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hope-partials-\(UUID().uuidString)")

        func write(_ name: String, _ text: String) throws {
            let file = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    @Test func aPartialOfTheUsersOwnRendersInPlaceIndentedAsItsTag() throws {
        let folder = Folder()
        try folder.write(
            "supabase/access.sql.mustache", "begin\n  {{> supabase/mine.sql.mustache}}\nend {{> supabase/inline.sql.mustache}}!\n")
        try folder.write("supabase/mine.sql.mustache", "{{! a comment }}\ngrant {{table}};\n\n{{#table}}\nrevoke {{.}};\n{{/table}}\n")
        try folder.write("supabase/inline.sql.mustache", "{{table}}")
        let templates = try TemplateSet(directory: folder.url)
        #expect(
            try templates.render("supabase/access.sql.mustache", ["table": "notes"])
                == "begin\n  grant notes;\n\n  revoke notes;\nend notes!\n")
    }

    @Test func aBuiltInPartialFallsBackOrIsOverridden() throws {
        let folder = Folder()
        let builtIn = try TemplateSet(directory: folder.url)
        let context: TemplateValue = ["locksOwner": true]
        #expect(try builtIn.render("supabase/lock_owner.sql.mustache", context).hasPrefix("if not pg_catalog.pg_try_advisory_xact_lock("))
        try folder.write("supabase/lock_owner.sql.mustache", "{{#locksOwner}}\nperform lock();\n{{/locksOwner}}\n")
        try folder.write("supabase/access.sql.mustache", "  {{> supabase/lock_owner.sql.mustache}}\n")
        let overridden = try TemplateSet(directory: folder.url)
        #expect(try overridden.render("supabase/access.sql.mustache", context) == "  perform lock();\n")
    }

    @Test func aMissingOrSelfIncludingPartialFailsBeforeRendering() throws {
        let folder = Folder()
        try folder.write("supabase/access.sql.mustache", "x\n{{> supabase/nothing.sql.mustache}}\n")
        #expect(
            throws: TemplateError(
                template: "supabase/access.sql.mustache", line: 2, message: "no template 'supabase/nothing.sql.mustache' to include")
        ) { try TemplateSet(directory: folder.url) }
        try folder.write("supabase/access.sql.mustache", "{{> supabase/loop.sql.mustache}}\n")
        try folder.write("supabase/loop.sql.mustache", "{{#a}}\n{{> supabase/access.sql.mustache}}\n{{/a}}\n")
        #expect(
            throws: TemplateError(
                template: "supabase/loop.sql.mustache", line: 2, message: "'{{> supabase/access.sql.mustache}}' includes itself")
        ) { try TemplateSet(directory: folder.url) }
    }
}
