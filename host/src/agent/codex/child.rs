//! One agent process speaking JSON-RPC in JSON lines over stdio (`codex app-server`, and any
//! ACP agent: the ACP runtime shares this peer, described by a [`Peer`]): the host's requests
//! and their answers, and the routing of everything else to the thread (Codex) or session (ACP)
//! it names.
//!
//! - Every line is read the same way whichever request is outstanding (an answer and the
//!   notification after it can arrive in one read).
//! - A line is bounded ([`stdio::MAX_LINE_BYTES`]); a longer one, or one that is not a JSON
//!   object, is dropped, counted and reported to every subscribed thread as
//!   [`Inbound::Malformed`].
//! - stderr is kept as a bounded tail ([`stdio::STDERR_TAIL_BYTES`]) for the error a crash
//!   reports, and echoed to the host's stderr at most [`stdio::STDERR_ECHO_LINES`] lines per
//!   process.
//! - The child runs in its own process group and gets SIGKILL when the host dies (the parent-
//!   death signal), and the tree guard ([`crate::agent::guard`]) reaps what it started, so no
//!   agent process outlives the host, SIGKILL of the host included.

use crate::agent::guard;
use crate::agent::stdio::{self, Line, Lines, StderrTail};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};

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
    stderr: StderrTail,
    exited: watch::Sender<Option<String>>,
    malformed: AtomicU64,
    dropped: AtomicU64,
    /// The write end of the tree guard's stdin ([`crate::agent::guard`]): dropping it reaps every
    /// process the child started.
    guard: Mutex<Option<tokio::process::ChildStdin>>,
}

impl Shared {
    fn release_guard(&self) {
        self.guard.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

impl Shared {
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
        cmd.env(guard::TAG_ENV, &scope);
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
        let guard = stdio::spawn_guard(&scope, peer.label);
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
            stderr: StderrTail::default(),
            exited: watch::channel(None).0,
            malformed: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            guard: Mutex::new(guard),
        });
        let errs = shared.clone();
        tokio::spawn(async move { stdio::read_stderr(stderr, &errs.stderr, errs.peer.label).await });
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
            let why = stdio::exit_report(peer.name, &status, &watcher.stderr);
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

/// Reads the child's lines; each goes to its request, its thread, or is reported malformed.
async fn read_stdout(stdout: impl AsyncRead + Unpin, shared: Arc<Shared>) {
    let mut lines = Lines::new(stdout);
    while let Some(line) = lines.next().await {
        match line {
            Line::Object(msg) => route(&shared, msg).await,
            Line::Malformed(what) => malformed(&shared, what).await,
        }
    }
}

async fn malformed(shared: &Shared, what: String) {
    shared.malformed.fetch_add(1, Ordering::Relaxed);
    eprintln!("agent-session-host: {} wrote {what}; dropped", shared.peer.label);
    for tx in shared.subscribers() {
        let _ = tx.try_send(Inbound::Malformed(what.clone()));
    }
}

async fn route(shared: &Shared, msg: Value) {
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
