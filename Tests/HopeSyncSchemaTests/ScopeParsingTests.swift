import Foundation
import Testing

@testable import HopeSyncSchema

/// `scope:` (docs/decisions/0048-sharing-by-scope.md): a table whose rows are scopes, a table
/// scoped by a column, and a table that follows another's scope through a reference.
@Suite struct ScopeParsingTests {
    static let shared = """
        tables:
          task_photos:
            scope: task_id
            columns:
              task_id: { type: uuid, references: tasks }
              caption: text?
          tasks:
            swift_name: TaskItem
            scope: list_id
            columns:
              title: text
              list_id: { type: uuid, nullable: true, references: task_lists }
          task_lists:
            scope: true
            columns:
              name: text
          notes:
            columns:
              body: text
        """

    @Test func aScopeAScopedTableAndOneThatFollowsItAreRead() throws {
        // task_photos is declared before the tables it reaches its scope through.
        let schema = try SchemaParser.parse(Self.shared).schema
        #expect(schema.table(named: "task_lists")?.sharing == .scope)
        #expect(schema.table(named: "tasks")?.sharing == .scoped(by: "list_id", scopeTable: "task_lists"))
        #expect(schema.table(named: "task_photos")?.sharing == .follows(through: "task_id", column: "list_id", scopeTable: "task_lists"))
        #expect(schema.table(named: "notes")?.sharing == nil)
        #expect(schema.scopeTables.map(\.name) == ["task_lists"])
        #expect(schema.tables.map(\.scopeTable) == ["task_lists", "task_lists", "task_lists", nil])
        #expect(schema.table(named: "task_lists")?.membershipTableName == "task_lists_members")
    }

    @Test func aFollowingTableGetsTheScopeColumnRightAfterTheColumnItFollows() throws {
        let parsed = try SchemaParser.parse(Self.shared)
        let photos = try #require(parsed.schema.table(named: "task_photos"))
        #expect(photos.columns.map(\.name) == ["task_id", "list_id", "caption"])
        let added = try #require(photos.column(named: "list_id"))
        #expect(added.type == .uuid && added.isNullable && added.references == "task_lists" && added.defaultValue == nil)
        // A diagnostic about the added column points at the `scope:` that made it.
        #expect(parsed.locations.location(table: "task_photos", column: "list_id").line == 3)
    }

    @Test func aChainOfFollowingTablesReachesTheScope() throws {
        let schema = try SchemaParser.parse(
            """
            tables:
              boards: { scope: true, columns: { name: text } }
              cards: { scope: board_id, columns: { board_id: { type: uuid, references: boards } } }
              comments: { scope: card_id, columns: { card_id: { type: uuid, references: cards } } }
              reactions: { scope: comment_id, columns: { comment_id: { type: uuid, references: comments } } }
            """
        ).schema
        #expect(schema.table(named: "reactions")?.sharing == .follows(through: "comment_id", column: "board_id", scopeTable: "boards"))
        #expect(schema.table(named: "comments")?.columns.map(\.name) == ["card_id", "board_id"])
    }

    @Test func sharingSurvivesTheSnapshot() throws {
        let schema = try SchemaParser.parse(Self.shared).schema
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(schema)
        #expect(try JSONDecoder().decode(Schema.self, from: encoded) == schema)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains(#""sharing":{"scope":true}"#))
        #expect(text.contains(#""sharing":{"of":"task_lists","scope":"list_id"}"#))
        #expect(text.contains(#""sharing":{"of":"task_lists","scope":"list_id","through":"task_id"}"#))
        // A snapshot written before sharing existed reads as unshared tables.
        let old = #"{"tables":[{"name":"a","conflict":"lww","merge":"column","exactOrdering":true,"columns":[],"indexes":[],"rules":[]}]}"#
        #expect(try JSONDecoder().decode(Schema.self, from: Data(old.utf8)).tables[0].sharing == nil)
    }

    @Test(arguments: [
        ("tables:\n  a: { scope: 3, columns: { x: int } }", "expected true or a column name for 'scope'"),
        ("tables:\n  a: { scope: nope, columns: { x: int } }", "table 'a' has no column 'nope' to name its rows' scope"),
        ("tables:\n  a: { scope: x, columns: { x: uuid } }", "column 'a.x' references no table, so it cannot name a scope"),
        (
            "tables:\n  a: { columns: { x: int } }\n  b: { scope: a_id, columns: { a_id: { type: uuid, references: a } } }",
            "column 'b.a_id' references 'a', which is not shared"
        ),
        (
            "tables:\n  a: { scope: b_id, columns: { b_id: { type: uuid, nullable: true, references: b } } }\n  b: { scope: a_id, columns: { a_id: { type: uuid, nullable: true, references: a } } }",
            "go round in a circle"
        ),
        (
            "tables:\n  l: { scope: true, columns: { x: int } }\n  t: { scope: l_id, columns: { l_id: { type: uuid, nullable: true, references: l } } }\n  p: { scope: t_id, columns: { t_id: { type: uuid, references: t }, l_id: uuid? } }",
            "table 'p' declares 'l_id' itself"
        ),
        (
            "tables:\n  l: { scope: true, columns: { x: int } }\n  l_members: { columns: { x: int } }",
            "table 'l_members' is declared, but hope-sync makes it"
        ),
    ])
    func aScopeThatLeadsNowhereIsRefused(yaml: String, message: String) {
        do {
            _ = try SchemaParser.parse(yaml)
            Issue.record("parsed: \(yaml)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func scopeFalseSharesNothing() throws {
        let schema = try SchemaParser.parse("tables:\n  a: { scope: false, columns: { x: int } }").schema
        #expect(schema.tables[0].sharing == nil)
    }

    @Test func sharingAShippedTableIsAChangeAndUnsharingItIsRefused() throws {
        let unshared = try SchemaParser.parse(
            "tables:\n  lists: { columns: { name: text } }\n  tasks: { swift_name: TaskItem, columns: { title: text } }"
        ).schema
        let shared = try SchemaParser.parse(
            "tables:\n  lists: { scope: true, columns: { name: text } }\n  tasks: { swift_name: TaskItem, scope: list_id, columns: { title: text, list_id: { type: uuid, nullable: true, references: lists } } }"
        )
        let changes = try SchemaDiff.changes(from: unshared, to: shared)
        // A table starting to be shared also gets updated_by (who made a row's last write).
        #expect(
            changes.map(\.recorded) == [
                "column lists.updated_by", "sharing lists", "column tasks.updated_by", "sharing tasks", "column tasks.list_id",
            ])
        #expect(changes.compactMap { SchemaChange(recorded: $0.recorded, in: shared.schema) } == changes)

        let moved = try SchemaParser.parse(
            "tables:\n  lists: { scope: true, columns: { name: text } }\n  tasks: { swift_name: TaskItem, columns: { title: text, list_id: { type: uuid, nullable: true, references: lists } } }"
        )
        #expect(throws: SchemaError.self) { try SchemaDiff.changes(from: shared.schema, to: moved) }
        do {
            _ = try SchemaDiff.changes(from: shared.schema, to: moved)
        } catch {
            #expect(error.description.contains("the 'scope' of 'tasks' cannot change once shared"))
        }
    }
}
