import HopeSyncPostgresClient

/// How many devices synced lately, by the schema version of their build, from the devices'
/// daily hellos (public.sync_devices, decision 0051): what tells the owner when raising
/// `oldest_writer` (and so a removal or the contract step of a rename) strands nobody.
package struct DeviceCensus: Sendable, Equatable, CustomStringConvertible {
    /// The window, in days back from today.
    package var days: Int
    /// Devices per schema version, newest version first.
    package var versions: [(version: Int, devices: Int)]
    /// schema.yaml's floor: the versions below it cannot write.
    package var oldestWriter: Int?

    /// The census of the last `days` days; nil on a database without the devices' table (its
    /// SQL predates it).
    package init?(reading connection: Connection, days: Int, oldestWriter: Int?) throws(PostgresError) {
        guard try connection.execute("select to_regclass('public.sync_devices') is not null").scalar == "t" else { return nil }
        let rows = try connection.execute(
            """
            select schema_version::text, count(*)::text from public.sync_devices
            where last_seen > current_date - $1::integer group by schema_version order by schema_version desc
            """, [String(days)]
        ).rows
        self.days = days
        self.versions = rows.map { (Int($0[0] ?? "") ?? 0, Int($0[1] ?? "") ?? 0) }
        self.oldestWriter = oldestWriter
    }

    package static func == (lhs: DeviceCensus, rhs: DeviceCensus) -> Bool {
        lhs.days == rhs.days && lhs.oldestWriter == rhs.oldestWriter && lhs.versions.elementsEqual(rhs.versions) { $0 == $1 }
    }

    package var description: String {
        var lines = ["devices that synced in the last \(days) days, by their build's schema version:"]
        if versions.isEmpty { lines.append("  none") }
        for (version, devices) in versions {
            let refused = oldestWriter.map { version < $0 } == true ? " (below oldest_writer \(oldestWriter!): may not write)" : ""
            lines.append("  version \(version): \(devices) device\(devices == 1 ? "" : "s")\(refused)")
        }
        return lines.joined(separator: "\n")
    }
}
