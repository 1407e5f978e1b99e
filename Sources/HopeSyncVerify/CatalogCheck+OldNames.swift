import HopeSyncSchema

extension CatalogCheck {
    /// A renamed table's old names (decision 0054): each a view of the table that runs as its
    /// caller, so builds that know only that name read and write the table's rows under
    /// row-level security.
    func oldNames(of table: Table) throws -> [Finding] {
        let problems = table.oldNames.compactMap { old -> String? in
            guard let view = catalog.views[old] else { return "view public.\(old) (the old name of \(table.name))" }
            if !view.reads.contains(table.name) { return "view public.\(old) does not read public.\(table.name)" }
            if !view.invoker {
                return "view public.\(old) runs as its owner, not with security_invoker: row-level security would not apply"
            }
            return nil
        }
        guard !problems.isEmpty else { return [] }
        let fix = try renderer.renamedTableSQL(table) + "\n" + (try renderer.oldNamesSQL(table))
        return problems.map { Finding(table: table.name, kind: .view, message: $0, fix: fix) }
    }
}
