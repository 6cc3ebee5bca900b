//! Replays the hand-written transcripts of `fixtures/head/` (their README gives the format):
//! each request is sent with its `$NAME`s bound, and the answer and the host frames that
//! follow it must match the transcript's.

use crate::common::Host;
use agent_session_onepass::sse::{SseItem, SseParser};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One request of a transcript, its answer and the host frames listed after it.
pub struct Exchange {
    pub method: String,
    pub request: Value,
    pub response: Value,
    pub frames: Vec<Value>,
}

pub fn fixtures() -> Vec<PathBuf> {
    fixtures_in("")
}

/// The transcripts of `fixtures/head/<sub>` (`""`: the folder itself), in name order.
pub fn fixtures_in(sub: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/head").join(sub);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/head")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

/// Replays transcript `file` against `host` (its setup's `$NAME` bindings in `names`): every
/// answer, and the host frames listed after it, arriving within `within`, in order.
pub fn replay(host: &Host, names: &[(String, String)], file: &Path, within: Duration) {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let frames = RawFrames::open(host);
    for (i, ex) in exchanges(&std::fs::read_to_string(file).unwrap()).iter().enumerate() {
        let raw = host.post(&format!("/api/{}", ex.method), &bind(&ex.request, names).to_string());
        assert_eq!(raw.status, 200, "{name} #{i}: {}", raw.body);
        check(&bind(&ex.response, names), &raw.json(), &format!("{name} #{i}")).unwrap();
        for expected in &ex.frames {
            let method = expected["method"].as_str().unwrap();
            let got = frames.next_of(method, within).unwrap_or_else(|| panic!("{name} #{i}: no {method} frame"));
            check(&bind(expected, names), &got, &format!("{name} #{i} {method}")).unwrap();
        }
    }
}

pub fn exchanges(text: &str) -> Vec<Exchange> {
    let mut out: Vec<Exchange> = Vec::new();
    for line in text.lines() {
        let json = |s: &str| serde_json::from_str::<Value>(s).unwrap_or_else(|e| panic!("{e}: {s}"));
        if let Some(body) = line.strip_prefix("> {") {
            let request = json(&format!("{{{body}"));
            let method = request["method"].as_str().expect("method").to_string();
            out.push(Exchange { method, request, response: Value::Null, frames: Vec::new() });
        } else if let Some(body) = line.strip_prefix("< {") {
            out.last_mut().expect("a request first").response = json(&format!("{{{body}"));
        } else if let Some((_, frame)) = line.strip_prefix("< [host @").and_then(|l| l.split_once("] ")) {
            out.last_mut().expect("a request first").frames.push(json(frame));
        }
    }
    out
}

/// `v` with every `$NAME` in its strings replaced (longer names first: `$DIR2` before `$DIR`).
pub fn bind(v: &Value, names: &[(String, String)]) -> Value {
    match v {
        Value::String(s) => {
            let mut names: Vec<&(String, String)> = names.iter().collect();
            names.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
            Value::String(names.iter().fold(s.clone(), |s, (n, v)| s.replace(n.as_str(), v)))
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| bind(x, names)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), bind(x, names))).collect()),
        other => other.clone(),
    }
}

/// Whether `got` is `expected`: the same members and values, `"<...>"` standing for any string.
pub fn check(expected: &Value, got: &Value, at: &str) -> Result<(), String> {
    match (expected, got) {
        (Value::String(e), Value::String(_)) if e.starts_with('<') && e.ends_with('>') => Ok(()),
        (Value::Object(e), Value::Object(g)) => {
            let (ek, gk): (Vec<&String>, Vec<&String>) = (e.keys().collect(), g.keys().collect());
            let (mut es, mut gs) = (ek.clone(), gk.clone());
            es.sort();
            gs.sort();
            if es != gs {
                return Err(format!("{at}: members {gs:?}, expected {es:?}"));
            }
            e.iter().try_for_each(|(k, x)| check(x, &g[k], &format!("{at}.{k}")))
        }
        (Value::Array(e), Value::Array(g)) if e.len() == g.len() => {
            e.iter().zip(g).enumerate().try_for_each(|(i, (x, y))| check(x, y, &format!("{at}[{i}]")))
        }
        _ if expected == got => Ok(()),
        _ => Err(format!("{at}: {got}, expected {expected}")),
    }
}

/// The host downlink as raw JSON envelopes (frame types the wire crate may not know yet).
pub struct RawFrames(mpsc::Receiver<Value>);

impl RawFrames {
    pub fn open(host: &Host) -> RawFrames {
        let resp = ureq::get(&host.url("/api/events.host")).call().expect("open the host downlink");
        let mut reader = resp.into_reader();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let (mut parser, mut buf) = (SseParser::default(), [0u8; 16 * 1024]);
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                let mut items = Vec::new();
                parser.push(&buf[..n], &mut items);
                for item in items {
                    if let SseItem::Data(d) = item {
                        let Ok(v) = serde_json::from_str(&d) else { continue };
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        RawFrames(rx)
    }

    /// The next frame of `method` (others skipped), within `within`.
    pub fn next_of(&self, method: &str, within: Duration) -> Option<Value> {
        let deadline = Instant::now() + within;
        loop {
            let v = self.0.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()?;
            if v["method"] == method {
                return Some(v);
            }
        }
    }

    /// Every frame that arrives within `within`.
    pub fn drain(&self, within: Duration) -> Vec<Value> {
        let deadline = Instant::now() + within;
        std::iter::from_fn(|| self.0.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()).collect()
    }
}
