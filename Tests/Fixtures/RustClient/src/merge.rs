//! docs/PROTOCOL.md, "merge: column": applying a pulled row to the local one, column by column.

use crate::store;
use crate::tables::{ConflictMode, Table};
use rusqlite::types::Value;
use rusqlite::Connection;
use serde_json::{Map, Value as Json};
use std::collections::HashMap;

/// A pair as text: updated_ms zero-padded to 15 digits, ':', device_id. Texts compare as pairs.
pub fn stamp(updated_ms: i64, device_id: &str) -> String {
    format!("{updated_ms:015}:{device_id}")
}

/// Merges `pulled` (a row as a pull returns it) into the local row with its id and stores the
/// result: each stamped column keeps the larger stamp's value; a delete older than some other
/// column's stamp is undone; `updated_ms, device_id` become the newest stamp. The row stays
/// dirty while any local stamp beats the pulled one.
pub fn apply_pulled(conn: &Connection, table: &Table, pulled: &Json) -> Result<HashMap<String, Value>, Box<dyn std::error::Error>> {
    let ConflictMode::LastWriterWinsByColumn { stamped } = table.conflict else {
        return Err(format!("{} does not merge column by column", table.name).into());
    };
    let id = pulled["id"].as_str().ok_or("a pulled row has an id")?;
    let local = store::read_all(conn, table)?
        .into_iter()
        .find(|row| matches!(row.get("id"), Some(Value::Text(text)) if text == id));
    let pulled_stamps = pulled["column_stamps"].as_object().cloned().unwrap_or_default();
    let mut row: HashMap<String, Value> = table.columns.iter().map(|c| (c.name.to_string(), store::sqlite_value(&pulled[c.name], c.sqlite_type))).collect();
    let Some(local) = local else {
        row.insert("column_stamps".into(), Value::Text(Json::Object(pulled_stamps).to_string()));
        store::upsert(conn, table, &row, false)?;
        return Ok(with_dirty(row, false));
    };
    let local_stamps: Map<String, Json> = match local.get("column_stamps") {
        Some(Value::Text(text)) => serde_json::from_str::<Json>(text)?.as_object().cloned().unwrap_or_default(),
        _ => Map::new(),
    };
    let mut stamps = Map::new();
    let mut local_won = false;
    for &column in stamped {
        let mine = local_stamps.get(column).and_then(Json::as_str).unwrap_or("");
        let theirs = pulled_stamps.get(column).and_then(Json::as_str).unwrap_or("");
        let (winner, value) = if mine > theirs {
            local_won = true;
            (mine, local.get(column).cloned().unwrap_or(Value::Null))
        } else {
            (theirs, row[column].clone())
        };
        row.insert(column.to_string(), value);
        if !winner.is_empty() {
            stamps.insert(column.to_string(), winner.into());
        }
    }
    // A delete is just another write that can lose.
    let deleted = stamps.get("deleted_ms").and_then(Json::as_str).unwrap_or("").to_string();
    let newest_other = stamped.iter().filter(|&&c| c != "deleted_ms").filter_map(|c| stamps.get(*c).and_then(Json::as_str)).max().unwrap_or("").to_string();
    if row["deleted_ms"] != Value::Null && newest_other > deleted {
        row.insert("deleted_ms".into(), Value::Null);
        stamps.insert("deleted_ms".into(), newest_other.clone().into());
    }
    let newest = stamps.values().filter_map(Json::as_str).max().unwrap_or("").to_string();
    if let Some((ms, device)) = newest.split_once(':') {
        row.insert("updated_ms".into(), Value::Integer(ms.parse()?));
        row.insert("device_id".into(), Value::Text(device.into()));
    }
    row.insert("column_stamps".into(), Value::Text(Json::Object(stamps).to_string()));
    let dirty = local_won && matches!(local.get("_dirty"), Some(Value::Integer(1)));
    store::upsert(conn, table, &row, dirty)?;
    Ok(with_dirty(row, dirty))
}

fn with_dirty(mut row: HashMap<String, Value>, dirty: bool) -> HashMap<String, Value> {
    row.insert("_dirty".into(), Value::Integer(dirty as i64));
    row
}
