import Foundation
import HopeSync
import HopeSyncPostgres
import HopeSyncPostgresClient

/// One connection that sends what the product's PostgresTransport sends (the same
/// PostgresStatement, in a transaction that first sets PostgREST's role and claims), held to one
/// server process so that the server's CPU time for a client's requests can be read.
struct ClientConnection {
    let connection: Connection
    let backend: Int32
    /// Whether requests go as prepared statements, as PostgREST sends them (a plan kept per
    /// connection), rather than as the libpq transport sends them (planned at every request).
    let preparing: Bool

    init(url: String, preparing: Bool = false) throws {
        self.preparing = preparing
        connection = try Connection(url: url)
        guard let backend = Int32(try connection.execute("select pg_backend_pid()").scalar ?? "") else {
            throw PostgresError(message: "no backend process id")
        }
        self.backend = backend
    }

    /// `statement` as one request of `user`. Its rows are not copied out: the transport reads
    /// them in place.
    func send(_ statement: PostgresStatement, as user: UUID, announcingPokes: Bool = false) throws {
        try request(as: user, announcingPokes: announcingPokes) { connection in
            if preparing {
                try connection.executePrepared(statement.sql, statement.parameters)
            } else {
                try connection.execute(statement.sql, statement.parameters) { _ in }
            }
        }
    }

    /// `sql` as one request of `user`, with its rows.
    func query(_ sql: String, _ parameters: [String?], as user: UUID, announcingPokes: Bool = false) throws -> QueryResult {
        try request(as: user, announcingPokes: announcingPokes) { connection in try connection.execute(sql, parameters) }
    }

    private func request<T>(as user: UUID, announcingPokes: Bool = false, _ body: (Connection) throws -> T) throws -> T {
        // The claims as PostgresTransport writes them, and its default statement timeout.
        let claims = #"{"sub": "\#(user.uuidString.lowercased())", "role": "authenticated"}"#
        return try connection.transaction { connection in
            try connection.execute(
                PostgresStatement.requestSettings, [claims, "30000ms", PostgresStatement.headers(announcingPokes: announcingPokes)])
            return try body(connection)
        }
    }

    /// Each phase's upsert cost for every target: `repetitions` times with new ids, the targets
    /// interleaved so that a busy moment of the machine falls on all of them alike. Only the
    /// requests are timed; a cost is their wall time and the server process's CPU time.
    func upsertCosts(
        repetitions: Int, rows: Int, targets: [TableSchema], announcing: [Bool]? = nil, as user: UUID,
        batches: (_ ids: [String], UpsertPhase, _ target: Int) -> [[ColumnValues]]
    ) throws -> [UpsertPhase: [[UpsertCost]]] {
        try requestCosts(repetitions: repetitions, rows: rows, targets: targets.count, announcing: announcing, as: user) {
            ids, phase, target in try batches(ids, phase, target).map { try PostgresStatement.upsert($0, into: targets[target]) }
        }
    }

    /// The same for any requests: `statements` are one phase's requests for a target, built
    /// (untimed) after the phase before it ran for every target.
    func requestCosts(
        repetitions: Int, rows: Int, targets: Int, announcing: [Bool]? = nil, as user: UUID,
        statements: (_ ids: [String], UpsertPhase, _ target: Int) throws -> [PostgresStatement]
    ) throws -> [UpsertPhase: [[UpsertCost]]] {
        var costs: [UpsertPhase: [[UpsertCost]]] = [:]
        for repetition in 0..<repetitions {
            let ids = (0..<rows).map { _ in UUID().uuidString.lowercased() }
            for phase in UpsertPhase.allCases {
                var runs: [Int: UpsertCost] = [:]
                // Each repetition starts one target later, so that no target always follows the
                // same one (the first requests to a table after another's pay for the switch).
                for step in 0..<targets {
                    let target = (step + repetition) % targets
                    let requests = try statements(ids, phase, target)
                    let cpuBefore = serverCPUSeconds()
                    let announced = announcing?[target] ?? false
                    let wall = try Measure.seconds {
                        for statement in requests { try send(statement, as: user, announcingPokes: announced) }
                    }
                    runs[target] = UpsertCost(wall: wall, serverCPU: serverCPUSeconds() - cpuBefore)
                }
                costs[phase, default: []].append((0..<targets).compactMap { runs[$0] })
            }
        }
        return costs
    }

    private func serverCPUSeconds() -> Double { ProcessStat(pid: backend)?.cpuSeconds ?? .nan }
}

/// What an upsert does to the rows it sends: makes them, wins with a newer pair, or repeats a
/// push already taken (and loses).
enum UpsertPhase: String, CaseIterable {
    case new, winning, losing
}

struct UpsertCost {
    var wall: Double
    var serverCPU: Double
}
