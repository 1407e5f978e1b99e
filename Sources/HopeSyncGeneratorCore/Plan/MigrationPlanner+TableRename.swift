import HopeSyncSchema

extension MigrationPlanner {
    /// The old names the server keeps serving a table after its renames finished (decision
    /// 0054): those the snapshot carries, and the one `changes` finishes.
    static func formerNames(of table: Table, shipped: Table?, changes: [SchemaChange]) -> [String] {
        (shipped?.formerNames ?? [])
            + changes.compactMap { change in
                if case .finishTableRename(let finished, let old) = change, finished.name == table.name { old } else { nil }
            }
    }
}
