import Foundation
import HopeSchema
import HopeSyncReferenceRecords
import HopeSyncTestSupport
import HopeSyncUpgradeSchemaV1
import HopeSyncUpgradeSchemaV2
import Testing

@testable import HopeSync

/// Generated rows code their column values themselves (`columnValues()`, `init(columnValues:)`,
/// over ``SyncColumnValue``): for every generated row type (the project's, the upgrade tests'
/// and every reference schema's), random rows give the values and rows the Codable path gives
/// (``RecordEncoder``, ``RecordDecoder``), and a value of the wrong kind in any column gives
/// the same row or the same error.
@Suite struct ColumnCodingTests {
    static let types: [any SyncRecord.Type] = projectTypes + upgradeTypes + referenceTypes

    static let projectTypes: [any SyncRecord.Type] = [
        HopeSchema.Activity.self, HopeSchema.Session.self, HopeSchema.TaskItem.self, HopeSchema.TaskList.self, HopeSchema.TaskPhoto.self,
    ]

    static let upgradeTypes: [any SyncRecord.Type] = [
        HopeSyncUpgradeSchemaV1.Habit.self, HopeSyncUpgradeSchemaV1.Note.self, HopeSyncUpgradeSchemaV2.Habit.self,
        HopeSyncUpgradeSchemaV2.Note.self,
    ]

    static let referenceTypes: [any SyncRecord.Type] = [
        HopeSyncReferenceRecords.Thing.self, HopeSyncReferenceRecords.Probe.self, HopeSyncReferenceRecords.Selve.self,
        HopeSyncReferenceRecords.LocalMigration.self,
        HopeSyncReferenceRecords.OpenRowRule.self, HopeSyncReferenceRecords.Table.self, HopeSyncReferenceRecords.Migration.self,
        HopeSyncReferenceRecords.Tag.self,
        HopeSyncReferenceRecords.Event.self, HopeSyncReferenceRecords.Note.self, HopeSyncReferenceRecords.Session.self,
        HopeSyncReferenceRecords.TaskList.self,
        HopeSyncReferenceRecords.TaskItem.self,
    ]

    /// Values of every kind, each put in every column in turn.
    static let wrongValues: [SyncValue] = [
        .null, .int(0), .int(7), .int(-1), .double(2.5), .double(-0.0), .bool(true), .bool(false), .text(""), .text("x"), .text("small"),
        .text("x-large"), .text("$$"), .text("in progress"), .text("0F8FAD5B-D9CB-469F-A165-70867728950E"),
        .text("0f8fad5b-d9cb-469f-a165-70867728950e"), .text("0f8fad5b-d9cb-469f-a165-70867728950"),
        .text("2026-10-18 15:00:06.482+02"), .text("2026-10-18T13:00:27"), .text(String(repeating: "ab", count: 32) + ".jpg"),
        .text(String(repeating: "AB", count: 32)), .bytes(Data()), .bytes(Data([0, 0xFF])),
    ]

    @Test(arguments: 0..<types.count)
    func directCodingIsTheCodablePath(_ index: Int) throws {
        func check<Record: SyncRecord>(_ type: Record.Type) throws {
            var random = SeededGenerator(seed: 23_000 + UInt64(index))
            let names = Record.table.columnNames
            for row in 0..<100 {
                let values = Self.randomValues(Record.table, &random)
                let direct = try Record(columnValues: values)
                let codable = try RecordDecoder().decode(Record.self, columns: names, values: values)
                #expect(direct == codable, "\(Record.self) row \(row)")
                #expect(try direct.columnValues() == values, "\(Record.self) row \(row): the round trip")
                #expect(try RecordEncoder().encode(direct, columns: names) == values, "\(Record.self) row \(row)")
                guard row < 20 else { continue }
                for column in names.indices {
                    for wrong in Self.wrongValues {
                        var changed = values
                        changed[column] = wrong
                        let directly = Self.outcome { try Record(columnValues: changed) }
                        let throughCodable = Self.outcome { try RecordDecoder().decode(Record.self, columns: names, values: changed) }
                        #expect(directly == throughCodable, "\(Record.self).\(names[column]) holding \(wrong)")
                    }
                }
            }
            #expect(throws: DecodingError.self) { try Record(columnValues: Array(Self.randomValues(Record.table, &random).dropLast())) }
        }
        try check(Self.types[index])
    }

    /// The reference schemas' row types are all here: one per generated file (GeneratedSchema aside).
    /// shared_scope's types take other references' names, so HopeSyncReferenceRecords leaves it out.
    @Test func everyReferenceRowTypeIsChecked() throws {
        let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HopeSyncGeneratorTests/References")
        var files = 0
        for schema in try FileManager.default.contentsOfDirectory(atPath: references.path) where schema != "shared_scope" {
            let swift = references.appendingPathComponent(schema).appendingPathComponent("expected/swift")
            files += try FileManager.default.contentsOfDirectory(atPath: swift.path).filter { $0 != "GeneratedSchema.swift" }.count
        }
        #expect(files == Self.referenceTypes.count)
    }

    /// A row type whose table is not the store's (here an older build's, without `habits.emoji`)
    /// goes by column name through Codable, as before.
    @Test func aRowTypeOfAnotherBuildOfTheTableGoesByName() async throws {
        let store = try SyncStore(
            path: TestDevice.temporaryPath("other-build"), schema: MixedBuilds.v2, userID: UUID(), deviceID: "device-a")
        let old = try await store.write { try $0.save(HopeSyncUpgradeSchemaV1.Habit(name: "Run", streak: 3)) }
        #expect(old.name == "Run" && old.streak == 3)
        let new = try #require(try await store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: old.id) })
        #expect(new.name == "Run" && new.streak == 3 && new.emoji == nil)
        let edited = try await store.write { try $0.save(HopeSyncUpgradeSchemaV2.Habit(id: old.id, name: "Run", streak: 4, emoji: "🏃")) }
        #expect(try await store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV1.Habit.self, id: old.id) }?.streak == edited.streak)
    }

    /// A row, or the error it threw (for a DecodingError: its kind, type, column and words).
    enum Outcome<Record: SyncRecord>: Equatable {
        case row(Record)
        case failure(String)
    }

    static func outcome<Record: SyncRecord>(_ decode: () throws -> Record) -> Outcome<Record> {
        do {
            return .row(try decode())
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(let type, let context): return .failure("type mismatch \(type) \(describe(context))")
            case .valueNotFound(let type, let context): return .failure("value not found \(type) \(describe(context))")
            case .keyNotFound(let key, let context): return .failure("key not found \(key.stringValue) \(describe(context))")
            case .dataCorrupted(let context): return .failure("data corrupted \(describe(context))")
            @unknown default: return .failure("\(error)")
            }
        } catch {
            return .failure("\(type(of: error)): \(error)")
        }
    }

    static func describe(_ context: DecodingError.Context) -> String {
        "at \(context.codingPath.map(\.stringValue)): \(context.debugDescription)"
    }

    /// Values a row of `table` can hold, each column's at random: nulls where the row's property
    /// is optional, canonical text where the store keeps it so (uuids, timestamps).
    static func randomValues(_ table: TableSchema, _ random: inout SeededGenerator) -> [SyncValue] {
        table.columns.map { column in
            guard column.role != .columnStamps else { return .null }
            let optional = column.isNullable || [.owner, .version, .serverSeq].contains(column.role)
            if optional, random.below(4) == 0 { return .null }
            switch column.type {
            case .uuid: return .text(random.uuid().uuidString.lowercased())
            case .int: return .int(random.below(3) == 0 ? Int64(random.below(100)) : Int64(bitPattern: random.next()))
            case .double:
                let double = Double(bitPattern: random.next())
                return .double(double.isFinite ? double : Double(random.below(1000)) / 8)
            case .bool: return .bool(random.below(2) == 0)
            case .text, .json: return .text(text(&random))
            case .timestamp where column.role == .version: return .text(text(&random))
            case .timestamp:
                let span = SyncTimestamp.latest.microsecondsSinceEpoch - SyncTimestamp.earliest.microsecondsSinceEpoch
                let microseconds = SyncTimestamp.earliest.microsecondsSinceEpoch + Int64(random.next() % UInt64(span))
                return .text(SyncTimestamp(microsecondsSinceEpoch: microseconds)!.text)
            case .bytes: return .bytes(Data((0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
            case .enumeration(let values): return .text(values[random.below(values.count)])
            case .file:
                let hash = (0..<64).map { _ in "0123456789abcdef".randomElement(using: &random)! }
                return .text(String(hash) + (random.below(2) == 0 ? "" : ".jpg"))
            }
        }
    }

    static func text(_ random: inout SeededGenerator) -> String {
        let pieces = ["", "a", "Zürich", "☕", "\"", "\\", "\n", "{\"a\":1}", "0f8fad5b-d9cb-469f-a165-70867728950e", " "]
        return (0..<random.below(5)).map { _ in pieces[random.below(pieces.count)] }.joined()
    }
}
