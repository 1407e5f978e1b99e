import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// `unique: true`: per owner on the server, as written on the device; a unique index the
/// server got across all owners is replaced; one added to a shipped table is refused, since
/// devices may already hold duplicates.
@Suite struct UniqueIndexGeneratorTests {
    static let unique = """
        tables:
          tags:
            columns:
              name: text
            indexes:
              - { columns: [name], unique: true, name: tags_name_key }
        """

    @Test func theServerIndexIsPerOwnerAndTheDevicesAsWritten() throws {
        let output = try generate(Self.unique)
        let server = try #require(output.tree["supabase/migrations/20261130090000_0001_initial.sql"])
        #expect(server.contains("\ncreate unique index if not exists tags_name_key on public.tags (user_id, name);\n"))
        #expect(
            output.tree["supabase/schema.sql"]!.contains(
                """
                drop index if exists public.tags_name_key;
                create unique index if not exists tags_name_key on public.tags (user_id, name);
                """))
        #expect(output.tree["sqlite/0001_initial.sql"]!.contains("\nCREATE UNIQUE INDEX tags_name_key ON tags (name);\n"))
        #expect(output.snapshot.perOwnerIndexes == ["tags.tags_name_key"])
        // A schema without unique indexes records nothing, so its snapshot is as before.
        let plain = try generate("tables:\n  tags:\n    columns:\n      name: text\n    indexes:\n      - columns: [name]\n")
        #expect(plain.snapshot.perOwnerIndexes == nil)
        #expect(!plain.tree[Snapshot.fileName]!.contains("perOwnerIndexes"))
    }

    @Test func aSnapshotFromBeforePerOwnerIndexesGetsAMigrationReplacingThemOnTheServer() throws {
        var shipped = try generate(Self.unique).tree
        var snapshot = try Snapshot.decode(shipped[Snapshot.fileName]!)
        snapshot.perOwnerIndexes = nil // as written by a hope-sync whose unique indexes were global
        shipped[Snapshot.fileName] = try snapshot.encoded()

        let upgrade = try generate(Self.unique, existing: shipped)
        let migration = try #require(upgrade.newMigration)
        #expect(migration.fileStem == "0002_tags_update_unique_per_owner")
        #expect(migration.changes == [.replaceServerIndex(migration.schema.tables[0].indexes[0], on: migration.schema.tables[0])])
        let local = try #require(upgrade.tree["sqlite/0002_tags_update_unique_per_owner.sql"])
        #expect(!local.contains("INDEX"), "a device's unique index is per owner already")
        let server = try #require(upgrade.tree["supabase/migrations/20261130090001_0002_tags_update_unique_per_owner.sql"])
        #expect(
            server.hasSuffix(
                """

                drop index if exists public.tags_name_key;
                create unique index if not exists tags_name_key on public.tags (user_id, name);

                """))
        #expect(upgrade.snapshot.perOwnerIndexes == ["tags.tags_name_key"])
        #expect(upgrade.snapshot.migrations.last?.changes == ["index tags.tags_name_key"])
        #expect(try generate(Self.unique, existing: upgrade.tree).newMigration == nil, "replaced once")
    }

    @Test func aUniqueIndexAddedToAShippedTableIsRefusedWithTheReason() throws {
        let project = try ScratchProject()
        let base = "tables:\n  tags:\n    columns:\n      name: text\n"
        try project.writeSchema(base)
        #expect(project.run().status == 0)
        let before = try project.generatedTree()
        try project.writeSchema(
            base + "      color: { type: text, default: red }\n    indexes:\n      - { columns: [name, color], unique: true }\n")
        let result = project.run()
        #expect(result.status == GenerateCommand.ExitCode.invalidSchema)
        #expect(
            result.error
                == "\(project.schemaPath):2:3: error: unique index 'tags_name_color_idx' cannot be added to shipped table 'tags': devices may already hold rows that share its values, and a device whose local CREATE UNIQUE INDEX fails cannot open its database; hint: add the index without 'unique: true', or make it unique in a new table, or over a nullable column without a default added in the same change (every existing row holds NULL there)"
        )
        #expect(try project.generatedTree() == before)
    }

    @Test func aUniqueIndexOverANewNullableColumnIsAddedSinceEveryOldRowHoldsNull() throws {
        let base = "tables:\n  tags:\n    columns:\n      name: text\n"
        let shipped = try generate(base).tree
        let output = try generate(
            base + "      slug: text?\n    indexes:\n      - { columns: [name, slug], unique: true }\n", existing: shipped)
        #expect(output.newMigration?.fileStem == "0002_tags_add_slug_index_name_slug")
        #expect(
            output.tree["sqlite/0002_tags_add_slug_index_name_slug.sql"]!.contains(
                "CREATE UNIQUE INDEX tags_name_slug_idx ON tags (name, slug);"))
        #expect(
            output.tree["supabase/migrations/20261130090001_0002_tags_add_slug_index_name_slug.sql"]!
                .contains("create unique index if not exists tags_name_slug_idx on public.tags (user_id, name, slug);"))
    }
}
