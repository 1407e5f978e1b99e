//! The habit app's desktop client: applies the generated migrations to a real SQLite file,
//! writes and reads rows through the generated table list, and merges a pulled row column by
//! column as docs/PROTOCOL.md says. The tests run it against files the Swift runtime wrote.
//!
//!     habit-rust-client write FILE   migrate, save a habit, list the habits
//!     habit-rust-client read FILE    migrate, list the habits
//!     habit-rust-client merge FILE   migrate, save a habit, apply a pulled version of it
//!     habit-rust-client pull-request FILE [PAGE_LIMIT]
//!                                    migrate, print the pull function's request
//!     habit-rust-client pull-answer FILE ANSWER [PAGE_LIMIT]
//!                                    migrate, apply the pull function's answer (a JSON file),
//!                                    list what the file holds and print the next request

#[path = "../../HabitApp/Generated/rust/tables.rs"]
mod tables;

mod cursors;
mod merge;
mod pull;
mod store;

use rusqlite::types::Value;
use std::collections::HashMap;

/// The user the Swift side of the tests uses too.
const USER: &str = "00000000-0000-4000-8000-000000000001";
const HABIT_ID: &str = "11111111-1111-4111-8111-111111111111";
const DEVICE: &str = "rust-desktop";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [mode, path, rest @ ..] = arguments.as_slice() else {
        return Err("usage: habit-rust-client write|read|merge|pull-request|pull-answer FILE [ANSWER] [PAGE_LIMIT]".into());
    };
    let mut conn = rusqlite::Connection::open(path)?;
    store::migrate(&mut conn, 1_764_540_000_000)?;
    match (mode.as_str(), rest) {
        ("write", []) => save_habit(&conn)?,
        ("read", []) => {}
        ("merge", []) => {
            save_habit(&conn)?;
            let merged = merge::apply_pulled(&conn, &tables::HABITS, &pulled_habit())?;
            println!("merged: {}", describe(&merged));
        }
        ("pull-request", []) => println!("next: {}", pull::next_request(&conn, 1_000)?),
        ("pull-request", [limit]) => println!("next: {}", pull::next_request(&conn, limit.parse()?)?),
        ("pull-answer", [answer, limit @ ..]) => {
            let limit = limit.first().map(|l| l.parse()).transpose()?.unwrap_or(1_000);
            let answer: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(answer)?)?;
            let applied = pull::apply_answer(&mut conn, &answer)?;
            if applied.idle {
                println!("idle: nothing new");
            }
            for (table, count) in &applied.tables {
                println!("applied {table}: {count} rows");
            }
            for table in &applied.drifted {
                println!("drift: {table}");
            }
            if applied.more {
                println!("more: a page was full");
            }
            print_pull_state(&conn)?;
            println!("next: {}", pull::next_request(&conn, limit)?);
        }
        _ => return Err(format!("unknown mode or arguments: {mode} {}", rest.join(" ")).into()),
    }
    for row in store::read_all(&conn, &tables::HABITS)? {
        if mode == "pull-answer" {
            println!("habit: {}", describe(&row));
        } else {
            println!("habit: {}, {} a week", text(&row, "name"), integer(&row, "per_week"));
        }
    }
    Ok(())
}

/// What a pull leaves in the file: every check-in (habits are listed after every mode), each
/// table's cursor and the kept mark.
fn print_pull_state(conn: &rusqlite::Connection) -> Result<(), Box<dyn std::error::Error>> {
    for row in store::read_all(conn, &tables::CHECK_INS)? {
        let note = if row.get("note") == Some(&Value::Null) { "none".into() } else { text(&row, "note") };
        println!("check-in: {} of {}, note {note}", text(&row, "day"), text(&row, "habit_id"));
    }
    for table in tables::TABLES {
        println!("cursor {}: {}", table.name, cursors::cursor(conn, table)?);
    }
    match cursors::kept_mark(conn, tables::TABLES)? {
        Some(mark) => println!("mark: {mark}"),
        None => println!("mark: none"),
    }
    Ok(())
}

/// A local save: every user column stamped with this device's pair, the row marked dirty.
fn save_habit(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    let updated_ms: i64 = 1_764_540_000_000;
    let stamp = merge::stamp(updated_ms, DEVICE);
    let tables::ConflictMode::LastWriterWinsByColumn { stamped } = tables::HABITS.conflict else {
        panic!("habits merges column by column");
    };
    let stamps: serde_json::Map<String, serde_json::Value> =
        stamped.iter().map(|column| (column.to_string(), stamp.clone().into())).collect();
    let mut row: HashMap<String, Value> = HashMap::new();
    row.insert("id".into(), Value::Text(HABIT_ID.into()));
    row.insert("user_id".into(), Value::Text(USER.into()));
    row.insert("name".into(), Value::Text("Written by Rust".into()));
    row.insert("per_week".into(), Value::Integer(5));
    row.insert("archived".into(), Value::Integer(0));
    row.insert("updated_ms".into(), Value::Integer(updated_ms));
    row.insert("deleted_ms".into(), Value::Null);
    row.insert("device_id".into(), Value::Text(DEVICE.into()));
    row.insert("column_stamps".into(), Value::Text(serde_json::Value::Object(stamps).to_string()));
    row.insert("server_seq".into(), Value::Null);
    store::upsert(conn, &tables::HABITS, &row, true)
}

/// The same habit as a pull returns it after the phone renamed it later, and set `per_week`
/// earlier than this device did (PostgREST's JSON: every column, column_stamps an object).
fn pulled_habit() -> serde_json::Value {
    serde_json::json!({
        "id": HABIT_ID, "user_id": USER, "name": "Stretch daily", "per_week": 9, "archived": false,
        "updated_ms": 1_764_540_000_500_i64, "deleted_ms": null, "device_id": "phone",
        "column_stamps": {
            "name": "001764540000500:phone", "per_week": "001764539999000:phone",
            "archived": "001764539999000:phone", "deleted_ms": "001764539999000:phone"
        },
        "server_seq": 42
    })
}

fn describe(row: &HashMap<String, Value>) -> String {
    format!(
        "name={}, per_week={}, updated_ms={}, device_id={}, server_seq={}, dirty={}",
        text(row, "name"), integer(row, "per_week"), integer(row, "updated_ms"),
        text(row, "device_id"), integer(row, "server_seq"), integer(row, "_dirty")
    )
}

fn text(row: &HashMap<String, Value>, column: &str) -> String {
    match row.get(column) {
        Some(Value::Text(value)) => value.clone(),
        other => format!("{other:?}"),
    }
}

fn integer(row: &HashMap<String, Value>, column: &str) -> i64 {
    match row.get(column) {
        Some(Value::Integer(value)) => *value,
        _ => -1,
    }
}
