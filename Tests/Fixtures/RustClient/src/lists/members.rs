//! docs/PROTOCOL.md, "Membership" and "Retrying a membership write": sharing a scope, changing a
//! role, removing a member or leaving, written to the membership table at once (never queued),
//! and the answer read: the rows the server wrote, a repeat, a refusal, or "retry".

use crate::cursors::percent_encoded;
use crate::store;
use crate::tables::{Scope, Table, TABLES};
use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Value as Json};

/// Tries of a write that met another writer of the scope (55P03, 40P01), the Swift runtime's.
const TRIES: i64 = 4;

/// The membership write waiting for its answer: scope, user, the role (None: the membership
/// ends), how many times it was sent.
pub fn create_bookkeeping(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS _membership_write (scope_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT, tries INTEGER NOT NULL)",
    )
}

/// The membership table of `scope_table` (`<scope table>_members`), as the table list names it.
pub fn membership_table(scope_table: &Table) -> Result<&'static Table, String> {
    let Some(Scope::Scope { members }) = scope_table.scope() else {
        return Err(format!("{} is not a scope table", scope_table.name));
    };
    TABLES.iter().find(|t| t.name == members).ok_or_else(|| format!("{members} is not in the table list"))
}

/// Records the write (`role` None: remove the member, or leave when `user` is the caller) and
/// returns its request.
pub fn change(conn: &Connection, members: &Table, scope: &str, user: &str, role: Option<&str>) -> Result<String, Box<dyn std::error::Error>> {
    if let Some(role) = role.filter(|r| !["owner", "editor", "viewer"].contains(r)) {
        return Err(format!("{role} is not a role: owner, editor or viewer").into());
    }
    conn.execute("DELETE FROM _membership_write", [])?;
    conn.execute("INSERT INTO _membership_write (scope_id, user_id, role, tries) VALUES (?1, ?2, ?3, 1)", (scope, user, role))?;
    Ok(request(members, scope, user, role))
}

/// Share or change a role: an upsert on (scope_id, user_id); end one: `deleted_ms` set (the
/// server writes the time). Both ask for the rows written back.
fn request(members: &Table, scope: &str, user: &str, role: Option<&str>) -> String {
    let select = members.column_names().collect::<Vec<_>>().join(",");
    match role {
        Some(role) => format!(
            "POST /rest/v1/{}?on_conflict=scope_id,user_id&select={select}\nprefer: resolution=merge-duplicates,return=representation\nbody: {}",
            members.name,
            json!({"scope_id": scope, "user_id": user, "role": role, "deleted_ms": null})
        ),
        None => format!(
            "PATCH /rest/v1/{}?scope_id=eq.{}&user_id=eq.{}&select={select}\nprefer: return=representation\nbody: {}",
            members.name,
            percent_encoded(scope),
            percent_encoded(user),
            json!({"deleted_ms": 1})
        ),
    }
}

/// What the answer to the waiting write means; the membership rows it holds are stored. A write
/// to retry stays waiting and its request is printed again.
pub fn apply_answer(conn: &Connection, members: &Table, status: u16, answer: &Json) -> Result<String, Box<dyn std::error::Error>> {
    let (scope, user, role, tries): (String, String, Option<String>, i64) = conn
        .query_row("SELECT scope_id, user_id, role, tries FROM _membership_write", [], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .optional()?
        .ok_or("no membership write is waiting")?;
    if !(200..300).contains(&status) {
        let code = answer["code"].as_str().unwrap_or("");
        if ["55P03", "40P01"].contains(&code) && tries < TRIES {
            conn.execute("UPDATE _membership_write SET tries = tries + 1", [])?;
            let again = request(members, &scope, &user, role.as_deref());
            return Ok(format!("retry: {code}, after a backoff (try {} of {TRIES})\nnext: {again}", tries + 1));
        }
        conn.execute("DELETE FROM _membership_write", [])?;
        return Ok(format!("refused: {code}: {}", answer["message"].as_str().unwrap_or("")));
    }
    conn.execute("DELETE FROM _membership_write", [])?;
    let rows = answer.as_array().cloned().unwrap_or_default();
    for pulled in &rows {
        let row = members.columns.iter().map(|c| (c.name.to_string(), store::sqlite_value(&pulled[c.name], c.sqlite_type))).collect();
        store::upsert(conn, members, &row, false)?;
    }
    if !rows.is_empty() {
        return Ok(match role {
            Some(role) => format!("shared: {scope} with {user} as {role}"),
            None => format!("ended: {user} is no longer a member of {scope}"),
        });
    }
    // Row-level security let nothing through, or a repeat changed nothing.
    if role.is_some() {
        return Ok("repeat: nothing changed".into());
    }
    let ended: Option<Option<i64>> = conn
        .query_row(&format!("SELECT deleted_ms FROM \"{}\" WHERE scope_id = ?1 AND user_id = ?2", members.name), (&scope, &user), |row| {
            row.get(0)
        })
        .optional()?;
    Ok(match ended {
        Some(Some(_)) => "repeat: the membership had ended already".into(),
        _ => format!("refused: not an owner of {scope}, or {user} is not a member"),
    })
}
