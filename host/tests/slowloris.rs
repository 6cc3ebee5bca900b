//! Slow clients (slowloris): connections that send part of a request head and then nothing
//! are closed after `--header-timeout-ms`, so the host keeps serving new clients even when
//! the stalled ones outnumber its descriptors.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Kills the host when the test ends, passing or not.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The host under `ulimit -n 256` (as in the adversarial run), on a free port; returns the
/// child and its `host:port`.
fn spawn_limited(db: &std::path::Path, args: &[&str]) -> (Child, String) {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(r#"ulimit -n 256 && exec "$0" "$@""#).arg(env!("CARGO_BIN_EXE_agent-session-host"));
    let (child, base) = common::spawn_with(sh, db, args);
    let addr = base.strip_prefix("http://").unwrap_or_else(|| panic!("bad base {base:?}")).to_string();
    (child, addr)
}

/// One `host.describe` on a new connection; its status line, or why there was none.
fn describe(addr: &str, timeout: Duration) -> Result<String, String> {
    let to = addr.parse().map_err(|e| format!("{addr}: {e}"))?;
    let mut s = TcpStream::connect_timeout(&to, timeout).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(timeout)).map_err(|e| e.to_string())?;
    s.set_write_timeout(Some(timeout)).map_err(|e| e.to_string())?;
    let body = r#"{"type":"client-request","rpcId":"r1","method":"host.describe","payload":{}}"#;
    let req = format!(
        "POST /api/host.describe HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| format!("write: {e}"))?;
    let mut text = String::new();
    s.read_to_string(&mut text).map_err(|e| format!("read: {e}"))?;
    let status = text.lines().next().unwrap_or_default().to_string();
    match status.starts_with("HTTP/1.1 200") && text.contains(r#""ok":true"#) {
        true => Ok(status),
        false => Err(format!("answer: {text}")),
    }
}

#[test]
fn a_new_client_is_served_while_1000_connections_hold_partial_requests() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (child, addr) = spawn_limited(&dir.path().join("host.sqlite"), &["--header-timeout-ms", "1000"]);
    let _host = Killed(child);
    let start = Instant::now();
    let mut held = Vec::new();
    for _ in 0..1000 {
        let Ok(mut s) = TcpStream::connect(&addr) else { continue };
        // A request head that never ends.
        let _ = s.write_all(format!("POST /api/host.describe HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").as_bytes());
        held.push(s);
    }
    assert!(held.len() >= 900, "only {} slow connections were opened", held.len());
    // The new client, while every slow connection is still held open by its sender.
    let served = describe(&addr, Duration::from_secs(30));
    let took = start.elapsed();
    println!("slowloris: {} partial requests held; a new host.describe answered after {took:?}", held.len());
    assert!(served.is_ok(), "{served:?}");
    // The host closed stalled connections (they did not just wait in the backlog).
    let first = &mut held[0];
    first.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = [0u8; 512];
    let closed = match first.read(&mut buf) {
        Ok(0) => true,
        Ok(n) => String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 408"),
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    };
    assert!(closed, "a slow connection was not closed by the host");
}

/// Half-open connections outnumbering the descriptors, well inside the (default, 10 s) header
/// timeout: the oldest of them give up their descriptors, so a new client is served at once.
#[test]
fn a_new_client_is_served_within_a_second_while_400_half_open_connections_hold_256_descriptors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (child, addr) = spawn_limited(&dir.path().join("host.sqlite"), &[]);
    let _host = Killed(child);
    let to = addr.parse().expect("addr");
    let mut held = Vec::new();
    for i in 0..400 {
        let Ok(mut s) = TcpStream::connect_timeout(&to, Duration::from_millis(200)) else { continue };
        // Half of them send nothing, half part of a request head.
        if i % 2 == 1 {
            let _ = s.write_all(format!("GET /api/events.mux HTTP/1.1\r\nHost: {addr}\r\n").as_bytes());
        }
        held.push(s);
    }
    assert!(held.len() >= 300, "only {} half-open connections were opened", held.len());
    let start = Instant::now();
    let served = describe(&addr, Duration::from_secs(1));
    let took = start.elapsed();
    println!("half-open: {} held; a new host.describe answered after {took:?}", held.len());
    assert!(served.is_ok() && took < Duration::from_secs(1), "{served:?} after {took:?}");
    drop(held);
}

#[test]
fn the_timeout_flags_refuse_zero() {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-session-host"))
        .args(["--header-timeout-ms", "0", "--listen", "127.0.0.1:0"])
        .output()
        .expect("run host");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("header-timeout-ms"));
}
