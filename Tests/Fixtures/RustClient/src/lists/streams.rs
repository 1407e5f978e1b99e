//! docs/PROTOCOL.md, "Sharing (scopes)": the pull function's request with a cursor per (stream,
//! table), and its answer applied in one local transaction: ended scopes first, then the scope
//! list with roles, then every page (own and each scope's), then the exits.

use crate::cursors::{self, keep_mark, kept_mark, percent_encoded};
use crate::edits;
use crate::store;
use crate::tables::{self, Scope, Table, PULL_FUNCTION};
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};
use serde_json::{Map, Value as Json};

/// The tables this client syncs: a desktop app for task lists, not the time tracker. A table
/// the request leaves out is not read.
pub const SYNCED: &[Table] = &[tables::TASK_LISTS, tables::TASKS, tables::TASK_PHOTOS, tables::TASK_LISTS_MEMBERS];

/// What applying one answer did.
#[derive(Default)]
pub struct Applied {
    /// The answer was the mark sent alone: nothing changed, the scopes known stay.
    pub idle: bool,
    /// The scopes the answer no longer lists: their rows are gone from the file.
    pub ended: Vec<String>,
    /// Each page applied: its stream and table (`tasks`, `<scope>/tasks`) and its row count.
    pub pages: Vec<(String, usize)>,
    /// Local copies the answer's exits removed.
    pub exited: usize,
    /// Own-stream tables the answer lacks (its server is older than this list): no mark is kept.
    pub drifted: Vec<String>,
    /// Some page was full: ask again (without `since`) before keeping a mark.
    pub more: bool,
}

/// The client's own bookkeeping beside the generated tables: the scopes the last non-idle
/// answer listed, with their roles, and a cursor per (scope, table).
pub fn create_bookkeeping(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS _scopes (scope_id TEXT PRIMARY KEY NOT NULL, scope_table TEXT NOT NULL, role TEXT NOT NULL);
         CREATE TABLE IF NOT EXISTS _scope_cursors (
             scope_id TEXT NOT NULL, table_name TEXT NOT NULL, server_seq INTEGER NOT NULL, PRIMARY KEY (scope_id, table_name))",
    )
}

/// The column that names a row's scope: a scope row's own id, a scoped or following table's
/// scope column, a membership's `scope_id`. None: the table is not shared.
pub fn scope_column(table: &Table) -> Option<&'static str> {
    match table.scope()? {
        Scope::Scope { .. } => Some("id"),
        Scope::Scoped { column, .. } | Scope::Follows { column, .. } => Some(column),
        Scope::Membership { .. } => Some("scope_id"),
    }
}

/// The scope table whose rows `table`'s rows are shared through.
fn scope_table_of(table: &Table) -> Option<&'static str> {
    match table.scope()? {
        Scope::Scope { .. } => Some(table.name),
        Scope::Scoped { scope_table, .. } | Scope::Follows { scope_table, .. } | Scope::Membership { scope_table } => Some(scope_table),
    }
}

/// The own stream's tables: a row of these may be its owner's alone. A scope row and a
/// membership are always in their scope's stream.
fn own_tables() -> impl Iterator<Item = &'static Table> {
    SYNCED.iter().filter(|t| matches!(t.scope(), None | Some(Scope::Scoped { .. } | Scope::Follows { .. })))
}

/// The tables a scope of `scope_table` holds: the scope table, the tables scoped by it or
/// following them, and its membership table.
fn scope_tables(scope_table: &str) -> impl Iterator<Item = &'static Table> + '_ {
    SYNCED.iter().filter(move |t| scope_table_of(t) == Some(scope_table))
}

/// The scopes the last non-idle answer listed: id, scope table, role.
pub fn known_scopes(conn: &Connection) -> rusqlite::Result<Vec<(String, String, String)>> {
    let mut statement = conn.prepare("SELECT scope_id, scope_table, role FROM _scopes ORDER BY scope_id")?;
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
    rows.collect()
}

/// The role the last answer gave the user in `scope`; None for a scope no answer listed.
pub fn role(conn: &Connection, scope: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT role FROM _scopes WHERE scope_id = ?1", [scope], |row| row.get(0)).optional()
}

/// A scope's cursor for `table` (0 before any page of it).
pub fn scope_cursor(conn: &Connection, scope: &str, table: &Table) -> rusqlite::Result<i64> {
    conn.query_row("SELECT server_seq FROM _scope_cursors WHERE scope_id = ?1 AND table_name = ?2", (scope, table.name), |row| row.get(0))
        .optional()
        .map(|seq| seq.unwrap_or(0))
}

/// The next request: the own stream's tables after their cursors, and under `"@scopes"` each
/// known scope's tables after theirs (a scope joined since is not named: the server reads it
/// from 0); `since` when a mark is kept.
pub fn next_request(conn: &Connection, page_limit: i64) -> rusqlite::Result<String> {
    let mut request = Map::new();
    for table in own_tables() {
        request.insert(table.name.into(), (cursors::cursor(conn, table)? - table.lookback).max(0).into());
    }
    let mut scopes = Map::new();
    for (id, scope_table, _) in known_scopes(conn)? {
        let mut entry = Map::new();
        for table in scope_tables(&scope_table) {
            entry.insert(table.name.into(), (scope_cursor(conn, &id, table)? - table.lookback).max(0).into());
        }
        scopes.insert(id, entry.into());
    }
    request.insert("@scopes".into(), scopes.into());
    let mut url = format!("/rest/v1/rpc/{PULL_FUNCTION}?cursors={}", percent_encoded(&Json::Object(request).to_string()));
    if let Some(mark) = kept_mark(conn, SYNCED)? {
        url += &format!("&since={mark}");
    }
    url += &format!("&page_limit={}", page_limit.clamp(1, 1_000));
    Ok(format!("GET {url}"))
}

/// An exit waiting for the answer's pages to be applied: the table, the stream it left (None:
/// the own stream), the row id and the exit's server_seq.
type Exit = (&'static Table, Option<String>, String, i64);

/// Applies an answer in one local transaction.
pub fn apply_answer(conn: &mut Connection, answer: &Json) -> Result<Applied, Box<dyn std::error::Error>> {
    let mark = answer["mark"].as_i64().ok_or("the answer has no mark")?;
    let own = answer["tables"].as_object().cloned().unwrap_or_default();
    // An answer without `scopes` (idle, or a server whose function predates sharing) says
    // nothing of them: "not listed" must mean ended, never "not said".
    let listed = answer.get("scopes").and_then(Json::as_object);
    let mut applied = Applied { idle: listed.is_none() && own.is_empty(), ..Applied::default() };
    if applied.idle {
        return Ok(applied);
    }
    let tx = conn.transaction()?;
    let mut exits: Vec<Exit> = vec![];
    if let Some(listed) = listed {
        for (id, scope_table, _) in known_scopes(&tx)? {
            if !listed.contains_key(&id) {
                end_scope(&tx, &id, &scope_table)?;
                applied.ended.push(id);
            }
        }
        for (id, scope) in listed {
            // A role this client does not know reads as a viewer's: it never writes what the
            // server may refuse.
            let role = scope["role"].as_str().filter(|r| ["owner", "editor", "viewer"].contains(r)).unwrap_or("viewer");
            // A scope seen first is placed by the tables its pages name.
            let pages = scope["tables"].as_object().cloned().unwrap_or_default();
            let known: Option<String> =
                tx.query_row("SELECT scope_table FROM _scopes WHERE scope_id = ?1", [id], |row| row.get(0)).optional()?;
            let Some(scope_table) = known.or_else(|| SYNCED.iter().filter(|t| pages.contains_key(t.name)).find_map(scope_table_of).map(String::from))
            else {
                continue;
            };
            tx.execute(
                "INSERT INTO _scopes (scope_id, scope_table, role) VALUES (?1, ?2, ?3)
                 ON CONFLICT (scope_id) DO UPDATE SET role = excluded.role",
                (id, &scope_table, role),
            )?;
            for table in scope_tables(&scope_table) {
                if let Some(page) = pages.get(table.name) {
                    apply_page(&tx, table, page, Some(id), &mut applied, &mut exits)?;
                }
            }
        }
    }
    for table in own_tables() {
        match own.get(table.name) {
            Some(page) => apply_page(&tx, table, page, None, &mut applied, &mut exits)?,
            None => applied.drifted.push(format!("{} (42P01: the server's function has no such table)", table.name)),
        }
    }
    // Exits after every page: a row moved between two streams this user reads has arrived in
    // its new stream already and is newer than the exit, so it stays.
    for (table, stream, id, server_seq) in exits {
        let column = scope_column(table).ok_or("an exit of a table that is not shared")?;
        let (in_stream, mut arguments) = match stream {
            Some(scope) => (format!("\"{column}\" = ?"), vec![Value::Text(scope)]),
            None => (format!("\"{column}\" IS NULL"), vec![]),
        };
        arguments.splice(0..0, [Value::Text(id)]);
        arguments.push(Value::Integer(server_seq));
        let reason = format!("This row of {} moved where you cannot reach it before this edit was accepted.", table.name);
        applied.exited += remove(&tx, table, &format!("id = ? AND {in_stream} AND server_seq < ?"), arguments, &reason)?;
    }
    // `since` goes only with the mark of an answer applied whole whose pages all ended.
    keep_mark(&tx, SYNCED, (applied.drifted.is_empty() && !applied.more).then_some(mark))?;
    tx.commit()?;
    Ok(applied)
}

/// One page of `table` in a stream (`scope` None: the own stream): its rows applied as the
/// server holds them, the stream's cursor moved to the highest server_seq of its rows and
/// exits, and the exits kept for after the answer's pages.
fn apply_page(
    tx: &Connection, table: &'static Table, page: &Json, scope: Option<&String>, applied: &mut Applied, exits: &mut Vec<Exit>,
) -> Result<(), Box<dyn std::error::Error>> {
    let rows = page["rows"].as_array().cloned().unwrap_or_default();
    let mut last = 0;
    for row in &rows {
        apply_row(tx, table, row)?;
        last = last.max(row["server_seq"].as_i64().unwrap_or(0));
    }
    for exit in page["exits"].as_array().cloned().unwrap_or_default() {
        let (Some(id), Some(server_seq)) = (exit["id"].as_str(), exit["server_seq"].as_i64()) else {
            return Err(format!("an exit of {} without an id or a server_seq", table.name).into());
        };
        exits.push((table, scope.cloned(), id.to_string(), server_seq));
        last = last.max(server_seq);
    }
    match scope {
        Some(id) if last > 0 => {
            tx.execute(
                "INSERT INTO _scope_cursors (scope_id, table_name, server_seq) VALUES (?1, ?2, ?3)
                 ON CONFLICT (scope_id, table_name) DO UPDATE SET server_seq = max(server_seq, excluded.server_seq)",
                (id, table.name, last),
            )?;
        }
        None if last > 0 => cursors::advance(tx, table, last)?,
        _ => {}
    }
    applied.more |= page["more"].as_bool().unwrap_or(false);
    applied.pages.push((scope.map_or(table.name.to_string(), |id| format!("{id}/{}", table.name)), rows.len()));
    Ok(())
}

/// A pulled row of a version table (or a membership, which only the server writes) replaces
/// the local copy; an edit still queued for it is laid over it again (a pull never moves a
/// queued edit's base).
fn apply_row(tx: &Connection, table: &Table, pulled: &Json) -> Result<(), Box<dyn std::error::Error>> {
    let id = pulled["id"].as_str().ok_or("a pulled row has an id")?;
    let row = table.columns.iter().map(|c| (c.name.to_string(), store::sqlite_value(&pulled[c.name], c.sqlite_type))).collect();
    store::upsert(tx, table, &row, false)?;
    edits::lay_queued_edit(tx, table, id)?;
    Ok(())
}

/// Ends a scope the answer no longer lists (removed, left, or deleted): its rows in every
/// table it holds, their queued edits (to the rejected list: access ended) and its cursors.
fn end_scope(tx: &Connection, id: &str, scope_table: &str) -> rusqlite::Result<()> {
    let reason = format!("Your access to this {scope_table} row ended before this edit was accepted.");
    for table in scope_tables(scope_table) {
        let column = scope_column(table).unwrap_or("id");
        remove(tx, table, &format!("\"{column}\" = ?"), vec![Value::Text(id.into())], &reason)?;
    }
    tx.execute("DELETE FROM _scope_cursors WHERE scope_id = ?1", [id])?;
    tx.execute("DELETE FROM _scopes WHERE scope_id = ?1", [id])?;
    Ok(())
}

/// Deletes the rows of `table` matching `filter` (they are not the user's to hold, so not a soft
/// delete); an edit of theirs the server never accepted goes to the rejected list first.
fn remove(tx: &Connection, table: &Table, filter: &str, arguments: Vec<Value>, reason: &str) -> rusqlite::Result<usize> {
    let ids: Vec<String> = {
        let mut statement = tx.prepare(&format!("SELECT id FROM \"{}\" WHERE {filter}", table.name))?;
        let rows = statement.query_map(params_from_iter(arguments.iter()), |row| row.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for id in &ids {
        edits::reject_queued_edit(tx, table, id, reason)?;
        tx.execute(&format!("DELETE FROM \"{}\" WHERE id = ?1", table.name), [id])?;
    }
    Ok(ids.len())
}
