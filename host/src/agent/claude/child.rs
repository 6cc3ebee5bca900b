//! One `claude` process (one session): its stream-json lines over stdio, the host's control
//! requests and their `control_response`s, everything else to the session's one reader.
//!
//! - Every line is read the same way whichever request is outstanding; a line is bounded
//!   ([`stdio::MAX_LINE_BYTES`]); a longer one, or one that is not a JSON object, is dropped,
//!   counted and reported as [`Inbound::Malformed`].
//! - What the session's turn does not read yet waits in a bounded queue ([`QUEUE`]); when it
//!   stays full for [`ROUTE_WAIT`], the message is dropped and counted.
//! - stderr is kept as a bounded tail ([`stdio::STDERR_TAIL_BYTES`]) for the error a crash
//!   reports, and echoed to the host's stderr at most [`stdio::STDERR_ECHO_LINES`] lines per
//!   process.
//! - The process runs in its own process group, gets SIGKILL when the host dies (the parent-
//!   death signal) and carries the tree guard's tag ([`crate::agent::guard`]): what it started
//!   (the shells of its Bash tool) dies with it, a SIGKILL of the host included.

use crate::agent::guard;
use crate::agent::stdio::{self, Line, Lines, StderrTail};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, watch};

/// Messages waiting for the session's reader.
const QUEUE: usize = 4096;
/// How long the reader waits for room in a full queue before it drops a message.
const ROUTE_WAIT: Duration = Duration::from_secs(5);

/// What the session's reader receives.
#[derive(Debug)]
pub enum Inbound {
    /// A message of the CLI (anything but the answer to one of the host's control requests).
    Message(Value),
    /// A line that could not be read (its size and first bytes).
    Malformed(String),
    /// The process ended; why, with the tail of its stderr.
    Exited(String),
}

/// Why a control request to claude got no success.
#[derive(Debug, Clone)]
pub enum ControlError {
    /// Claude answered with an error.
    Refused(String),
    /// No answer within the deadline.
    Timeout(&'static str),
    /// The process is gone (or its stdin is).
    Exited(String),
}

impl std::fmt::Display for ControlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ControlError::Refused(why) => f.write_str(why),
            ControlError::Timeout(what) => write!(f, "claude did not answer {what} in time"),
            ControlError::Exited(why) => f.write_str(why),
        }
    }
}

type Answer = Result<Value, ControlError>;

/// What the reader and the exit watcher share with the handle.
struct Shared {
    stdin: tokio::sync::Mutex<ChildStdin>,
    pending: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
    stderr: StderrTail,
    exited: watch::Sender<Option<String>>,
    malformed: AtomicU64,
    dropped: AtomicU64,
    /// The write end of the tree guard's stdin: dropping it reaps every process the child
    /// started.
    guard: Mutex<Option<ChildStdin>>,
}

impl Shared {
    fn release_guard(&self) {
        self.guard.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// A running (or ended) claude process.
pub struct Child {
    next_id: AtomicU64,
    shared: Arc<Shared>,
    pid: Option<u32>,
    killed: AtomicBool,
}

impl Child {
    /// Starts `bin ARGS` in `cwd` (tagged `tag` for the tree guard); the handle and the
    /// receiver of its messages.
    pub fn spawn(
        bin: &Path,
        args: &[String],
        cwd: &Path,
        tag: &str,
    ) -> std::io::Result<(Arc<Child>, mpsc::Receiver<Inbound>)> {
        let mut cmd = Command::new(bin);
        cmd.args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0)
            .env(guard::TAG_ENV, tag);
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
        let guard = stdio::spawn_guard(tag, "claude");
        let mut child = cmd.spawn()?;
        let pid = child.id();
        let (stdin, stdout, stderr) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => return Err(std::io::Error::other("claude started without its stdio pipes")),
        };
        let shared = Arc::new(Shared {
            stdin: tokio::sync::Mutex::new(stdin),
            pending: Mutex::new(HashMap::new()),
            stderr: StderrTail::default(),
            exited: watch::channel(None).0,
            malformed: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            guard: Mutex::new(guard),
        });
        let (tx, rx) = mpsc::channel(QUEUE);
        let errs = shared.clone();
        tokio::spawn(async move { stdio::read_stderr(stderr, &errs.stderr, "claude").await });
        let reader = tokio::spawn(read_stdout(stdout, shared.clone(), tx.clone()));
        let watcher = shared.clone();
        tokio::spawn(async move {
            let status = child.wait().await;
            // The last lines may still be in the pipe: let the reader finish first.
            let _ = tokio::time::timeout(Duration::from_secs(1), reader).await;
            let status = match status {
                Ok(s) => s.to_string(),
                Err(e) => format!("wait failed: {e}"),
            };
            let why = stdio::exit_report("claude", &status, &watcher.stderr);
            let (malformed, dropped) =
                (watcher.malformed.load(Ordering::Relaxed), watcher.dropped.load(Ordering::Relaxed));
            eprintln!("agent-session-host: {why} ({malformed} unreadable lines, {dropped} messages dropped)");
            for (_, tx) in watcher.pending.lock().unwrap_or_else(|e| e.into_inner()).drain() {
                let _ = tx.send(Err(ControlError::Exited(why.clone())));
            }
            let _ = tx.try_send(Inbound::Exited(why.clone()));
            watcher.exited.send_replace(Some(why));
            watcher.release_guard();
        });
        Ok((Arc::new(Child { next_id: AtomicU64::new(1), shared, pid, killed: AtomicBool::new(false) }), rx))
    }

    /// `None` while the process runs; why it ended otherwise.
    pub fn exited(&self) -> Option<String> {
        self.shared.exited.borrow().clone()
    }

    /// Running and not being killed: fit for a new turn.
    pub fn is_live(&self) -> bool {
        self.exited().is_none() && !self.killed.load(Ordering::Relaxed)
    }

    /// Writes one message as a line.
    pub async fn send(&self, msg: &Value) -> Result<(), ControlError> {
        let mut line = msg.to_string();
        line.push('\n');
        let mut stdin = self.shared.stdin.lock().await;
        let written = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.flush().await
        };
        written.await.map_err(|e| ControlError::Exited(self.exited().unwrap_or_else(|| format!("claude stdin: {e}"))))
    }

    /// A control request (`{subtype, …}`); the inner `response` of its success, or why none
    /// came within `timeout`.
    pub async fn control(&self, what: &'static str, request: Value, timeout: Duration) -> Answer {
        if let Some(why) = self.exited() {
            return Err(ControlError::Exited(why));
        }
        let id = format!("host-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.shared.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), tx);
        let msg = json!({ "type": "control_request", "request_id": id, "request": request });
        if let Err(e) = self.send(&msg).await {
            self.shared.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
            return Err(e);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(ControlError::Exited(self.exited().unwrap_or_else(|| "claude went away".into()))),
            Err(_) => {
                self.shared.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                Err(ControlError::Timeout(what))
            }
        }
    }

    /// Ends the process group now (the host is stopping, the process stopped answering, or
    /// it made room for another session's).
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

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// An error `control_response` to one of the CLI's control requests this host does not serve.
pub fn refusal(request_id: &str, why: &str) -> Value {
    json!({ "type": "control_response", "response": { "subtype": "error", "request_id": request_id, "error": why } })
}

/// Reads the process's lines; each answers one of the host's control requests or goes to the
/// reader.
async fn read_stdout(stdout: impl AsyncRead + Unpin, shared: Arc<Shared>, tx: mpsc::Sender<Inbound>) {
    let mut lines = Lines::new(stdout);
    while let Some(line) = lines.next().await {
        match line {
            Line::Object(msg) => route(&shared, &tx, msg).await,
            Line::Malformed(what) => malformed(&shared, &tx, what).await,
        }
    }
}

async fn malformed(shared: &Shared, tx: &mpsc::Sender<Inbound>, what: String) {
    shared.malformed.fetch_add(1, Ordering::Relaxed);
    eprintln!("agent-session-host: claude wrote {what}; dropped");
    let _ = tx.try_send(Inbound::Malformed(what));
}

async fn route(shared: &Shared, tx: &mpsc::Sender<Inbound>, msg: Value) {
    if msg.get("type").and_then(Value::as_str) == Some("control_response") {
        let response = msg.get("response").cloned().unwrap_or(Value::Null);
        let id = response.get("request_id").and_then(Value::as_str).unwrap_or_default();
        let waiter = shared.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
        if let Some(w) = waiter {
            let answer = match response.get("subtype").and_then(Value::as_str) {
                Some("success") => Ok(response.get("response").cloned().unwrap_or(Value::Null)),
                _ => Err(ControlError::Refused(
                    response.get("error").and_then(Value::as_str).unwrap_or("claude refused the request").to_string(),
                )),
            };
            let _ = w.send(answer);
            return;
        }
    }
    if tokio::time::timeout(ROUTE_WAIT, tx.send(Inbound::Message(msg))).await.is_err() {
        shared.dropped.fetch_add(1, Ordering::Relaxed);
        eprintln!("agent-session-host: claude: queue full, a message was dropped");
    }
}
