import HopeSyncSchema

/// Rust spellings of schema names. Each table is a constant named after it in upper case,
/// beside the constants every `tables.rs` has (`TABLES`, `MIGRATIONS`); a table that would
/// take one of those gets `_TABLE` after its name. Upper case is one-to-one on schema names,
/// so only that suffix can meet another table's constant, which ``NameCheck`` reports.
enum RustNames {
    static let fixedConstants: Set<String> = ["TABLES", "MIGRATIONS"]

    static func constant(_ table: Table) -> String {
        constant(named: table.name)
    }

    static func constant(named table: String) -> String {
        let name = table.uppercased()
        return fixedConstants.contains(name) ? name + "_TABLE" : name
    }
}
