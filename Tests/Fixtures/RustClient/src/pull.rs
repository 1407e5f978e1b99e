//! docs/PROTOCOL.md, "Pull in one request": the request for the server's pull function
//! (`tables::PULL_FUNCTION`), and applying its answer: each table's page merged row by row and
//! its cursor moved, the mark kept once the answer is applied whole and no page was full.

use crate::cursors::{self, cursor, kept_mark, keep_mark, percent_encoded};
use crate::merge;
use crate::tables::{PULL_FUNCTION, SCHEMA_VERSION, TABLES};
use rusqlite::Connection;
use serde_json::{Map, Value as Json};

/// What applying one answer did.
pub struct Applied {
    /// Nothing of the user's was written since the mark sent: nothing to apply.
    pub idle: bool,
    /// Each table of the answer: its name and how many rows were merged.
    pub tables: Vec<(&'static str, usize)>,
    /// The tables the answer could not give (the server's SQL is older than this list).
    pub drifted: Vec<String>,
    /// Some table's page was full: ask again before keeping a mark.
    pub more: bool,
}

/// The next request: every table after its cursor (a lookback table's window before it), the
/// kept mark as `since` when there is one, as a GET of PostgREST's RPC endpoint, with the header
/// every request carries: the build's schema version (docs/PROTOCOL.md).
pub fn next_request(conn: &Connection, page_limit: i64) -> rusqlite::Result<String> {
    let mut cursors = Map::new();
    for table in TABLES {
        cursors.insert(table.name.into(), ((cursor(conn, table)? - table.lookback).max(0)).into());
    }
    let mut url = format!("/rest/v1/rpc/{PULL_FUNCTION}?cursors={}", percent_encoded(&Json::Object(cursors).to_string()));
    if let Some(mark) = kept_mark(conn, TABLES)? {
        url += &format!("&since={mark}");
    }
    url += &format!("&page_limit={}", page_limit.clamp(1, 1_000));
    Ok(format!("GET {url}\nX-Sync-Schema: {SCHEMA_VERSION}"))
}

/// Applies a pull function's answer in one local transaction: each page's rows merged as a
/// table pull's (merge.rs) and its table's cursor moved to the page's last `server_seq`. The
/// mark is kept when every table came whole and no page was full (else the kept one is
/// forgotten: the next request goes without `since`); an answer that is the mark sent alone
/// (`"tables": {}`) changes nothing.
pub fn apply_answer(conn: &mut Connection, answer: &Json) -> Result<Applied, Box<dyn std::error::Error>> {
    let mark = answer["mark"].as_i64().ok_or("the answer has no mark")?;
    let since = kept_mark(conn, TABLES)?;
    let pages = answer["tables"].as_object().cloned().unwrap_or_default();
    let mut applied = Applied { idle: Some(mark) == since && pages.is_empty(), tables: vec![], drifted: vec![], more: false };
    if applied.idle {
        return Ok(applied);
    }
    let tx = conn.transaction()?;
    for table in TABLES {
        // Not idle, so the server read every table asked for: one it lacks is not in the answer.
        let Some(page) = pages.get(table.name) else {
            applied.drifted.push(format!("{} (42P01: the server has no such table)", table.name));
            continue;
        };
        let rows = page["rows"].as_array().cloned().unwrap_or_default();
        if let Some(first) = rows.first() {
            let missing: Vec<&str> = table.column_names().filter(|c| first.get(c).is_none()).collect();
            if !missing.is_empty() {
                applied.drifted.push(format!("{} (42703: the server lacks {})", table.name, missing.join(", ")));
                continue;
            }
        }
        for row in &rows {
            merge::apply_pulled(&tx, table, row)?;
        }
        if let Some(last) = rows.last().and_then(|row| row["server_seq"].as_i64()) {
            cursors::advance(&tx, table, last)?;
        }
        applied.more |= page["more"].as_bool().unwrap_or(false);
        applied.tables.push((table.name, rows.len()));
    }
    // `since` goes only with the mark of an answer applied whole whose pages all ended.
    keep_mark(&tx, TABLES, (applied.drifted.is_empty() && !applied.more).then_some(mark))?;
    tx.commit()?;
    Ok(applied)
}
