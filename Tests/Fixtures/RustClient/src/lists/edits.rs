//! Local edits of version tables (docs/CONFLICTS.md): a guarded write queued with its base
//! version, shown at once in the row, sent as `PATCH ...&<version>=eq.<base>`. A viewer's edit
//! is refused at the save (the role of the last pull); an edit whose row leaves the user's reach
//! goes to the rejected list with its body.

use crate::cursors::percent_encoded;
use crate::store;
use crate::streams;
use crate::tables::{ConflictMode, Table, TABLES};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension};
use serde_json::{Map, Value as Json};

/// The queue (one entry per row: a later edit joins the waiting one and keeps its base) and the
/// rejected list.
pub fn create_bookkeeping(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS _queued_edits (
             seq INTEGER PRIMARY KEY, table_name TEXT NOT NULL, row_id TEXT NOT NULL, base TEXT NOT NULL, body TEXT NOT NULL,
             UNIQUE (table_name, row_id));
         CREATE TABLE IF NOT EXISTS _rejected_edits (table_name TEXT NOT NULL, row_id TEXT NOT NULL, body TEXT NOT NULL, reason TEXT NOT NULL)",
    )
}

/// Sets `values` in the row `id` of `table` and queues the guarded write. Refused for a viewer of
/// the row's scope (a scope no pull listed yet, one this device made, is writable), and for a
/// row no pull has given a version (a new row goes by the upsert, which this client does not make).
pub fn edit(conn: &Connection, table: &Table, id: &str, values: &Map<String, Json>) -> Result<(), Box<dyn std::error::Error>> {
    let ConflictMode::Version { column: version } = table.conflict else {
        return Err(format!("{} is not a version table", table.name).into());
    };
    let scope_column = streams::scope_column(table).map_or("NULL".to_string(), |column| format!("\"{column}\""));
    let (scope, base): (Option<String>, Option<Value>) = conn
        .query_row(
            &format!("SELECT {scope_column}, \"{version}\" FROM \"{}\" WHERE id = ?1", table.name),
            [id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?
        .ok_or_else(|| format!("no row {id} in {}", table.name))?;
    if let Some(scope) = scope {
        if streams::role(conn, &scope)?.as_deref() == Some("viewer") {
            return Err(format!("refused: a viewer of {scope} cannot edit its rows").into());
        }
    }
    let base = match base {
        Some(Value::Text(text)) => text,
        Some(Value::Integer(number)) => number.to_string(),
        _ => return Err(format!("{id} has no server version yet").into()),
    };
    let queued: Option<String> =
        conn.query_row("SELECT body FROM _queued_edits WHERE table_name = ?1 AND row_id = ?2", (table.name, id), |row| row.get(0)).optional()?;
    let mut body = match queued {
        Some(text) => serde_json::from_str::<Json>(&text)?.as_object().cloned().unwrap_or_default(),
        None => Map::new(),
    };
    body.extend(values.clone());
    conn.execute(
        "INSERT INTO _queued_edits (table_name, row_id, base, body) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (table_name, row_id) DO UPDATE SET body = excluded.body",
        (table.name, id, base, Json::Object(body).to_string()),
    )?;
    Ok(lay_queued_edit(conn, table, id)?)
}

/// Shows the row's queued edit in it (after a save, and after a pull replaced the row).
pub fn lay_queued_edit(conn: &Connection, table: &Table, id: &str) -> rusqlite::Result<()> {
    let Some(body) = queued_body(conn, table.name, id)? else { return Ok(()) };
    set_columns(conn, table, id, &body, true)
}

/// The first queued edit's request: `PATCH` guarded by its base version, sending only the
/// columns it sets, asking back the key, the version and those columns.
pub fn next_push(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let Some((table, id, base, body)) = first_queued(conn)? else { return Ok(None) };
    let ConflictMode::Version { column: version } = table.conflict else { return Ok(None) };
    let select: Vec<&str> = ["id", version].into_iter().chain(body.keys().map(String::as_str)).collect();
    Ok(Some(format!(
        "PATCH /rest/v1/{}?id=eq.{}&{version}=eq.{}&select={}\nprefer: return=representation\nbody: {}",
        table.name,
        percent_encoded(&id),
        percent_encoded(&base),
        select.join(","),
        Json::Object(body)
    )))
}

/// Applies the server's answer to the first queued edit; says what became of it.
pub fn apply_push_answer(conn: &Connection, status: u16, answer: &Json) -> Result<String, Box<dyn std::error::Error>> {
    let (table, id, _, body) = first_queued(conn)?.ok_or("nothing was pushed")?;
    if (200..300).contains(&status) {
        let Some(row) = answer.as_array().and_then(|rows| rows.first()).and_then(Json::as_object) else {
            // The row is not at the base version, or row-level security hides it: docs/CONFLICTS.md
            // reads it by key next to tell which. This client leaves the edit queued.
            return Ok(format!("unsettled: {} {id} did not match its base version", table.name));
        };
        // What the edit set since this request was made stays queued, on the version the answer gave.
        let later: Map<String, Json> = body.into_iter().filter(|(column, value)| row.get(column) != Some(value)).collect();
        let ConflictMode::Version { column: version } = table.conflict else { return Err("not a version table".into()) };
        match version_text(row.get(version)) {
            Some(base) if !later.is_empty() => {
                conn.execute(
                    "UPDATE _queued_edits SET base = ?3, body = ?4 WHERE table_name = ?1 AND row_id = ?2",
                    (table.name, &id, base, Json::Object(later).to_string()),
                )?;
            }
            _ => {
                conn.execute("DELETE FROM _queued_edits WHERE table_name = ?1 AND row_id = ?2", (table.name, &id))?;
            }
        }
        set_columns(conn, table, &id, row, false)?;
        lay_queued_edit(conn, table, &id)?;
        return Ok(format!("pushed: {} {id}", table.name));
    }
    let code = answer["code"].as_str().unwrap_or("");
    if status >= 500 || ["55P03", "40P01"].contains(&code) {
        return Ok(format!("retry: {code} (another writer of the row's stream); the edit stays queued"));
    }
    let reason = format!("{code}: {}", answer["message"].as_str().unwrap_or("refused"));
    reject_queued_edit(conn, table, &id, &reason)?;
    Ok(format!("rejected: {} {id}: {reason}", table.name))
}

/// Moves the row's queued edit to the rejected list, with `reason`.
pub fn reject_queued_edit(conn: &Connection, table: &Table, id: &str, reason: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO _rejected_edits (table_name, row_id, body, reason)
         SELECT table_name, row_id, body, ?3 FROM _queued_edits WHERE table_name = ?1 AND row_id = ?2",
        (table.name, id, reason),
    )?;
    conn.execute("DELETE FROM _queued_edits WHERE table_name = ?1 AND row_id = ?2", (table.name, id))?;
    Ok(())
}

/// The rejected list: table, row id, the edit's body, why.
pub fn rejected(conn: &Connection) -> rusqlite::Result<Vec<[String; 4]>> {
    let mut statement = conn.prepare("SELECT table_name, row_id, body, reason FROM _rejected_edits ORDER BY rowid")?;
    let rows = statement.query_map([], |row| Ok([row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?]))?;
    rows.collect()
}

/// A version as the exact text the server sent (an integer version as its digits).
fn version_text(value: Option<&Json>) -> Option<String> {
    match value? {
        Json::String(text) => Some(text.clone()),
        Json::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

fn first_queued(conn: &Connection) -> rusqlite::Result<Option<(&'static Table, String, String, Map<String, Json>)>> {
    let first: Option<(String, String, String, String)> = conn
        .query_row("SELECT table_name, row_id, base, body FROM _queued_edits ORDER BY seq LIMIT 1", [], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .optional()?;
    Ok(first.and_then(|(name, id, base, body)| {
        let table = TABLES.iter().find(|t| t.name == name)?;
        Some((table, id, base, serde_json::from_str::<Json>(&body).ok()?.as_object()?.clone()))
    }))
}

fn queued_body(conn: &Connection, table: &str, id: &str) -> rusqlite::Result<Option<Map<String, Json>>> {
    let body: Option<String> =
        conn.query_row("SELECT body FROM _queued_edits WHERE table_name = ?1 AND row_id = ?2", (table, id), |row| row.get(0)).optional()?;
    Ok(body.and_then(|text| serde_json::from_str::<Json>(&text).ok()?.as_object().cloned()))
}

/// Writes the table's columns named in `values` into the row, and whether it waits to be pushed.
fn set_columns(conn: &Connection, table: &Table, id: &str, values: &Map<String, Json>, dirty: bool) -> rusqlite::Result<()> {
    let columns: Vec<_> = table.columns.iter().filter(|c| c.name != "id" && values.contains_key(c.name)).collect();
    let assignments: Vec<String> = columns.iter().map(|c| format!("\"{}\" = ?", c.name)).chain(["_dirty = ?".into()]).collect();
    let arguments = columns
        .iter()
        .map(|c| store::sqlite_value(&values[c.name], c.sqlite_type))
        .chain([Value::Integer(dirty as i64), Value::Text(id.into())]);
    conn.execute(&format!("UPDATE \"{}\" SET {} WHERE id = ?", table.name, assignments.join(", ")), rusqlite::params_from_iter(arguments))?;
    Ok(())
}
