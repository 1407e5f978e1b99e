//! The local database through the generated table list: migrations, upserts and reads.

use crate::tables::{Table, MIGRATIONS};
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};
use std::collections::HashMap;

/// Applies every generated migration newer than the file's, each in its own transaction,
/// recorded in `_sync_schema_migrations` (domain `app`) as the Swift runtime records them.
pub fn migrate(conn: &mut Connection, now_ms: i64) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS _sync_schema_migrations (
            domain TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,
            applied_ms INTEGER NOT NULL, PRIMARY KEY (domain, version))",
    )?;
    let applied: i64 = conn.query_row(
        "SELECT coalesce(max(version), 0) FROM _sync_schema_migrations WHERE domain = 'app'",
        [],
        |row| row.get(0),
    )?;
    for migration in MIGRATIONS.iter().filter(|m| i64::from(m.version) > applied) {
        let tx = conn.transaction()?;
        tx.execute_batch(migration.sql)?;
        tx.execute(
            "INSERT INTO _sync_schema_migrations (domain, version, name, applied_ms) VALUES ('app', ?1, ?2, ?3)",
            (migration.version, migration.name, now_ms),
        )?;
        tx.commit()?;
    }
    Ok(())
}

/// Inserts or replaces a row by id: every column of the table list, plus the local `_dirty`.
pub fn upsert(conn: &Connection, table: &Table, row: &HashMap<String, Value>, dirty: bool) -> rusqlite::Result<()> {
    let columns: Vec<&str> = table.column_names().chain(["_dirty"]).collect();
    let placeholders = vec!["?"; columns.len()].join(", ");
    let updates: Vec<String> = columns.iter().skip(1).map(|c| format!("\"{c}\" = excluded.\"{c}\"")).collect();
    let sql = format!(
        "INSERT INTO \"{}\" ({}) VALUES ({placeholders}) ON CONFLICT (id) DO UPDATE SET {}",
        table.name,
        columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", "),
        updates.join(", ")
    );
    let values = table
        .column_names()
        .map(|c| row.get(c).cloned().unwrap_or(Value::Null))
        .chain([Value::Integer(dirty as i64)]);
    conn.execute(&sql, params_from_iter(values))?;
    Ok(())
}

/// Every row of `table`, each column of the table list (and `_dirty`) by name.
pub fn read_all(conn: &Connection, table: &Table) -> rusqlite::Result<Vec<HashMap<String, Value>>> {
    let columns: Vec<&str> = table.column_names().chain(["_dirty"]).collect();
    let list = columns.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let mut statement = conn.prepare(&format!("SELECT {list} FROM \"{}\" ORDER BY id", table.name))?;
    let rows = statement.query_map([], |row| {
        let mut values = HashMap::new();
        for (index, column) in columns.iter().enumerate() {
            values.insert(column.to_string(), row.get::<_, Value>(index)?);
        }
        Ok(values)
    })?;
    rows.collect()
}

/// A JSON value as SQLite stores it for the column's type (booleans as 0/1, JSON as text).
pub fn sqlite_value(value: &serde_json::Value, sqlite_type: &str) -> Value {
    use serde_json::Value as Json;
    match value {
        Json::Null => Value::Null,
        Json::Bool(flag) => Value::Integer(*flag as i64),
        Json::Number(number) if sqlite_type == "REAL" => Value::Real(number.as_f64().unwrap_or(0.0)),
        Json::Number(number) => number.as_i64().map(Value::Integer).unwrap_or(Value::Real(number.as_f64().unwrap_or(0.0))),
        Json::String(text) => Value::Text(text.clone()),
        other => Value::Text(other.to_string()),
    }
}
