//! Test harness: starts the real `agent-session-host` binary on an ephemeral port with a
//! temporary database and talks to it over HTTP (ureq), SSE (agent-session's parser) and
//! WebSocket (tungstenite); both downlink carriers read into the same [`FrameStream`].
#![allow(dead_code)]

pub mod fake_model;

use agent_session_onepass::sse::{SseItem, SseParser};
use agent_session_wire::{parse_frame, Frame, InboundFrame};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
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
    /// The environment additions and stderr file every (re)start of this host gets.
    pub launch: Launch,
}

/// How a host process is started beyond its flags: environment additions and where its
/// stderr goes (`None`: discarded).
#[derive(Debug, Clone, Default)]
pub struct Launch {
    pub env: Vec<(String, String)>,
    pub stderr: Option<PathBuf>,
}

#[derive(Debug)]
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

fn spawn(db: &Path, args: &[String], launch: &Launch) -> (Child, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-session-host"));
    cmd.envs(launch.env.iter().map(|(k, v)| (k, v)));
    let stderr = match &launch.stderr {
        Some(path) => {
            Stdio::from(std::fs::OpenOptions::new().create(true).append(true).open(path).expect("host stderr file"))
        }
        None => Stdio::null(),
    };
    spawn_cmd(cmd, db, args, stderr)
}

/// Starts the host through `cmd` (the host binary, or a wrapper that execs it with the
/// arguments that follow) on a free port with database `db`; returns the child and the base
/// URL its first stdout line names.
pub fn spawn_with(cmd: Command, db: &Path, args: &[impl AsRef<std::ffi::OsStr>]) -> (Child, String) {
    spawn_cmd(cmd, db, args, Stdio::null())
}

fn spawn_cmd(mut cmd: Command, db: &Path, args: &[impl AsRef<std::ffi::OsStr>], stderr: Stdio) -> (Child, String) {
    let mut child = cmd
        .arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--db")
        .arg(db)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
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
        Host::launch_at(db, args, Launch::default())
    }

    /// [`Host::start`] with environment additions and a stderr file.
    pub fn launch(args: &[&str], launch: Launch) -> Host {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("nested/dir/host.sqlite");
        let mut h = Host::launch_at(&db, args, launch);
        h._dir = Some(dir);
        h
    }

    pub fn launch_at(db: &Path, args: &[&str], launch: Launch) -> Host {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (child, base) = spawn(db, &args, &launch);
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
            launch,
        }
    }

    /// `kill -9`, then a new process on the same database (same flags).
    pub fn kill9_and_restart(&mut self) {
        self.child.kill().expect("kill -9");
        let _ = self.child.wait();
        self.restart();
    }

    /// The host process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` to the host and waits (bounded) for it to exit.
    pub fn signal_and_wait(&mut self, signal: i32, within: Duration) {
        // SAFETY: signalling our own child process.
        unsafe {
            libc::kill(self.child.id() as i32, signal);
        }
        let deadline = Instant::now() + within;
        while self.child.try_wait().expect("try_wait").is_none() {
            assert!(Instant::now() < deadline, "host did not exit within {within:?} of signal {signal}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A new process on the same database, flags and launch, once the last one exited (one
    /// still running is killed first: a test never leaves a host behind).
    pub fn restart(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let (child, base) = spawn(&self.db, &self.args, &self.launch);
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

    pub fn mux(&self) -> FrameStream {
        self.stream("/api/events.mux")
    }

    pub fn host_stream(&self) -> FrameStream {
        self.stream("/api/events.host")
    }

    /// A downlink over `carrier`, ready for frames: SSE's `: connected` comment (which
    /// WebSocket does not have) is checked and consumed. WebSocket sends the bearer token
    /// when the host has one.
    pub fn open(&self, carrier: Carrier, path: &str) -> FrameStream {
        match carrier {
            Carrier::Sse => {
                let mut s = self.stream(path);
                assert!(matches!(s.next(WAIT), Some(Item::Comment(c)) if c == "connected"));
                s
            }
            Carrier::Ws => {
                let auth = self.token.as_ref().map(|t| format!("Bearer {t}"));
                let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("authorization", a.as_str())).collect();
                self.ws(path, &headers).unwrap_or_else(|r| panic!("upgrade {path}: {} {}", r.status, r.body))
            }
        }
    }

    /// A WebSocket upgrade of `path` (query allowed) with exactly `headers` (plus `Host`
    /// unless given); a refused upgrade is returned as the HTTP answer.
    pub fn ws(&self, path: &str, headers: &[(&str, &str)]) -> Result<FrameStream, Raw> {
        use tungstenite::client::IntoClientRequest;
        let addr = self.base.trim_start_matches("http://");
        let mut req = format!("ws://{addr}{path}").into_client_request().expect("ws request");
        for (k, v) in headers {
            let name = tungstenite::http::HeaderName::from_bytes(k.as_bytes()).expect("header name");
            req.headers_mut().insert(name, v.parse().expect("header value"));
        }
        let tcp = TcpStream::connect(addr).expect("connect");
        tcp.set_read_timeout(Some(WAIT)).expect("timeout");
        match tungstenite::client(req, tcp.try_clone().expect("clone")) {
            Ok((socket, resp)) => {
                tcp.set_read_timeout(None).expect("timeout");
                let mut stream = FrameStream::read_ws(socket, tcp);
                stream.protocol =
                    resp.headers().get("sec-websocket-protocol").map(|v| v.to_str().unwrap_or_default().to_string());
                Ok(stream)
            }
            Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp))) => Err(Raw {
                status: resp.status().as_u16(),
                content_type: resp
                    .headers()
                    .get("content-type")
                    .map(|v| v.to_str().unwrap_or_default().to_string())
                    .unwrap_or_default(),
                headers: resp
                    .headers()
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
                    .collect(),
                body: String::from_utf8_lossy(resp.body().as_deref().unwrap_or_default()).into_owned(),
            }),
            Err(e) => panic!("upgrade {path}: {e}"),
        }
    }

    pub fn stream(&self, path: &str) -> FrameStream {
        let agent = ureq::AgentBuilder::new().build();
        let mut req = agent.get(&self.url(path));
        if let Some(t) = &self.token {
            req = req.set("authorization", &format!("Bearer {t}"));
        }
        let resp = req.call().expect("open stream");
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.header("content-type"), Some("text/event-stream"));
        FrameStream::read_sse(resp.into_reader())
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

/// The two downlink carriers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    Sse,
    Ws,
}

pub const CARRIERS: [Carrier; 2] = [Carrier::Sse, Carrier::Ws];

#[derive(Debug)]
pub enum Item {
    Comment(String),
    Frame(InboundFrame),
    /// A `data:` payload or WebSocket message that failed the two-level frame parse.
    Bad(String),
    /// A WebSocket close frame: its code (1005 when it had none, as browsers report it) and reason.
    Close(u16, String),
    End,
}

/// A downlink read on a thread; items arrive in order.
pub struct FrameStream {
    rx: mpsc::Receiver<Item>,
    pub ended: bool,
    /// The WebSocket's write side (WebSocket downlinks only).
    ws: Option<(tungstenite::WebSocket<TcpStream>, TcpStream)>,
    /// The subprotocol the host selected (WebSocket downlinks only).
    pub protocol: Option<String>,
}

impl Drop for FrameStream {
    fn drop(&mut self) {
        if let Some((_, tcp)) = &self.ws {
            let _ = tcp.shutdown(std::net::Shutdown::Both);
        }
    }
}

impl FrameStream {
    fn read_ws(mut socket: tungstenite::WebSocket<TcpStream>, tcp: TcpStream) -> FrameStream {
        use tungstenite::protocol::{Role, WebSocket};
        let (tx, rx) = mpsc::channel();
        let writer = WebSocket::from_raw_socket(tcp.try_clone().expect("clone"), Role::Client, None);
        std::thread::spawn(move || {
            loop {
                let item = match socket.read() {
                    Ok(tungstenite::Message::Text(t)) => match parse_frame(t.as_str()) {
                        Ok(f) => Item::Frame(f),
                        Err(_) => Item::Bad(t.to_string()),
                    },
                    Ok(tungstenite::Message::Binary(b)) => Item::Bad(format!("binary message of {} bytes", b.len())),
                    Ok(tungstenite::Message::Close(c)) => match c {
                        Some(c) => Item::Close(c.code.into(), c.reason.to_string()),
                        None => Item::Close(1005, String::new()),
                    },
                    Ok(_) => continue,
                    Err(_) => break,
                };
                if tx.send(item).is_err() {
                    return;
                }
            }
            let _ = tx.send(Item::End);
        });
        FrameStream { rx, ended: false, ws: Some((writer, tcp)), protocol: None }
    }

    /// Sends a message upstream (WebSocket downlinks only).
    fn send(&mut self, message: tungstenite::Message) {
        let (writer, _) = self.ws.as_mut().expect("a WebSocket downlink");
        writer.send(message).expect("send");
    }

    pub fn send_text(&mut self, text: &str) {
        self.send(tungstenite::Message::text(text));
    }

    pub fn send_binary(&mut self, bytes: &[u8]) {
        self.send(tungstenite::Message::binary(bytes.to_vec()));
    }

    pub fn read_sse(mut reader: impl Read + Send + 'static) -> FrameStream {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut parser = SseParser::default();
            let mut buf = [0u8; 16 * 1024];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut out = Vec::new();
                parser.push(&buf[..n], &mut out);
                for item in out.drain(..) {
                    let item = match item {
                        SseItem::Comment(c) => Item::Comment(c),
                        SseItem::Data(d) => match parse_frame(&d) {
                            Ok(f) => Item::Frame(f),
                            Err(_) => Item::Bad(d.into_owned()),
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
        FrameStream { rx, ended: false, ws: None, protocol: None }
    }

    pub fn next(&mut self, timeout: Duration) -> Option<Item> {
        let item = self.rx.recv_timeout(timeout).ok();
        if matches!(item, Some(Item::End)) {
            self.ended = true;
        }
        item
    }

    /// Next frame (skipping comments); panics on timeout, end, a close or a bad frame.
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
