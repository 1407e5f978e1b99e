import Testing

@testable import HopeSyncSchema

@Suite struct NameRulesTests {
    @Test func plainIdentifiersUpTo63BytesPass() {
        #expect(Identifier.problem(with: "a", as: .table) == nil)
        #expect(Identifier.problem(with: "started_ms2", as: .column) == nil)
        #expect(Identifier.problem(with: String(repeating: "a", count: 63), as: .column) == nil)
        #expect(
            Identifier.problem(with: String(repeating: "a", count: 64), as: .column)?.message
                == "column name '\(String(repeating: "a", count: 40))...' is 64 bytes long")
    }

    @Test func keywordsOfEitherDatabaseAreRefusedForEveryKind() {
        for word in [
            "select", "from", "where", "order", "group", "user", "table", "default", "check", "limit",
            "offset", "all", "and", "or", "not", "null", "true", "false", "primary", "references",
            "index", "key", "values", "analyse", "current_user", "autoincrement", "pragma",
        ] {
            for kind in [NameKind.table, .column, .index] {
                #expect(Identifier.problem(with: word, as: kind)?.message == "\(kind) name '\(word)' is an SQL keyword")
            }
        }
    }

    @Test func nothingButLowercaseLettersDigitsAndUnderscoresIsPlain() {
        for name in ["Name", "na-me", "na me", "naïve", "1st", "", "a\"b", "a;b", "a'b", "a\u{0}b", "名前"] {
            #expect(!Identifier.isPlain(name), "\(name)")
        }
    }

    @Test func reservedNamesAreRefusedOnlyForTheirKind() {
        for name in ReservedColumn.names {
            #expect(Identifier.problem(with: name, as: .column)?.message == "column name '\(name)' is reserved")
        }
        #expect(Identifier.problem(with: "version", as: .table) == nil)
        #expect(Identifier.problem(with: "authors", as: .table)?.message == "table name 'authors' starts with 'auth'")
        #expect(Identifier.problem(with: "authors", as: .column) == nil)
        #expect(Identifier.problem(with: "sqlite_stat", as: .index)?.message == "index name 'sqlite_stat' starts with 'sqlite_'")
        #expect(Identifier.problem(with: "sync_idx", as: .index) == nil)
    }

    @Test func suggestionsPickTheClosestNameWithinReach() {
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("same", "same") == 0)
        #expect(Suggestion.closest(to: "nulable", among: SchemaReader.columnKeys) == "nullable")
        #expect(Suggestion.closest(to: "activity", among: ["sessions", "activities"]) == "activities")
        #expect(Suggestion.closest(to: "colour", among: ["type", "default"]) == nil)
    }

    @Test func swiftNamesAreUpperCamelCase() {
        #expect(SwiftName.isTypeName("Activity"))
        #expect(SwiftName.isTypeName("TaskList2"))
        for name in ["activity", "Task_List", "Task List", "Ärger", ""] {
            #expect(!SwiftName.isTypeName(name), "\(name)")
        }
        #expect(SwiftName.suggestion(for: "task_list") == "TaskList")
    }
}
