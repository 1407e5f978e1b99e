//! The task lists' desktop client: syncs shared lists (docs/PROTOCOL.md, "Sharing (scopes)")
//! with rusqlite and the project's generated tables.rs, written from the protocol alone. Like
//! the habit client it speaks no HTTP: a mode prints the request to send (`next: METHOD PATH`,
//! then `prefer:` and `body:` lines) and a later mode applies its answer (a file), so a test can
//! run each request on PostgreSQL as PostgREST would, as the user it signs in.
//!
//!     lists-rust-client pull-request FILE [PAGE_LIMIT]
//!     lists-rust-client pull-answer FILE ANSWER [PAGE_LIMIT]     the pull function's answer
//!     lists-rust-client edit FILE TASK_ID TITLE                   a local edit of a task's title
//!     lists-rust-client push-request FILE                          the first queued edit's request
//!     lists-rust-client push-answer FILE STATUS ANSWER
//!     lists-rust-client share FILE LIST_ID USER_ID ROLE            add a member, or change a role
//!     lists-rust-client remove FILE LIST_ID USER_ID                remove a member, or leave
//!     lists-rust-client membership-answer FILE STATUS ANSWER
//!
//! Every mode then lists what the file holds.

#[path = "../../../../../Generated/rust/tables.rs"]
mod tables;

#[path = "../cursors.rs"]
mod cursors;
#[path = "../store.rs"]
mod store;

mod edits;
mod members;
mod streams;

use rusqlite::types::Value;
use rusqlite::Connection;
use serde_json::Value as Json;
use std::collections::HashMap;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [mode, path, rest @ ..] = arguments.as_slice() else {
        return Err("usage: lists-rust-client MODE FILE [ARGUMENTS] (see main.rs)".into());
    };
    let mut conn = Connection::open(path)?;
    store::migrate(&mut conn, 1_764_540_000_000)?;
    streams::create_bookkeeping(&conn)?;
    edits::create_bookkeeping(&conn)?;
    members::create_bookkeeping(&conn)?;
    let members = members::membership_table(&tables::TASK_LISTS)?;
    let mut page_limit = 1_000;
    match (mode.as_str(), rest) {
        ("pull-request", limit) => page_limit = limit.first().map(|l| l.parse()).transpose()?.unwrap_or(1_000),
        ("pull-answer", [answer, limit @ ..]) => {
            page_limit = limit.first().map(|l| l.parse()).transpose()?.unwrap_or(1_000);
            let applied = streams::apply_answer(&mut conn, &read_json(answer)?)?;
            if applied.idle {
                println!("idle: nothing new");
            }
            for scope in &applied.ended {
                println!("ended: {scope}");
            }
            for (stream, count) in &applied.pages {
                println!("applied {stream}: {count} rows");
            }
            println!("exits removed: {}", applied.exited);
            for table in &applied.drifted {
                println!("drift: {table}");
            }
            if applied.more {
                println!("more: a page was full");
            }
        }
        ("edit", [task, title]) => {
            let values = serde_json::json!({ "title": title });
            match edits::edit(&conn, &tables::TASKS, task, values.as_object().expect("an object")) {
                Ok(()) => println!("edited: {task}"),
                Err(error) => println!("{error}"),
            }
        }
        ("push-request", []) => {}
        ("push-answer", [status, answer]) => println!("{}", edits::apply_push_answer(&conn, status.parse()?, &read_json(answer)?)?),
        ("share", [list, user, role]) => println!("next: {}", members::change(&conn, members, list, user, Some(role))?),
        ("remove", [list, user]) => println!("next: {}", members::change(&conn, members, list, user, None)?),
        ("membership-answer", [status, answer]) => {
            println!("{}", members::apply_answer(&conn, members, status.parse()?, &read_json(answer)?)?)
        }
        _ => return Err(format!("unknown mode or arguments: {mode} {}", rest.join(" ")).into()),
    }
    print_state(&conn, members)?;
    if mode.starts_with("pull-") {
        println!("next: {}", streams::next_request(&conn, page_limit)?);
    } else if mode.starts_with("push-") || mode == "edit" {
        match edits::next_push(&conn)? {
            Some(request) => println!("next: {request}"),
            None => println!("push: nothing queued"),
        }
    }
    Ok(())
}

fn read_json(path: &str) -> Result<Json, Box<dyn std::error::Error>> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

/// What the file holds: the scopes and roles, lists, tasks, memberships, cursors, the kept mark
/// and the rejected edits.
fn print_state(conn: &Connection, members: &tables::Table) -> Result<(), Box<dyn std::error::Error>> {
    for (id, scope_table, role) in streams::known_scopes(conn)? {
        println!("scope {id}: {role} of {scope_table}");
    }
    for row in store::read_all(conn, &tables::TASK_LISTS)? {
        println!("list: {} name={} dirty={}", text(&row, "id"), text(&row, "name"), text(&row, "_dirty"));
    }
    for row in store::read_all(conn, &tables::TASKS)? {
        println!("task: {} title={} list={} dirty={}", text(&row, "id"), text(&row, "title"), text(&row, "list_id"), text(&row, "_dirty"));
    }
    for row in store::read_all(conn, members)? {
        let state = if row.get("deleted_ms") == Some(&Value::Null) { "current" } else { "ended" };
        println!("member: {} {} {} {state}", text(&row, "scope_id"), text(&row, "user_id"), text(&row, "role"));
    }
    for table in streams::SYNCED {
        let own = cursors::cursor(conn, table)?;
        if own > 0 {
            println!("cursor {}: {own}", table.name);
        }
        for (id, _, _) in streams::known_scopes(conn)? {
            println!("cursor {id}/{}: {}", table.name, streams::scope_cursor(conn, &id, table)?);
        }
    }
    match cursors::kept_mark(conn, streams::SYNCED)? {
        Some(mark) => println!("mark: {mark}"),
        None => println!("mark: none"),
    }
    for [table, id, body, reason] in edits::rejected(conn)? {
        println!("rejected: {table} {id} {body}: {reason}");
    }
    Ok(())
}

fn text(row: &HashMap<String, Value>, column: &str) -> String {
    match row.get(column) {
        Some(Value::Text(value)) => value.clone(),
        Some(Value::Integer(value)) => value.to_string(),
        Some(Value::Null) => "none".into(),
        other => format!("{other:?}"),
    }
}
