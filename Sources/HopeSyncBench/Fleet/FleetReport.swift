import Foundation
import HopeSchema

extension FleetBenchmark {
    static func printReport(
        settings: Settings, log: FleetLog, baseline: PhaseResult, fleet: PhaseResult, idle: PhaseResult, idleTables: PhaseResult,
        idlePoked: PhaseResult
    ) {
        let alone = log.latencies(.baseline)
        let many = log.latencies(.fleet)
        let quiet = log.latencies(.idle)
        print(
            "requests             fleet writing: count    per s  p50 ms  p99 ms  max ms │ alone: count  p50 ms  p99 ms │ fleet/alone p50   p99"
        )
        func ratio(_ a: Double, _ b: Double) -> String { b > 0 && a > 0 ? String(format: "%6.2f", a / b) : "     -" }
        for kind in RequestKind.allCases {
            let f = many[kind] ?? Latencies([])
            let b = alone[kind] ?? Latencies([])
            guard f.count > 0 || b.count > 0 else { continue }
            print(
                kind.label.padding(toLength: 28, withPad: " ", startingAt: 0)
                    + String(
                        format: "%13d  %7.1f  %6.2f  %6.2f  %6.1f │ %12d  %6.2f  %6.2f │ ", f.count, Double(f.count) / fleet.seconds,
                        f.p50 * 1e3,
                        f.p99 * 1e3, f.max * 1e3, b.count, b.p50 * 1e3, b.p99 * 1e3)
                    + "      \(ratio(f.p50, b.p50)) \(ratio(f.p99, b.p99))")
        }
        let idlePulls = quiet[.pull] ?? Latencies([])
        let aloneIdle = alone[.idlePull] ?? Latencies([])
        print(
            "pull, fleet idle (nobody writes)".padding(toLength: 28, withPad: " ", startingAt: 0)
                + String(
                    format: "%13d  %7.1f  %6.2f  %6.2f  %6.1f │ %12d  %6.2f  %6.2f │ ", idlePulls.count,
                    Double(idlePulls.count) / idle.seconds,
                    idlePulls.p50 * 1e3, idlePulls.p99 * 1e3, idlePulls.max * 1e3, aloneIdle.count, aloneIdle.p50 * 1e3, aloneIdle.p99 * 1e3
                )
                + "      \(ratio(idlePulls.p50, aloneIdle.p50)) \(ratio(idlePulls.p99, aloneIdle.p99))")
        print(
            "(latency as the device sees it, from the call to the answer, waiting for one of the pool's \(settings.pool) connections included;"
                + " idle: a pull that found no rows; the last line's baseline is the device alone's idle pulls)")
        let rows = log.rowCounts(.fleet)
        print(
            "fleet writing: rows pushed \(rows.pushed) (\(Measure.format(Double(rows.pushed) / fleet.seconds)) /s), pulled \(rows.pulled) (\(Measure.format(Double(rows.pulled) / fleet.seconds)) /s);"
                + " pool connections busy (begin to commit, mean): writing \(Measure.format(fleet.queryBusySeconds / fleet.seconds, digits: 2)),"
                + " idle \(Measure.format(idle.queryBusySeconds / idle.seconds, digits: 2)), alone \(Measure.format(baseline.queryBusySeconds / baseline.seconds, digits: 3)) of \(settings.pool)"
        )

        for (name, phase, result) in [
            ("writing", FleetLog.Phase.fleet, fleet), ("idle", .idle, idle), ("idle, table by table", .idleTables, idleTables),
            ("idle, pokes joined", .idlePoked, idlePoked), ("alone", .baseline, baseline),
        ] {
            let counts = log.pullsPerDevice(phase)
            guard let first = counts.first, let last = counts.last else { continue }
            let perSecond = { (count: Int) in Measure.format(Double(count) / result.seconds, digits: 2) }
            print(
                "pull requests per device per second, \(name): min \(perSecond(first)), median \(perSecond(counts[counts.count / 2])), max \(perSecond(last))"
                    + " (\(GeneratedSchema.tables.count) tables, a poll every \(settings.configuration.pollInterval); the others through sync_pull)"
            )
        }

        print("\nserver                                       fleet writing   fleet idle  idle, tables   idle, poked        alone")
        func line(_ label: String, _ values: [Double], digits: Int = 2) {
            print(
                label.padding(toLength: 44, withPad: " ", startingAt: 0)
                    + values.map { $0.isFinite ? String(format: "%13.\(digits)f", $0) : "            -" }.joined(separator: " "))
        }
        let phases = [fleet, idle, idleTables, idlePoked, baseline]
        let transactions = { (r: PhaseResult) in Double(r.counters.after.commits - r.counters.before.commits) }
        let sequence = { (r: PhaseResult) in Double(r.counters.after.sequence - r.counters.before.sequence) }
        line("wall seconds", phases.map(\.seconds), digits: 1)
        line("device-minutes (compressed)", phases.map(\.deviceMinutes))
        line("server CPU s (all cluster processes)", phases.map(\.serverCPU))
        line("server CPU, share of one core", phases.map { $0.serverCPU / $0.seconds })
        line("server CPU s per device-minute", phases.map { $0.serverCPU / $0.deviceMinutes }, digits: 4)
        line("  per device-minute of the real schedule", phases.map { $0.serverCPUPerRealDeviceMinute(settings) }, digits: 4)
        line("transactions committed /s", phases.map { transactions($0) / $0.seconds }, digits: 1)
        line("server CPU µs per transaction", phases.map { $0.serverCPU / transactions($0) * 1e6 }, digits: 0)
        line("server_seq numbers taken /s (nextval)", phases.map { sequence($0) / $0.seconds }, digits: 1)
        line("client backends in a transaction (mean)", phases.map(\.busy))
        line("client CPU s (this process)", phases.map(\.clientCPU))
        line("client threads (most seen)", phases.map { Double($0.threads) }, digits: 0)
        line("deadlocks (pg_stat_database)", phases.map { Double($0.counters.after.deadlocks - $0.counters.before.deadlocks) }, digits: 0)
        line("rollbacks (pg_stat_database)", phases.map { Double($0.counters.after.rollbacks - $0.counters.before.rollbacks) }, digits: 0)
        for (name, phase) in [
            ("fleet writing", fleet), ("fleet idle", idle), ("idle, table by table", idleTables), ("idle, pokes joined", idlePoked),
            ("alone", baseline),
        ] {
            print(
                "waits, \(name) (mean backends waiting, pg_stat_activity every 50 ms): "
                    + (phase.waits.isEmpty
                        ? "none" : phase.waits.prefix(6).map { "\($0.0) \(Measure.format($0.1, digits: 3))" }.joined(separator: ", ")))
        }

        print("\nlocal writes (fleet): " + fleet.writes.line + "\nlocal writes (alone): " + baseline.writes.line)
        let errors = log.errors()
        print(
            "errors the transport returned, by phase, request and code: "
                + (errors.isEmpty ? "none" : errors.map { "\($0.key) x\($0.value)" }.joined(separator: "; ")))
        for (name, passes) in [("fleet", fleet.passErrors.counts), ("alone", baseline.passErrors.counts)] {
            print(
                "passes that ended in an error (the engines' status), \(name), from its start to its engines' stop: "
                    + (passes.isEmpty ? "none" : passes.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: "; "))
            )
        }
    }
}
