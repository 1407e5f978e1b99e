import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel

/// The generated schema, with the sessions table's pull ordering chosen per test, and with or
/// without the server functions it names (without: the devices sync table by table).
enum HopeFixture {
    static var activities: TableSchema { Activity.table }
    static var tasks: TableSchema { TaskItem.table }
    static var taskLists: TableSchema { TaskList.table }

    static func sessions(ordering: PullOrdering = Session.table.ordering) -> TableSchema {
        let table = Session.table
        return TableSchema(
            name: table.name, columns: table.columns, primaryKey: table.primaryKey, conflict: table.conflict,
            ordering: ordering, openRowRule: table.openRowRule
        )
    }

    static func app(sessionOrdering: PullOrdering = Session.table.ordering, functions: Bool = true) -> AppSchema {
        let tables = GeneratedSchema.tables.map { $0.name == "sessions" ? sessions(ordering: sessionOrdering) : $0 }
        return AppSchema(
            tables: tables, migrations: GeneratedSchema.migrations,
            pullFunction: functions ? GeneratedSchema.app.pullFunction : nil
        )
    }
}
