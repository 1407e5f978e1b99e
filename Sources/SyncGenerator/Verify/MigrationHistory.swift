import SyncSchema

/// Which migration brought each object into the schema, so a finding can say which file to
/// apply.
struct MigrationHistory {
    let migrations: [Migration]

    func creating(table: String) -> Migration? {
        migrations.first { $0.steps.contains { $0.createdTable?.name == table } }
    }

    func adding(column: String, to table: String) -> Migration? {
        migrations.first { migration in
            migration.steps.contains { step in
                switch step {
                case .createTable(let created): created.name == table && created.column(named: column) != nil
                case .addColumn(let added, let target): target.name == table && added.name == column
                default: false
                }
            }
        } ?? creating(table: table)
    }

    func adding(index: String, on table: String) -> Migration? {
        migrations.first { migration in
            migration.steps.contains { step in
                switch step {
                case .createTable(let created): created.name == table && created.indexes.contains { $0.name == index }
                case .addIndex(let added, let target): target.name == table && added.name == index
                default: false
                }
            }
        } ?? creating(table: table)
    }

    /// The newest migration that wrote the table's triggers.
    func lastWritingTriggers(of table: String) -> Migration? {
        migrations.last { migration in
            migration.steps.contains { step in
                switch step {
                case .createTable(let created): created.name == table
                case .replaceTriggers(let replaced): replaced.name == table
                default: false
                }
            }
        }
    }
}

extension MigrationStep {
    var createdTable: Table? {
        if case .createTable(let table) = self { return table }
        return nil
    }
}
