//! The real Codex runtime: one `codex app-server` child per host, one Codex thread per
//! session.
//!
//! - The child starts on the first prompt that needs it and again on the next prompt after it
//!   died (a crash fails the running turns with the exit status and stderr's tail).
//! - A session's thread id is kept in the store, so after a host restart (or a crashed child)
//!   the next prompt resumes the same thread: Codex reads its own persisted rollout from
//!   `CODEX_HOME`, and the conversation continues.
//! - Threads are started and resumed with the host's approval policy and sandbox (a resume
//!   needs the sandbox again: Codex does not keep it across processes).
//! - Every request has a deadline ([`CodexConfig::request_timeout`]); a child that misses one
//!   on `initialize` is killed, so a hung binary never wedges a session.
//!
//! Modules: `child` (one `codex app-server` process: its JSON lines over stdio, requests and
//! their answers, routing by thread; its tree reaped by [`crate::agent::guard`]) and `turn`
//! (one session turn on it: `turn/start` with the committed plan mode, the thread's messages
//! through the session's Codex adapter).

pub(crate) mod child;
mod turn;

use crate::agent::provider;
use crate::log::base::Base;
use crate::log::session::{AppendError, Session};
use agent_session_wire::{AgentErrorFrame, Frame};
use child::{Child, Inbound, RequestError};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Mutex};

/// How the host runs codex.
#[derive(Debug, Clone)]
pub struct CodexConfig {
    /// The `codex` binary.
    pub bin: PathBuf,
    /// `thread/start`'s `approvalPolicy` (`untrusted`, `on-request`, `never`).
    pub approval_policy: String,
    /// `thread/start`'s `sandbox` (`read-only`, `workspace-write`, `danger-full-access`).
    pub sandbox: String,
    /// Deadline of every request to the child.
    pub request_timeout: Duration,
}

/// Where the project's bootstrap installs the pinned codex (`agents/`), relative to the
/// directory the host runs in.
const BUNDLED: &str = "agents/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";

impl CodexConfig {
    /// `--codex-bin`, else the project's pinned install, else `codex` on `PATH`.
    pub fn resolve_bin(flag: Option<PathBuf>) -> PathBuf {
        flag.or_else(|| Some(PathBuf::from(BUNDLED)).filter(|p| p.is_file())).unwrap_or_else(|| PathBuf::from("codex"))
    }
}

/// What a session's thread is in the current child.
struct Link {
    thread_id: String,
    /// The model the thread runs (the collaboration mode's settings need it).
    model: String,
    inbound: Arc<Mutex<mpsc::Receiver<Inbound>>>,
}

/// The child of the moment and the sessions' threads in it.
struct Slot {
    child: Option<Arc<Child>>,
    links: HashMap<String, Arc<Link>>,
    started: u64,
}

/// The runtime the host holds (`--agent codex`).
pub struct Codex {
    config: CodexConfig,
    slot: Mutex<Slot>,
    model: std::sync::Mutex<String>,
}

/// A failure of the runtime, worded for the session's agent error.
#[derive(Debug)]
pub struct AgentFailure(pub String);

impl std::fmt::Display for AgentFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Codex {
    pub fn new(config: CodexConfig) -> Codex {
        Codex {
            config,
            slot: Mutex::new(Slot { child: None, links: HashMap::new(), started: 0 }),
            model: std::sync::Mutex::new(String::new()),
        }
    }

    /// What the start-up line says about the agent.
    pub fn banner(&self) -> String {
        format!("codex app-server ({})", self.config.bin.display())
    }

    /// The model of the last thread started or resumed (`""` before any).
    pub fn model_hint(&self) -> String {
        self.model.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Start-up advice when no credential is visible: Codex needs an OpenAI key, a Codex login,
    /// or a provider of the user's own in its `config.toml`.
    pub fn credential_hint() -> Option<String> {
        if std::env::var_os("OPENAI_API_KEY").is_some_and(|k| !k.is_empty()) {
            return None;
        }
        let home = std::env::var_os("CODEX_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".codex")))?;
        if home.join("auth.json").is_file() {
            return None;
        }
        let config = std::fs::read_to_string(home.join("config.toml")).unwrap_or_default();
        if config.lines().any(|l| l.trim_start().starts_with("model_provider")) {
            return None;
        }
        Some(format!(
            "codex has no credential: set OPENAI_API_KEY (create one at https://platform.openai.com/api-keys) \
             or run `agents/node_modules/.bin/codex login`; looked in {}",
            home.display()
        ))
    }

    /// The live child, started (and initialized) if there is none.
    async fn child(&self, slot: &mut Slot) -> Result<Arc<Child>, AgentFailure> {
        if let Some(c) = slot.child.as_ref().filter(|c| c.is_live()) {
            return Ok(c.clone());
        }
        slot.links.clear();
        slot.started += 1;
        let scope = format!("{}-{}", std::process::id(), slot.started);
        let child = Child::spawn(&self.config.bin, &[], scope).map_err(|e| {
            AgentFailure(format!(
                "cannot start codex ({}): {e}; install the pinned codex with `bash scripts/bootstrap.sh` \
                 (or `npm test` / `npm start`, which run it), or pass --codex-bin PATH",
                self.config.bin.display()
            ))
        })?;
        let init = json!({
            "clientInfo": { "name": "agent-session-host", "title": "agent-session reference host", "version": env!("CARGO_PKG_VERSION") },
            // Collaboration modes (plan mode) are behind the experimental API.
            "capabilities": { "experimentalApi": true }
        });
        let t = self.config.request_timeout;
        let started = async {
            child.request("initialize", init, t).await?;
            child.notify("initialized", json!({})).await?;
            login_with_key(&child, t).await
        };
        if let Err(e) = started.await {
            child.kill();
            return Err(AgentFailure(format!("codex did not start: {e}")));
        }
        slot.child = Some(child.clone());
        Ok(child)
    }

    /// The child and the session's thread in it: resumed when the session has one, started
    /// otherwise.
    async fn link(&self, app: &Base, s: &Session) -> Result<(Arc<Child>, Arc<Link>), AgentFailure> {
        let mut slot = self.slot.lock().await;
        let child = self.child(&mut slot).await?;
        if let Some(l) = slot.links.get(&s.id) {
            return Ok((child, l.clone()));
        }
        let t = self.config.request_timeout;
        let cwd = s
            .cwd
            .clone()
            .unwrap_or_else(|| std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default());
        let base = json!({ "cwd": cwd, "approvalPolicy": self.config.approval_policy, "sandbox": self.config.sandbox });
        let known = app.store.agent_thread(s.pk).map_err(|e| AgentFailure(e.to_string()))?;
        let mut resumed = None;
        if let Some(id) = known {
            let mut params = base.clone();
            params["threadId"] = json!(id);
            match child.request("thread/resume", params, t).await {
                Ok(r) => resumed = Some(r),
                Err(e) => agent_error(
                    app,
                    s,
                    format!("codex could not resume thread {id} ({e}); the conversation continues in a new thread"),
                ),
            }
        }
        let result = match resumed {
            Some(r) => r,
            None => {
                let r = child
                    .request("thread/start", base, t)
                    .await
                    .map_err(|e| AgentFailure(format!("codex thread/start failed: {e}")))?;
                let id = r
                    .pointer("/thread/id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| AgentFailure("codex answered thread/start without a thread id".into()))?;
                app.store.set_agent_thread(s.pk, id).map_err(|e| AgentFailure(e.to_string()))?;
                r
            }
        };
        let thread_id = result.pointer("/thread/id").and_then(Value::as_str).unwrap_or_default().to_string();
        let model = result.get("model").and_then(Value::as_str).unwrap_or_default().to_string();
        if !model.is_empty() {
            *self.model.lock().unwrap_or_else(|e| e.into_inner()) = model.clone();
        }
        if let Some(ps) = s.log.lock().await.provider.as_mut() {
            ps.adapter.set_request_scope(&child.scope);
        }
        thread_result(app, s, &result).await.map_err(|e| AgentFailure(e.to_string()))?;
        let inbound = Arc::new(Mutex::new(child.subscribe(&thread_id)));
        let link = Arc::new(Link { thread_id, model, inbound });
        slot.links.insert(s.id.clone(), link.clone());
        Ok((child, link))
    }

    /// Starts the child ahead of the first prompt and reads the configured model (so
    /// `host.describe` names it and the first turn does not wait for start-up). A failure is
    /// only reported here: the first prompt tries again and fails its turn with the reason.
    pub async fn warm(&self) {
        let mut slot = self.slot.lock().await;
        let child = match self.child(&mut slot).await {
            Ok(c) => c,
            Err(e) => return eprintln!("agent-session-host: {e}"),
        };
        drop(slot);
        if let Ok(r) = child.request("config/read", json!({}), self.config.request_timeout).await {
            if let Some(model) = r.pointer("/config/model").and_then(Value::as_str).filter(|m| !m.is_empty()) {
                let mut known = self.model.lock().unwrap_or_else(|e| e.into_inner());
                if known.is_empty() {
                    *known = model.to_string();
                }
            }
        }
    }

    /// Ends the child (host shutdown).
    pub async fn shutdown(&self) {
        if let Some(c) = self.slot.lock().await.child.take() {
            c.kill();
        }
    }
}

/// With `OPENAI_API_KEY` set and no account, logs codex in with the key (the app-server does
/// not read the variable by itself).
async fn login_with_key(child: &Child, t: Duration) -> Result<(), RequestError> {
    let Some(key) = std::env::var("OPENAI_API_KEY").ok().filter(|k| !k.is_empty()) else { return Ok(()) };
    let account = child.request("account/read", json!({}), t).await?;
    let needs = account.get("requiresOpenaiAuth").and_then(Value::as_bool).unwrap_or(false);
    if needs && account.get("account").is_none_or(Value::is_null) {
        child.request("account/login/start", json!({ "type": "apiKey", "apiKey": key }), t).await?;
    }
    Ok(())
}

/// The session's `agent/error` on the host downlink.
pub(super) fn agent_error(app: &Base, s: &Session, message: String) {
    app.hub.host(app.hub.out(&Frame::AgentError(AgentErrorFrame { session_id: Some(s.id.clone()), message })));
}

/// A `thread/start` / `thread/resume` answer through the adapter (the mode it reports).
async fn thread_result(app: &Base, s: &Session, result: &Value) -> Result<(), AppendError> {
    let mut log = s.log.lock().await;
    let Some(ps) = log.provider.as_mut() else { return Ok(()) };
    let outs = ps.adapter.ingest_thread_result(result);
    provider::apply_basic(app, s, &mut log, outs)
}
