import Foundation
import Testing

@testable import HopeSyncGeneratorCore

/// The variables each template receives are declared once, in the context types (each
/// output's *Contexts.swift); Templates/README.md lists them for template authors. This fails
/// when the two disagree, and `RECORD_TEMPLATE_README=1 swift test --filter TemplateReferenceTests`
/// writes the README's generated section again (swift-format's approach to generated files).
@Suite struct TemplateReferenceTests {
    static let readme = packageRoot.appendingPathComponent("Templates/README.md")

    @Test func everyTemplateHasOneContext() {
        let names = TemplateReference.contexts.map { $0.template }
        #expect(names.sorted() == TemplateSet.builtInNames)
        #expect(Set(names).count == names.count)
    }

    @Test func theReadmeListsWhatEachContextDeclares() throws {
        var text = try String(contentsOf: Self.readme, encoding: .utf8)
        let begin = try #require(text.range(of: TemplateReference.begin), "Templates/README.md lost its generated section's first marker")
        let end = try #require(text.range(of: TemplateReference.end), "Templates/README.md lost its generated section's last marker")
        if ProcessInfo.processInfo.environment["RECORD_TEMPLATE_README"] == "1" {
            text.replaceSubrange(begin.lowerBound..<end.upperBound, with: TemplateReference.markdown)
            try Data(text.utf8).write(to: Self.readme)
            return
        }
        #expect(
            String(text[begin.lowerBound..<end.upperBound]) == TemplateReference.markdown,
            "Templates/README.md differs from the template contexts; run `RECORD_TEMPLATE_README=1 swift test --filter TemplateReferenceTests`"
        )
    }

    /// Every name a built-in template uses is one its context declares (or the engine's
    /// `@first`, `@last`, `@index`, `.`): the README then lists all a template author needs.
    @Test func theBuiltInTemplatesUseOnlyDeclaredNames() throws {
        for context in TemplateReference.contexts {
            let template = try Template(name: context.template, source: try TemplateSet.builtInSource(named: context.template))
            let unknown = Self.undeclared(in: template.nodes, scopes: [context.describedFields])
            #expect(unknown.isEmpty, "\(context.template) uses \(unknown), which its context does not declare")
        }
    }

    private static func undeclared(in nodes: [Template.Node], scopes: [[FieldDescription]]) -> [String] {
        func field(_ path: Template.Path) -> FieldDescription?? {
            guard let first = path.parts.first, !first.hasPrefix("@") else { return .some(nil) } // `.` or a position
            var found = scopes.reversed().lazy.compactMap { $0.first { $0.name == first } }.first
            for part in path.parts.dropFirst() { found = found?.fields.first { $0.name == part } }
            return found.map { .some($0) } ?? nil
        }
        return nodes.flatMap { node -> [String] in
            switch node {
            case .text, .partial:
                return [] // a partial is checked as a template of its own
            case .variable(let path, _):
                return field(path) == nil ? [path.text] : []
            case .section(let path, _, let children, _):
                guard let found = field(path) else { return [path.text] + undeclared(in: children, scopes: scopes) }
                return undeclared(in: children, scopes: scopes + [found?.fields ?? []])
            }
        }
    }
}
