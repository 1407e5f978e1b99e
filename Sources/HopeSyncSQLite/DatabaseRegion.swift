/// The tables a read depended on (GRDB's DatabaseRegion, at table granularity): a later commit
/// that changed none of them cannot change what the read would return.
public struct DatabaseRegion: Sendable, Equatable {
    /// Lowercased, as SQLite compares names without case.
    public private(set) var tables: Set<String>
    /// True when the read's tables are unknown (SQL run without being prepared here): any change
    /// may matter.
    public private(set) var isFullDatabase: Bool

    public init(tables: Set<String> = []) {
        self.tables = Set(tables.map { $0.lowercased() })
        isFullDatabase = false
    }

    public static let fullDatabase: DatabaseRegion = {
        var region = DatabaseRegion()
        region.isFullDatabase = true
        return region
    }()

    public var isEmpty: Bool { !isFullDatabase && tables.isEmpty }

    public mutating func formUnion(_ other: DatabaseRegion) {
        isFullDatabase = isFullDatabase || other.isFullDatabase
        if !isFullDatabase { tables.formUnion(other.tables) }
    }

    mutating func insert(table: String) {
        if !isFullDatabase { tables.insert(table.lowercased()) }
    }

    /// Whether a commit that changed `changed` may change a read of this region.
    public func intersects(_ changed: DatabaseRegion) -> Bool {
        if isEmpty || changed.isEmpty { return false }
        return isFullDatabase || changed.isFullDatabase || !tables.isDisjoint(with: changed.tables)
    }
}
