//! Test harness: starts the real `agent-session-host` binary on an ephemeral port with a
//! temporary database and talks to it over HTTP (ureq) and SSE (agent-session's parser).
#![allow(dead_code)]

use agent_session::core::sse::{SseItem, SseParser};
use agent_session::core::wire::{parse_frame, Frame, InboundFrame};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const WAIT: Duration = Duration::from_secs(10);

/// The origin host's captured transcripts, kept in the repository (`tests/fixtures/wire/`).
pub fn captures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wire")
}

pub struct Host {
    child: Child,
    pub base: String,
    pub db: PathBuf,
    pub args: Vec<String>,
    _dir: Option<tempfile::TempDir>,
    agent: ureq::Agent,
    next_id: AtomicU64,
    pub token: Option<String>,
}

pub struct Raw {
    pub status: u16,
    pub content_type: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Raw {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

fn spawn(db: &Path, args: &[String]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-session-host"))
        .arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--db")
        .arg(db)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn host");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("first line");
    let base =
        line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("bad first line {line:?}")).to_string();
    (child, base)
}

impl Host {
    pub fn start(args: &[&str]) -> Host {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("nested/dir/host.sqlite");
        let mut h = Host::start_at(&db, args);
        h._dir = Some(dir);
        h
    }

    pub fn start_at(db: &Path, args: &[&str]) -> Host {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (child, base) = spawn(db, &args);
        let token = args.iter().position(|a| a == "--token").and_then(|i| args.get(i + 1)).cloned();
        Host {
            child,
            base,
            db: db.to_path_buf(),
            args,
            _dir: None,
            agent: ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).max_idle_connections(0).build(),
            next_id: AtomicU64::new(1),
            token,
        }
    }

    /// `kill -9`, then a new process on the same database (same flags).
    pub fn kill9_and_restart(&mut self) {
        self.child.kill().expect("kill -9");
        let _ = self.child.wait();
        let (child, base) = spawn(&self.db, &self.args);
        self.child = child;
        self.base = base;
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Raw {
        let mut req = self.agent.request(method, &self.url(path));
        if let Some(t) = &self.token {
            req = req.set("authorization", &format!("Bearer {t}"));
        }
        for (k, v) in headers {
            req = req.set(k, v);
        }
        let res = match body {
            Some(b) => req.send_string(b),
            None => req.call(),
        };
        let resp = match res {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let status = resp.status();
        let headers = resp
            .headers_names()
            .into_iter()
            .map(|n| {
                let v = resp.header(&n).unwrap_or_default().to_string();
                (n, v)
            })
            .collect();
        let content_type = resp.header("content-type").unwrap_or_default().to_string();
        let body = resp.into_string().expect("body");
        Raw { status, content_type, headers, body }
    }

    pub fn post(&self, path: &str, body: &str) -> Raw {
        self.request("POST", path, &[("content-type", "application/json")], Some(body))
    }

    /// A full RPC; returns the response envelope after checking its shape and rpcId echo.
    pub fn envelope(&self, method: &str, payload: Value) -> Value {
        let rpc_id = format!("t-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let body = json!({ "type": "client-request", "rpcId": rpc_id, "method": method, "payload": payload });
        let raw = self.post(&format!("/api/{method}"), &body.to_string());
        assert_eq!(raw.status, 200, "{method}: {}", raw.body);
        assert!(raw.content_type.starts_with("application/json"), "{}", raw.content_type);
        let env = raw.json();
        assert_eq!(env["type"], "server-response");
        assert_eq!(env["rpcId"], rpc_id.as_str());
        env
    }

    /// The `ok` value of an RPC (panics on a business error).
    pub fn call(&self, method: &str, payload: Value) -> Value {
        let env = self.envelope(method, payload);
        assert_eq!(env["result"]["ok"], true, "{method}: {env}");
        env["result"]["value"].clone()
    }

    /// The error of an RPC that must fail.
    pub fn call_err(&self, method: &str, payload: Value) -> Value {
        let env = self.envelope(method, payload);
        assert_eq!(env["result"]["ok"], false, "{method}: {env}");
        env["result"]["error"].clone()
    }

    pub fn create(&self) -> String {
        self.call("session.create", json!({ "cwd": "/workspace/project" }))["sessionId"]
            .as_str()
            .expect("sessionId")
            .to_string()
    }

    pub fn prompt(&self, sid: &str, mode: &str, text: &str) {
        let v = self.call(
            "session.prompt",
            json!({ "sessionId": sid, "mode": mode, "content": [{ "type": "text", "text": text }] }),
        );
        assert_eq!(v, json!({ "accepted": true }));
    }

    pub fn history(&self, sid: &str, extra: Value) -> Value {
        let mut p = json!({ "sessionId": sid });
        if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        self.call("session.history", p)
    }

    /// Every event of the session (pages back until the start).
    pub fn all_events(&self, sid: &str) -> Vec<Value> {
        let mut page = self.history(sid, json!({ "maxMessages": 500 }));
        let mut events: Vec<Value> = page["events"].as_array().cloned().unwrap_or_default();
        while page["hasMore"] == true {
            let before = events[0]["event"]["seq"].as_u64().expect("seq");
            page = self.history(sid, json!({ "beforeSeq": before, "maxMessages": 500 }));
            let mut older = page["events"].as_array().cloned().unwrap_or_default();
            older.extend(events);
            events = older;
        }
        events.into_iter().map(|i| i["event"].clone()).collect()
    }

    pub fn event_types(&self, sid: &str) -> Vec<String> {
        self.all_events(sid).iter().map(|e| e["type"].as_str().unwrap_or_default().to_string()).collect()
    }

    /// Polls the log until an event satisfies `pred` (bounded).
    pub fn wait_event(&self, sid: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + WAIT;
        loop {
            let events = self.all_events(sid);
            if events.iter().any(&pred) {
                return events;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}; log: {:?}", types(&events));
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn wait_turn_end(&self, sid: &str, turn: u64) -> Vec<Value> {
        self.wait_event(sid, &format!("turn/end of turn {turn}"), |e| {
            e["type"] == "turn/end" && e["data"]["turn"] == turn
        })
    }

    pub fn admin(&self, cmd: Value) -> Raw {
        self.post("/admin/faults", &cmd.to_string())
    }

    pub fn mux(&self) -> SseStream {
        self.stream("/api/events.mux")
    }

    pub fn host_stream(&self) -> SseStream {
        self.stream("/api/events.host")
    }

    pub fn stream(&self, path: &str) -> SseStream {
        let agent = ureq::AgentBuilder::new().build();
        let mut req = agent.get(&self.url(path));
        if let Some(t) = &self.token {
            req = req.set("authorization", &format!("Bearer {t}"));
        }
        let resp = req.call().expect("open stream");
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.header("content-type"), Some("text/event-stream"));
        SseStream::read(resp.into_reader())
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap_or_default()).collect()
}

#[derive(Debug)]
pub enum Item {
    Comment(String),
    Frame(InboundFrame),
    /// A `data:` payload that failed the two-level frame parse.
    Bad(String),
    End,
}

/// An SSE stream read on a thread; items arrive in order.
pub struct SseStream {
    rx: mpsc::Receiver<Item>,
    pub ended: bool,
}

impl SseStream {
    pub fn read(mut reader: impl Read + Send + 'static) -> SseStream {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut parser = SseParser::default();
            let mut buf = [0u8; 16 * 1024];
            let mut out = Vec::new();
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                parser.push(&buf[..n], &mut out);
                for item in out.drain(..) {
                    let item = match item {
                        SseItem::Comment(c) => Item::Comment(c),
                        SseItem::Data(d) => match parse_frame(&d) {
                            Ok(f) => Item::Frame(f),
                            Err(_) => Item::Bad(d),
                        },
                        SseItem::Oversize(n) => Item::Bad(format!("oversize {n}")),
                    };
                    if tx.send(item).is_err() {
                        return;
                    }
                }
            }
            let _ = tx.send(Item::End);
        });
        SseStream { rx, ended: false }
    }

    pub fn next(&mut self, timeout: Duration) -> Option<Item> {
        let item = self.rx.recv_timeout(timeout).ok();
        if matches!(item, Some(Item::End)) {
            self.ended = true;
        }
        item
    }

    /// Next frame (skipping comments); panics on timeout, end or a bad frame.
    pub fn frame(&mut self) -> InboundFrame {
        loop {
            match self.next(WAIT) {
                Some(Item::Frame(f)) => return f,
                Some(Item::Comment(_)) => continue,
                other => panic!("expected a frame, got {other:?}"),
            }
        }
    }

    /// Frames until (and including) the first that satisfies `pred`.
    pub fn until(&mut self, what: &str, pred: impl Fn(&Frame) -> bool) -> Vec<InboundFrame> {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left) {
                Some(Item::Frame(f)) => {
                    let done = pred(&f.frame);
                    seen.push(f);
                    if done {
                        return seen;
                    }
                }
                Some(Item::Comment(_)) => {}
                other => panic!("waiting for {what}: got {other:?} after {} frames", seen.len()),
            }
        }
    }

    /// Waits for the stream to end (bounded).
    pub fn wait_end(&mut self) -> Vec<Item> {
        let deadline = Instant::now() + WAIT;
        let mut seen = Vec::new();
        while !self.ended {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left) {
                Some(Item::End) => break,
                Some(i) => seen.push(i),
                None => panic!("stream did not end"),
            }
        }
        seen
    }
}

/// The type of a frame, with the event type for `session/event` frames.
pub fn frame_label(f: &Frame) -> String {
    match f {
        Frame::Event(e) => e.event.kind.clone(),
        other => format!("<{}>", other.type_name()),
    }
}

/// The seqs of the session events among `frames`, in stream order.
#[allow(dead_code)]
pub fn event_seqs(frames: &[InboundFrame]) -> Vec<u64> {
    frames.iter().filter_map(|f| f.frame.event()).map(|e| e.seq).collect()
}

pub fn is_turn_end(f: &Frame, turn: u64) -> bool {
    matches!(f, Frame::Event(e) if e.event.kind == "turn/end" && e.event.data_value()["turn"] == turn)
}
