import Foundation

/// A row type's values in this table's column order, and back. A row type whose table has the
/// store's columns (the generated types over the schema the store opened with: the same array,
/// so the check costs nothing) codes them itself, column by column; any other goes by column
/// name through Codable, as every row once did.
extension TableSQL {
    func columnValues<Record: SyncRecord>(of record: Record) throws -> [SyncValue] {
        guard Record.table.columns == table.columns else { return try RecordEncoder().encode(record, columns: names) }
        return try record.columnValues()
    }

    func record<Record: SyncRecord>(_ type: Record.Type, from values: [SyncValue]) throws -> Record {
        guard Record.table.columns == table.columns else { return try RecordDecoder().decode(Record.self, columns: names, values: values) }
        return try Record(columnValues: values)
    }
}
