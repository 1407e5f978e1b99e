/// Templates/README.md's reference section, written from the context types: the variables
/// each template receives are declared once, in Swift, and the README is checked against them
/// (`TemplateReferenceTests`).
enum TemplateReference {
    /// Every template's context, in the order of the template names.
    static var contexts: [any TemplateContext.Type] {
        [
            RustTablesContext.self, SQLiteMigrationContext.self,
            AccessContext.self, AddColumnContext.self, BucketContext.self, BucketTestsContext.self, ColumnContext.self,
            CreateTableContext.self, IndexContext.self,
            SupabaseMigrationContext.self, MembershipContext.self, PullContext.self, SharedPullContext.self, WritersContext.self,
            SharingContext.self,
            SchemaContext.self, ScopeTestsContext.self, SequenceContext.self, TableContext.self,
            TableTestsContext.self,
            TestsContext.self, TriggersContext.self,
            JSONDepthGuardPartial.self, LaterStartPartial.self, LockOwnerPartial.self, ColumnStampsPartial.self, PokeTriggersPartial.self,
            RenamedColumnsPartial.self,
            RenameColumnContext.self, RetireColumnContext.self, DeprecateColumnContext.self, RenameTableContext.self, OldNamesContext.self,
            BackfillsContext.self,
            LockStreamPartial.self, SharingTriggersPartial.self,
            PokesPartial.self,
            SwiftRecordContext.self, SwiftSchemaContext.self,
        ]
    }

    static let begin = "<!-- BEGIN GENERATED: the variables of each template, from the context types in Sources/HopeSyncGeneratorCore -->"
    static let end = "<!-- END GENERATED -->"

    /// The generated section, markers included.
    static var markdown: String {
        var lines = [begin, ""]
        for context in contexts.sorted(by: { $0.template < $1.template }) {
            lines.append("### `\(context.template)`")
            lines.append("")
            lines.append(context.summary.prefix(1).uppercased() + context.summary.dropFirst() + ".")
            lines.append("")
            let fields = context.describedFields
            if let includer = context.partialOf {
                lines.append(
                    "A partial of `\(includer)` (`{{> \(context.template)}}`): it sees the variables that template sees where it includes it."
                )
            } else if fields.isEmpty {
                lines.append("No variables.")
            } else {
                lines += describe(fields, depth: 0)
            }
            lines.append("")
        }
        lines.append(end)
        return lines.joined(separator: "\n")
    }

    private static func describe(_ fields: [FieldDescription], depth: Int) -> [String] {
        fields.flatMap { field in
            let indent = String(repeating: "  ", count: depth)
            return ["\(indent)- `\(field.name)` (\(field.kind)): \(field.meaning)"] + describe(field.fields, depth: depth + 1)
        }
    }
}
