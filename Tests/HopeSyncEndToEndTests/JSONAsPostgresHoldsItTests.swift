import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncPostgresClient
import HopeSyncTestSupport
import Testing

/// A json value has one text everywhere: a device saves the text PostgreSQL's jsonb prints
/// (numbers as numeric prints them), canonicalized as every transport canonicalizes what the
/// server sends; and what jsonb refuses, the save refuses.
@Suite struct JSONAsPostgresHoldsItTests {
    let user = UUID()

    @Test(arguments: [
        ("1E+2", "100"), ("1.50", "1.50"), ("1.5e1", "15"), ("1.50e-1", "0.150"), ("-0", "0"), ("-0.0", "0.0"), ("1e-7", "0.0000001"),
        ("0e10", "0"), ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("1e400", "1" + String(repeating: "0", count: 400)), ("1E-400", "0." + String(repeating: "0", count: 399) + "1"),
        (#"{"e":1E+2,"neg":-0,"small":1e-7}"#, #"{"e":100,"neg":0,"small":0.0000001}"#),
    ])
    func theDeviceSavesWhatPostgreSQLPrints(text: String, printed: String) async throws {
        let server = try TestServer()
        let device = try Device("a", user: user, transport: server.transport)
        let postgres = try server.database.connect().execute("select $1::jsonb::text", [text]).scalar
        #expect(try JSONValue.canonicalText(of: try #require(postgres)) == printed)
        #expect(try await device.store.write { try $0.save(Activity(name: "JSON", metadata: text)) }.metadata == printed)
    }

    @Test(arguments: [
        (#"{"k":"\u0000"}"#, "22P05", "activities.metadata holds a NUL character, which PostgreSQL text cannot store"),
        (#"["\ud800"]"#, "22P02", "expected a low surrogate"), (#"["\udc00"]"#, "22P02", "a low surrogate with no high surrogate"),
        (#"["\ud800\u0041"]"#, "22P02", "expected a low surrogate"), ("1e131072", "22003", "beyond numeric's range"),
        ("1E-16384", "22003", "beyond numeric's range"), ("1.0e-16383", "22003", "beyond numeric's range"),
        ("0e1073741823", "22003", "beyond numeric's range"), ("-1e2147483648", "22003", "beyond numeric's range"),
    ])
    func whatPostgreSQLRefusesTheSaveRefuses(text: String, sqlState: String, message: String) async throws {
        let server = try TestServer()
        let device = try Device("a", user: user, transport: server.transport)
        #expect { try server.database.connect().execute("select $1::jsonb::text", [text]) } throws: {
            ($0 as? PostgresError)?.sqlState == sqlState
        }
        await #expect {
            try await device.store.write { try $0.save(Activity(name: "JSON", metadata: text)) }
        } throws: {
            ($0 as? SyncError)?.code == .invalidRequest && ($0 as? SyncError)?.message.contains(message) == true
        }
        #expect(try device.dirtyCount() == 0)
    }

    /// Seeded (`SYNC_RANDOM_SEED`, default 1): a few thousand awkward numbers and small
    /// documents, each either refused by both PostgreSQL and the save, or saved as the canonical
    /// text of what PostgreSQL prints.
    @Test func randomAwkwardJSONHasPostgreSQLsText() async throws {
        let seed = ProcessInfo.processInfo.environment["SYNC_RANDOM_SEED"].flatMap(UInt64.init) ?? 1
        var awkward = AwkwardJSON(random: SeededGenerator(seed: seed))
        let server = try TestServer()
        let connection = try server.database.connect()
        let device = try Device("a", user: user, transport: server.transport)
        var problems: [String] = []
        var (kept, refused) = (0, 0)
        for index in 0..<3_000 {
            let text = index % 2 == 0 ? awkward.number() : awkward.document()
            let expected = try Self.postgresText(of: text, connection).map { try JSONValue.canonicalText(of: $0) }
            let saved = try await Self.savedText(of: text, device)
            if saved != expected {
                problems.append(
                    "\(text.prefix(300)): saved \(saved?.prefix(300) ?? "nothing"), PostgreSQL \(expected?.prefix(300) ?? "refused it")")
            }
            if saved == nil { refused += 1 } else { kept += 1 }
        }
        #expect(problems.isEmpty, "seed \(seed) (replay: SYNC_RANDOM_SEED=\(seed)):\n\(problems.prefix(5).joined(separator: "\n"))")
        // Both outcomes happen often enough to mean something.
        #expect(kept > 2_000 && refused > 200, "seed \(seed): \(kept) kept, \(refused) refused")
    }

    /// What PostgreSQL prints for `text` as jsonb; nil when it refuses it as jsonb.
    static func postgresText(of text: String, _ connection: Connection) throws -> String? {
        do {
            return try connection.execute("select $1::jsonb::text", [text]).scalar
        } catch {
            guard ["22P02", "22P05", "22003"].contains(error.sqlState ?? "") else { throw error }
            return nil
        }
    }

    /// The text a save of `text` keeps; nil when the save refuses it.
    static func savedText(of text: String, _ device: Device) async throws -> String? {
        do {
            return try await device.store.write { try $0.save(Activity(name: "JSON", metadata: text)) }.metadata
        } catch {
            guard (error as? SyncError)?.code == .invalidRequest else { throw error }
            return nil
        }
    }

    @Test func aJSONValueHasOneTextOnTheWriterTheServerAndAnotherDevice() async throws {
        let server = try TestServer()
        let (a, b) = (try Device("a", user: user, transport: server.transport), try Device("b", user: user, transport: server.transport))
        let canonical = #"{"e":100,"neg":0,"small":0.0000001}"#
        let saved = try await a.store.write { try $0.save(Activity(name: "Numbers", metadata: #"{"e":1E+2,"neg":-0,"small":1e-7}"#)) }
        #expect(saved.metadata == canonical)
        #expect(try await a.store.read { try $0.fetchOne(Activity.self, id: saved.id) }?.metadata == canonical)
        try await a.sync()
        try await b.sync()
        let id = saved.id.uuidString.lowercased()
        let stored = try server.database.connect().execute("select metadata::text from public.activities where id = $1", [id]).scalar
        #expect(stored == #"{"e": 100, "neg": 0, "small": 0.0000001}"#)
        #expect(try await server.rows(of: Activity.table, for: user)[id]?["metadata"] == .text(canonical))
        #expect(try await b.store.read { try $0.fetchOne(Activity.self, id: saved.id) }?.metadata == canonical)
        // The writer pulled back the text it holds: nothing changed, nothing left to push.
        #expect(try await a.sync().pushed == 0)
        #expect(try a.dirtyCount() == 0)
    }

    @Test func aNULInJSONIsRefusedAtSaveAndNothingIsQueued() async throws {
        let server = try TestServer()
        let a = try Device("a", user: user, transport: server.transport)
        await #expect {
            try await a.store.write { try $0.save(Activity(name: "NUL", metadata: #"{"k":"\u0000"}"#)) }
        } throws: {
            ($0 as? SyncError)?.message == "activities.metadata holds a NUL character, which PostgreSQL text cannot store"
        }
        #expect(try a.dirtyCount() == 0)
        try await a.sync()
        #expect(try a.store.rejectedMutations().isEmpty)
        #expect(try server.count(of: "activities") == 0)
    }
}

/// JSON meant to find where a device and PostgreSQL disagree: numbers in every form JSON allows
/// and at numeric's limits, a few forms it does not, strings with every kind of escape (NUL and
/// lone surrogates too), and small documents of them with odd spacing.
struct AwkwardJSON {
    var random: SeededGenerator

    mutating func number() -> String {
        if random.below(20) == 0 {
            return ["01", "1.", ".5", "+1", "1e", "-", "1.e3", "0x10", "NaN", "Infinity", "-01.0", "1e+", "1E--2"][random.below(13)]
        }
        var text = random.below(3) == 0 ? "-" : ""
        switch random.below(200) {
        case 0..<60: text += "0"
        case 60..<140: text += digits(1 + random.below(3))
        case 140..<199: text += digits(10 + random.below(40))
        default: text += digits(131_071 + random.below(3)) // numeric's widest, and one past it
        }
        if random.below(2) == 0 {
            switch random.below(100) {
            case 0: text += "." + digits(16_381 + random.below(4), zeros: true) // numeric's finest scale, and past it
            case 1..<30: text += "." + String(repeating: "0", count: 1 + random.below(4))
            default: text += "." + digits(1 + random.below(6), zeros: true)
            }
        }
        guard random.below(2) == 0 else { return text }
        text += ["e", "E"][random.below(2)] + ["", "+", "-"][random.below(3)] + ["", "0", "0000000000000"][random.below(3)]
        switch random.below(100) {
        case 0..<60: text += String(random.below(21))
        case 60..<75: text += String(300 + random.below(700))
        case 75..<85: text += String(16_380 + random.below(8))
        case 85..<90: text += String(131_069 + random.below(5))
        case 90..<95: text += String(1_073_741_821 + random.below(4))
        default: text += ["2147483648", "99999999999999999999"][random.below(2)]
        }
        return text
    }

    mutating func document(depth: Int = 0) -> String {
        let value: String
        switch random.below(depth > 2 ? 3 : 5) {
        case 0: value = number()
        case 1: value = string()
        case 2: value = ["true", "false", "null"][random.below(3)]
        case 3:
            value = "[" + (0..<random.below(4)).map { _ in document(depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            value =
                "{"
                + (0..<random.below(4)).map { _ in space() + string() + space() + ":" + document(depth: depth + 1) }.joined(separator: ",")
                + "}"
        }
        return space() + value + space()
    }

    /// Mostly strings both sides take; now and then one jsonb refuses or that is not JSON.
    mutating func string() -> String {
        let pieces = [
            "a", "key", "é", "😀", "\u{7F}", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\uD834\\uDD1E", "\\u0001", "\\/", "\\\\", "\\\"",
            "\\uFFFF", "\\u001f",
        ]
        let refused = ["\\u0000", "\\ud800", "\\udc00", "\\ud800\\u0041", "\\'", "\t", "\\x41"]
        let parts = (0..<random.below(4)).map { _ in
            random.below(30) == 0 ? refused[random.below(refused.count)] : pieces[random.below(pieces.count)]
        }
        return "\"" + parts.joined() + "\""
    }

    private mutating func space() -> String {
        random.below(4) == 0 ? [" ", "\n", "\t", "\r\n", "  "][random.below(5)] : ""
    }

    /// `count` digits, the first not zero unless `zeros` allows it.
    private mutating func digits(_ count: Int, zeros: Bool = false) -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices {
            bytes[index] = UInt8(ascii: "0") + UInt8(index == 0 && !zeros ? 1 + random.below(9) : random.below(10))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
