//! Where the next pull starts (docs/PROTOCOL.md, "Pull in one request"): the own stream's cursor
//! of each table, and the mark of the last answer applied whole, kept with the table list it was
//! kept for. Both clients (the habit app's and the task lists') keep them the same way.

use crate::tables::Table;
use rusqlite::{Connection, OptionalExtension};

/// The table's cursor in the own stream: the largest `server_seq` applied (0 before any).
pub fn cursor(conn: &Connection, table: &Table) -> rusqlite::Result<i64> {
    conn.query_row("SELECT server_seq FROM _sync_cursors WHERE table_name = ?1", [table.name], |row| row.get(0))
        .optional()
        .map(|seq| seq.unwrap_or(0))
}

/// Moves the table's own-stream cursor up to `server_seq` (never back).
pub fn advance(conn: &Connection, table: &Table, server_seq: i64) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO _sync_cursors (table_name, server_seq) VALUES (?1, ?2)
         ON CONFLICT (table_name) DO UPDATE SET server_seq = max(server_seq, excluded.server_seq)",
        (table.name, server_seq),
    )?;
    Ok(())
}

/// The mark of the last answer applied whole, kept for `tables`: a client whose list gained a
/// table or a column sends no `since` (those it must read from the start, which an idle answer
/// would skip).
pub fn kept_mark(conn: &Connection, tables: &[Table]) -> rusqlite::Result<Option<i64>> {
    create_mark_table(conn)?;
    conn.query_row("SELECT mark FROM _sync_pull_mark WHERE tables = ?1", [table_list(tables)], |row| row.get(0)).optional()
}

/// Keeps `mark` (replacing the one kept); None forgets it.
pub fn keep_mark(conn: &Connection, tables: &[Table], mark: Option<i64>) -> rusqlite::Result<()> {
    create_mark_table(conn)?;
    conn.execute("DELETE FROM _sync_pull_mark", [])?;
    if let Some(mark) = mark {
        conn.execute("INSERT INTO _sync_pull_mark (mark, tables) VALUES (?1, ?2)", (mark, table_list(tables)))?;
    }
    Ok(())
}

fn create_mark_table(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("CREATE TABLE IF NOT EXISTS _sync_pull_mark (mark INTEGER NOT NULL, tables TEXT NOT NULL)")
}

/// The tables and columns of a table list, as the mark is kept with them.
fn table_list(tables: &[Table]) -> String {
    tables.iter().map(|t| format!("{}({})", t.name, t.column_names().collect::<Vec<_>>().join(","))).collect::<Vec<_>>().join(";")
}

/// A query parameter's value: every byte but the unreserved ones as %XX.
pub fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (byte as char).to_string(),
            other => format!("%{other:02X}"),
        })
        .collect()
}
