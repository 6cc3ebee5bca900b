//! One agent process speaking JSON-RPC in JSON lines over stdio (`codex app-server`, and any
//! ACP agent: the ACP runtime shares this peer, described by a [`Peer`]): the host's requests
//! and their answers, and the routing of everything else to the thread (Codex) or session (ACP)
//! it names.
//!
//! - Every line is read the same way whichever request is outstanding (an answer and the
//!   notification after it can arrive in one read).
//! - A line is bounded ([`MAX_LINE_BYTES`]); a longer one, or one that is not a JSON object,
//!   is dropped, counted and reported to every subscribed thread as [`Inbound::Malformed`].
//! - stderr is kept as a bounded tail ([`STDERR_TAIL_BYTES`]) for the error a crash reports,
//!   and echoed to the host's stderr at most [`STDERR_ECHO_LINES`] lines per process.
//! - The child runs in its own process group and gets SIGKILL when the host dies (the parent-
//!   death signal), so no agent process outlives the host, SIGKILL of the host included.

use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};

/// A line of the agent's stdout longer than this is dropped (and reported).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// How much of the agent's stderr is kept for a crash report.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;
/// stderr lines echoed to the host's own stderr per process (the rest only kept in the tail).
pub const STDERR_ECHO_LINES: usize = 200;
/// Messages queued for one thread while nobody reads them; the reader waits at most
/// [`ROUTE_WAIT`] for room, then drops the message and counts it.
const THREAD_QUEUE: usize = 4096;
const ROUTE_WAIT: Duration = Duration::from_secs(5);

/// What kind of peer a child is: how its messages are named, routed and framed.
#[derive(Debug, Clone, Copy)]
pub struct Peer {
    /// How reports name the process (`codex app-server`, `acp agent`).
    pub name: &'static str,
    /// The prefix of its echoed stderr lines and of what it wrote that was dropped.
    pub label: &'static str,
    /// The JSON pointer of the id a message is routed by (`/params/threadId`).
    pub route: &'static str,
    /// Every message the host writes carries `"jsonrpc": "2.0"` (ACP requires it; Codex's
    /// app-server omits it).
    pub jsonrpc: bool,
}

impl Peer {
    /// The Codex app-server: routed by thread, no `jsonrpc` member.
    pub const CODEX: Peer =
        Peer { name: "codex app-server", label: "codex", route: "/params/threadId", jsonrpc: false };
}

/// What a thread's subscriber receives.
#[derive(Debug)]
pub enum Inbound {
    /// A notification or a server request naming the thread.
    Message(Value),
    /// A line that could not be read (its size and first bytes).
    Malformed(String),
    /// The process ended; why, with the tail of its stderr.
    Exited(String),
}

/// Why a request to the agent did not get a result.
#[derive(Debug, Clone)]
pub enum RequestError {
    /// Codex answered with a JSON-RPC error.
    Rpc { code: i64, message: String },
    /// No answer within the deadline: who, and to which method.
    Timeout { peer: &'static str, method: &'static str },
    /// The process is gone.
    Exited(String),
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::Rpc { code, message } => write!(f, "{message} (code {code})"),
            RequestError::Timeout { peer, method } => write!(f, "{peer} did not answer {method} in time"),
            RequestError::Exited(why) => f.write_str(why),
        }
    }
}

type Answer = Result<Value, RequestError>;

/// What the reader and the exit watcher share with the handle.
struct Shared {
    peer: Peer,
    /// The child's stdin, also for the reader's refusals of server requests nobody serves.
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    threads: Mutex<HashMap<String, mpsc::Sender<Inbound>>>,
    stderr: Mutex<VecDeque<u8>>,
    exited: watch::Sender<Option<String>>,
    malformed: AtomicU64,
    dropped: AtomicU64,
    /// The write end of the tree guard's stdin ([`super::guard`]): dropping it reaps every
    /// process the child started.
    guard: Mutex<Option<tokio::process::ChildStdin>>,
}

impl Shared {
    fn release_guard(&self) {
        self.guard.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

impl Shared {
    fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let bytes: Vec<u8> = tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim().to_string()
    }

    fn subscribers(&self) -> Vec<mpsc::Sender<Inbound>> {
        self.threads.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect()
    }
}

/// A running (or ended) agent process.
pub struct Child {
    /// Distinguishes this process's server-request ids from an earlier one's.
    pub scope: String,
    next_id: AtomicU64,
    shared: Arc<Shared>,
    pid: Option<u32>,
    killed: AtomicBool,
}

impl Child {
    /// Starts `bin app-server` with the given environment additions.
    pub fn spawn(bin: &std::path::Path, env: &[(String, String)], scope: String) -> std::io::Result<Arc<Child>> {
        Child::spawn_peer(bin, &["app-server".to_string()], env, scope, Peer::CODEX)
    }

    /// Starts `program args…` as a `peer`, with the given environment additions.
    pub fn spawn_peer(
        program: &std::path::Path,
        args: &[String],
        env: &[(String, String)],
        scope: String,
        peer: Peer,
    ) -> std::io::Result<Arc<Child>> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.env(super::guard::TAG_ENV, &scope);
        #[cfg(target_os = "linux")]
        // SAFETY: prctl is async-signal-safe and touches only the child's own state.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let guard = spawn_guard(&scope);
        let mut child = cmd.spawn()?;
        let pid = child.id();
        let (stdin, stdout, stderr) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => return Err(std::io::Error::other(format!("{} started without its stdio pipes", peer.name))),
        };
        let shared = Arc::new(Shared {
            peer,
            stdin: Arc::new(tokio::sync::Mutex::new(stdin)),
            pending: Mutex::new(HashMap::new()),
            threads: Mutex::new(HashMap::new()),
            stderr: Mutex::new(VecDeque::new()),
            exited: watch::channel(None).0,
            malformed: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            guard: Mutex::new(guard),
        });
        tokio::spawn(read_stderr(stderr, shared.clone()));
        let reader = tokio::spawn(read_stdout(stdout, shared.clone()));
        let watcher = shared.clone();
        tokio::spawn(async move {
            let status = child.wait().await;
            // The last lines may still be in the pipe: let the reader finish first.
            let _ = tokio::time::timeout(Duration::from_secs(1), reader).await;
            let status = match status {
                Ok(s) => s.to_string(),
                Err(e) => format!("wait failed: {e}"),
            };
            let tail = watcher.stderr_tail();
            let why = if tail.is_empty() {
                format!("{} exited ({status})", peer.name)
            } else {
                format!("{} exited ({status}); its last words: {}", peer.name, last_lines(&tail, 3))
            };
            let (malformed, dropped) =
                (watcher.malformed.load(Ordering::Relaxed), watcher.dropped.load(Ordering::Relaxed));
            eprintln!("agent-session-host: {why} ({malformed} unreadable lines, {dropped} messages dropped)");
            for (_, tx) in watcher.pending.lock().unwrap_or_else(|e| e.into_inner()).drain() {
                let _ = tx.send(Err(RequestError::Exited(why.clone())));
            }
            for tx in watcher.subscribers() {
                let _ = tx.try_send(Inbound::Exited(why.clone()));
            }
            watcher.exited.send_replace(Some(why));
            // What the child started dies with it (a crash leaves its commands running).
            watcher.release_guard();
        });
        Ok(Arc::new(Child { scope, next_id: AtomicU64::new(1), shared, pid, killed: AtomicBool::new(false) }))
    }

    /// `None` while the process runs; why it ended otherwise.
    pub fn exited(&self) -> Option<String> {
        self.shared.exited.borrow().clone()
    }

    /// Running and not being killed: fit for a new turn.
    pub fn is_live(&self) -> bool {
        self.exited().is_none() && !self.killed.load(Ordering::Relaxed)
    }

    /// The messages that name `thread_id` from now on (a second call replaces the first).
    pub fn subscribe(&self, thread_id: &str) -> mpsc::Receiver<Inbound> {
        let (tx, rx) = mpsc::channel(THREAD_QUEUE);
        if let Some(why) = self.exited() {
            let _ = tx.try_send(Inbound::Exited(why));
        }
        self.shared.threads.lock().unwrap_or_else(|e| e.into_inner()).insert(thread_id.to_string(), tx);
        rx
    }

    async fn write(&self, msg: &Value) -> Result<(), RequestError> {
        let peer = self.shared.peer;
        write_line(&self.shared.stdin, msg, peer.jsonrpc)
            .await
            .map_err(|e| RequestError::Exited(self.exited().unwrap_or_else(|| format!("{} stdin: {e}", peer.label))))
    }

    /// A request; its answer or why there is none within `timeout`.
    pub async fn request(&self, method: &'static str, params: Value, timeout: Duration) -> Result<Value, RequestError> {
        let call = self.call(method, params).await?;
        let id = call.id;
        match tokio::time::timeout(timeout, call.answer()).await {
            Ok(answer) => answer,
            Err(_) => {
                self.shared.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                Err(RequestError::Timeout { peer: self.shared.peer.name, method })
            }
        }
    }

    /// A request sent now whose answer is awaited later (with no deadline of its own: ACP's
    /// `session/prompt` answers when the turn ends).
    pub async fn call(&self, method: &'static str, params: Value) -> Result<Call, RequestError> {
        if let Some(why) = self.exited() {
            return Err(RequestError::Exited(why));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.shared.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id, tx);
        if let Err(e) = self.write(&json!({ "id": id, "method": method, "params": params })).await {
            self.shared.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
            return Err(e);
        }
        Ok(Call { id, rx, shared: self.shared.clone() })
    }

    /// A notification (no answer).
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), RequestError> {
        self.write(&json!({ "method": method, "params": params })).await
    }

    /// The answer to one of codex's server requests (the whole message, `{id, result}`).
    pub async fn reply(&self, msg: &Value) -> Result<(), RequestError> {
        self.write(msg).await
    }

    /// Ends the process group now (the host is stopping, or the process stopped answering).
    pub fn kill(&self) {
        if self.killed.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
            // SAFETY: signalling a process group we created; a stale id is at worst ESRCH.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        self.shared.release_guard();
    }
}

/// A request whose answer is still to come ([`Child::call`]).
pub struct Call {
    id: u64,
    rx: oneshot::Receiver<Answer>,
    shared: Arc<Shared>,
}

impl Call {
    /// The answer, or why there is none (the process ended).
    pub async fn answer(self) -> Result<Value, RequestError> {
        let Call { rx, shared, .. } = self;
        match rx.await {
            Ok(answer) => answer,
            Err(_) => Err(RequestError::Exited(
                shared.exited.borrow().clone().unwrap_or_else(|| format!("{} went away", shared.peer.name)),
            )),
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts the tree guard for `tag` (this binary, `--codex-guard`); its stdin's write end.
/// Without one (the binary cannot be found), the child still has its parent-death signal.
fn spawn_guard(tag: &str) -> Option<tokio::process::ChildStdin> {
    let exe = std::env::current_exe().ok()?;
    let spawned = Command::new(exe)
        .arg("--codex-guard")
        .arg(tag)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    let mut guard = match spawned {
        Ok(g) => g,
        Err(e) => {
            eprintln!("agent-session-host: cannot start the codex tree guard: {e}");
            return None;
        }
    };
    let stdin = guard.stdin.take();
    tokio::spawn(async move {
        let _ = guard.wait().await; // reaped when it is done
    });
    stdin
}

async fn write_line(stdin: &tokio::sync::Mutex<ChildStdin>, msg: &Value, jsonrpc: bool) -> std::io::Result<()> {
    let mut line = match msg {
        Value::Object(m) if jsonrpc && !m.contains_key("jsonrpc") => {
            let mut m = m.clone();
            m.insert("jsonrpc".into(), Value::from("2.0"));
            Value::Object(m).to_string()
        }
        _ => msg.to_string(),
    };
    line.push('\n');
    let mut stdin = stdin.lock().await;
    stdin.write_all(line.as_bytes()).await?;
    stdin.flush().await
}

/// A JSON-RPC error answering one of codex's server requests this host does not serve.
pub fn refusal(id: &Value, method: &str) -> Value {
    json!({ "id": id, "error": { "code": -32601, "message": format!("{method} is not served by agent-session-host") } })
}

/// The last `n` lines of a text without terminal colour codes, joined by " | ".
fn last_lines(text: &str, n: usize) -> String {
    let plain = strip_ansi(text);
    let lines: Vec<&str> = plain.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// Drops ANSI escape sequences (`ESC [ … letter`), which codex's log lines carry.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.next() == Some('[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        }
    }
    out
}

async fn read_stderr(stderr: impl AsyncRead + Unpin, shared: Arc<Shared>) {
    // Read in chunks, not `lines()`: a newline-less flood must not grow one line without
    // bound. A line is echoed (cut at ECHO_LINE_BYTES) when it ends or reaches that size;
    // every byte goes to the bounded tail.
    const ECHO_LINE_BYTES: usize = 500;
    let mut reader = BufReader::with_capacity(64 * 1024, stderr);
    let mut echoed = 0;
    let mut line: Vec<u8> = Vec::new();
    let mut line_echoed = false;
    loop {
        let used = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(buf) => {
                {
                    let mut tail = shared.stderr.lock().unwrap_or_else(|e| e.into_inner());
                    let keep = &buf[buf.len().saturating_sub(STDERR_TAIL_BYTES)..];
                    tail.extend(keep.iter().copied());
                    let over = tail.len().saturating_sub(STDERR_TAIL_BYTES);
                    tail.drain(..over);
                }
                for &b in buf.iter() {
                    if b == b'\n' {
                        if !line_echoed && echoed < STDERR_ECHO_LINES {
                            echoed += 1;
                            eprintln!("{}: {}", shared.peer.label, String::from_utf8_lossy(&line));
                        }
                        line.clear();
                        line_echoed = false;
                    } else if line.len() < ECHO_LINE_BYTES {
                        line.push(b);
                    } else if !line_echoed {
                        line_echoed = true;
                        if echoed < STDERR_ECHO_LINES {
                            echoed += 1;
                            eprintln!("{}: {}…", shared.peer.label, String::from_utf8_lossy(&line));
                        }
                    }
                }
                buf.len()
            }
        };
        reader.consume(used);
    }
    if !line.is_empty() && !line_echoed && echoed < STDERR_ECHO_LINES {
        eprintln!("{}: {}", shared.peer.label, String::from_utf8_lossy(&line));
    }
}

/// Reads bounded lines; each goes to its request, its thread, or is reported malformed.
async fn read_stdout(stdout: impl AsyncRead + Unpin, shared: Arc<Shared>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    loop {
        let (done, used) = match reader.fill_buf().await {
            Ok([]) | Err(_) => return,
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    if !too_long {
                        line.extend_from_slice(&buf[..i]);
                    }
                    (true, i + 1)
                }
                None => {
                    if !too_long {
                        line.extend_from_slice(buf);
                    }
                    (false, buf.len())
                }
            },
        };
        reader.consume(used);
        if line.len() > MAX_LINE_BYTES {
            too_long = true;
            line = Vec::new();
        }
        if !done {
            continue;
        }
        if too_long {
            too_long = false;
            malformed(&shared, format!("a line over {MAX_LINE_BYTES} bytes")).await;
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            route(&shared, std::mem::take(&mut line)).await;
        }
        line.clear();
    }
}

async fn malformed(shared: &Shared, what: String) {
    shared.malformed.fetch_add(1, Ordering::Relaxed);
    eprintln!("agent-session-host: {} wrote {what}; dropped", shared.peer.label);
    for tx in shared.subscribers() {
        let _ = tx.try_send(Inbound::Malformed(what.clone()));
    }
}

async fn route(shared: &Shared, line: Vec<u8>) {
    let msg = match serde_json::from_slice::<Value>(&line) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            let preview: String = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
            return malformed(shared, format!("a line that is not a JSON object ({} bytes: {preview:?})", line.len()))
                .await;
        }
    };
    let method = msg.get("method").and_then(Value::as_str);
    if method.is_none() {
        // An answer to one of ours.
        let Some(id) = msg.get("id").and_then(Value::as_u64) else { return };
        let Some(tx) = shared.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id) else { return };
        let answer = match msg.get("error") {
            Some(e) => Err(RequestError::Rpc {
                code: e.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: e.get("message").and_then(Value::as_str).unwrap_or("error").to_string(),
            }),
            None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = tx.send(answer);
        return;
    }
    let thread = msg.pointer(shared.peer.route).and_then(Value::as_str).map(str::to_owned);
    let tx = thread.as_ref().and_then(|t| shared.threads.lock().unwrap_or_else(|e| e.into_inner()).get(t).cloned());
    let Some(tx) = tx else {
        // Process-wide news (account, config, rate limits) or a thread nobody follows. A
        // server request among them would leave codex waiting forever: refuse it now (from a
        // task, so a child that does not read its stdin cannot stall this reader).
        if let (Some(id), Some(method)) = (msg.get("id"), method) {
            let (stdin, answer, jsonrpc) = (shared.stdin.clone(), refusal(id, method), shared.peer.jsonrpc);
            tokio::spawn(async move {
                let _ = write_line(&stdin, &answer, jsonrpc).await;
            });
        }
        return;
    };
    if tokio::time::timeout(ROUTE_WAIT, tx.send(Inbound::Message(msg))).await.is_err() {
        shared.dropped.fetch_add(1, Ordering::Relaxed);
        let thread = thread.unwrap_or_default();
        eprintln!("agent-session-host: {} {thread}: queue full, a message was dropped", shared.peer.label);
    }
}
