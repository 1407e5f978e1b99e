//! A desktop client in Rust reading a file column as docs/PROTOCOL.md ("Files") says, with the
//! generated table list and nothing else (no crates: plain rustc builds it). Given a pulled row's
//! value of a file column, it finds the column's bucket in `tables.rs`, downloads the object from
//! the owner's folder, checks the bytes against the name, and keeps them under that name.
//!
//!     rust-file-client STORAGE_URL TOKEN USER_ID TABLE COLUMN VALUE FOLDER
//!
//! Prints `ok <name> <bytes>`, or `missing` when Storage has no such object (either shape), or
//! `refused <status>`.

#[path = "../../../Generated/rust/tables.rs"]
mod tables;

use std::io::{Read, Write};
use std::net::TcpStream;

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [url, token, user, table, column, value, folder] = arguments.as_slice() else {
        panic!("usage: rust-file-client STORAGE_URL TOKEN USER_ID TABLE COLUMN VALUE FOLDER");
    };
    let table = tables::TABLES.iter().find(|t| t.name == table).expect("no such table");
    let file = table.files.iter().find(|f| f.column == column).expect("not a file column");
    assert!(is_file_name(value), "not a file's name: {value}");
    let path = format!("/storage/v1/object/authenticated/{}/{}/{}", file.bucket, user, value);
    let (status, body) = get(url, &path, token);
    match status_meant(status, &body) {
        200 => {
            let digest = hex(&sha256(&body));
            assert_eq!(digest, value[..64], "the bytes do not match the name");
            std::fs::write(std::path::Path::new(folder).join(value), &body).expect("cannot keep the file");
            println!("ok {} {}", value, body.len());
        }
        404 => println!("missing"),
        other => println!("refused {other}"),
    }
}

/// `<64 lowercase hex digits>[.<1 to 16 lowercase letters or digits>]`.
fn is_file_name(name: &str) -> bool {
    let (hash, extension) = name.split_at(name.len().min(64));
    hash.len() == 64
        && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && (extension.is_empty()
            || (extension.starts_with('.')
                && (2..=17).contains(&extension.len())
                && extension[1..].bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())))
}

/// The status an answer means: Storage puts it in the body's `statusCode` of a 400.
fn status_meant(status: u16, body: &[u8]) -> u16 {
    if status != 400 {
        return status;
    }
    let text = String::from_utf8_lossy(body);
    let Some(start) = text.find("\"statusCode\"") else { return status };
    let value = text[start + 12..].trim_start_matches(|c: char| c == ':' || c == '"' || c.is_whitespace());
    value[..value.find(|c: char| !c.is_ascii_digit()).unwrap_or(value.len())].parse().unwrap_or(status)
}

/// One GET over HTTP/1.1 (`http://host:port` only: the tests' server).
fn get(url: &str, path: &str, token: &str) -> (u16, Vec<u8>) {
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(host).expect("cannot connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\napikey: anon\r\nConnection: close\r\n\r\n"
    )
    .expect("cannot send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("cannot read");
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n").expect("no header end") + 4;
    let head = String::from_utf8_lossy(&answer[..end]).to_string();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("no status");
    (status, answer[end..].to_vec())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 (FIPS 180-4).
fn sha256(message: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
        0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
        0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
        0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
        0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
        0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ];
    let mut h: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut data = message.to_vec();
    data.push(0x80);
    while data.len() % 64 != 56 {
        data.push(0);
    }
    data.extend_from_slice(&((message.len() as u64) * 8).to_be_bytes());
    for block in data.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes([block[4 * i], block[4 * i + 1], block[4 * i + 2], block[4 * i + 3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let choice = (e & f) ^ (!e & g);
            let t1 = hh.wrapping_add(s1).wrapping_add(choice).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let majority = (a & b) ^ (a & c) ^ (b & c);
            (hh, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(s0).wrapping_add(majority));
        }
        for (slot, value) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *slot = slot.wrapping_add(value);
        }
    }
    let mut digest = [0u8; 32];
    for (i, word) in h.iter().enumerate() {
        digest[4 * i..4 * i + 4].copy_from_slice(&word.to_be_bytes());
    }
    digest
}
