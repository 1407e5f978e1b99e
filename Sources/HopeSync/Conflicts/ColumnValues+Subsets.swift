extension ColumnValues {
    /// These values restricted to `names` (in that order), leaving out names they lack.
    func subset(_ names: [String]) -> ColumnValues {
        var kept: [String] = []
        for name in names where columns.contains(name) && !kept.contains(name) { kept.append(name) }
        return ColumnValues(columns: kept, values: kept.map { self[$0]! })
    }

    /// These values with `other`'s laid over them (other's new columns appended).
    func merging(_ other: ColumnValues) -> ColumnValues {
        var result = self
        for (column, value) in zip(other.columns, other.values) {
            if let index = result.columns.firstIndex(of: column) {
                result.values[index] = value
            } else {
                result.columns.append(column)
                result.values.append(value)
            }
        }
        return result
    }

    /// These values without `names`.
    func withoutColumns(_ names: [String]) -> ColumnValues {
        subset(columns.filter { !names.contains($0) })
    }
}
