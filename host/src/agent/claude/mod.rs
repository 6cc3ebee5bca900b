//! The real Claude Code runtime: one `claude -p` process per session, speaking stream-json
//! over stdio.
//!
//! Why the CLI and not the Claude Agent SDK: the SDK (`@anthropic-ai/claude-agent-sdk`) is a
//! TypeScript wrapper that spawns this same CLI and speaks this same stream-json and control
//! protocol to it. From a Rust host, a Node sidecar would only add a process, a second
//! protocol and a second place to lose messages; driving the CLI directly keeps one child per
//! session whose every line the host bounds, reads and answers itself.
//!
//! - The process starts lazily at a session's first turn and is kept across turns
//!   (`--input-format stream-json`: one user message a turn, each ended by a `result`). At most
//!   [`ClaudeConfig::max_processes`] run at once; a new one ends the least recently used idle
//!   one (its session resumes when it next has a turn).
//! - Claude's `session_id` (from `system/init`) is kept in the store (`agent_threads`), so after
//!   a host restart or a crashed child the next turn starts `claude --resume <id>` and the
//!   conversation goes on; a session Claude no longer knows starts a new conversation (said
//!   on the session's agent error).
//! - Plan mode: a process starts with `--permission-mode plan` or the configured mode
//!   ([`ClaudeConfig::permission_mode`]); a turn whose committed mode differs from the
//!   process's sends the control request `set_permission_mode` first.
//! - Permissions come as `control_request {subtype: "can_use_tool"}` (the CLI runs with
//!   `--permission-prompt-tool stdio`): AskUserQuestion's goes to the session's questions,
//!   every other tool's (ExitPlanMode included) to its approvals; allowing ExitPlanMode leaves
//!   plan mode at once.
//! - Cancel sends `control_request {subtype: "interrupt"}`; every control request has a
//!   deadline ([`ClaudeConfig::request_timeout`]) and a process that misses one is killed.
//!
//! Modules: `child` (one process: bounded stdout lines, stderr tail, control requests, process
//! group, parent-death signal, tree guard) and `turn` (one turn through the session's Claude
//! adapter).

mod child;
mod turn;

use crate::log::base::Base;
use crate::log::session::Session;
use agent_session_wire::{AgentErrorFrame, Frame};
use child::{Child, Inbound};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Mutex};
use tokio::time::Instant;

/// How the host runs Claude Code.
#[derive(Debug, Clone)]
pub struct ClaudeConfig {
    /// The `claude` binary.
    pub bin: PathBuf,
    /// The permission mode outside plan mode (`default`, `acceptEdits`, `auto`, `dontAsk`,
    /// `bypassPermissions`, `manual`).
    pub permission_mode: String,
    /// Deadline of every control request to a process.
    pub request_timeout: Duration,
    /// Processes running at once (one per session with a recent turn).
    pub max_processes: usize,
}

/// Where the project's bootstrap installs the pinned Claude Code's native binary (`agents/`),
/// relative to the directory the host runs in.
const BUNDLED: &str = "agents/node_modules/@anthropic-ai/claude-code-linux-x64/claude";

impl ClaudeConfig {
    /// `--claude-bin`, else the project's pinned install, else `claude` on `PATH`.
    pub fn resolve_bin(flag: Option<PathBuf>) -> PathBuf {
        flag.or_else(|| Some(PathBuf::from(BUNDLED)).filter(|p| p.is_file())).unwrap_or_else(|| PathBuf::from("claude"))
    }
}

/// A session's process and what the host knows of it.
struct Proc {
    child: Arc<Child>,
    /// Held by the turn that reads it (so an idle process is one whose lock is free).
    inbound: Mutex<mpsc::Receiver<Inbound>>,
    /// The permission mode the process is in, as its last `system` message said.
    mode: std::sync::Mutex<String>,
    /// Started with `--resume` and not yet past its first `system/init`.
    resuming: std::sync::atomic::AtomicBool,
    last_used: std::sync::Mutex<Instant>,
}

impl Proc {
    fn mode(&self) -> String {
        self.mode.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set_mode(&self, mode: &str) {
        *self.mode.lock().unwrap_or_else(|e| e.into_inner()) = mode.to_string();
    }
}

/// The runtime the host holds (`--agent claude`).
pub struct Claude {
    config: ClaudeConfig,
    procs: Mutex<HashMap<String, Arc<Proc>>>,
    started: AtomicU64,
    model: std::sync::Mutex<String>,
}

impl Claude {
    pub fn new(config: ClaudeConfig) -> Claude {
        Claude {
            config,
            procs: Mutex::new(HashMap::new()),
            started: AtomicU64::new(0),
            model: std::sync::Mutex::new(String::new()),
        }
    }

    /// What the start-up line says about the agent.
    pub fn banner(&self) -> String {
        format!(
            "claude ({}, permission mode {} outside plan mode)",
            self.config.bin.display(),
            self.config.permission_mode
        )
    }

    /// The model the last `system/init` named (`""` before any).
    pub fn model_hint(&self) -> String {
        self.model.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set_model(&self, model: &str) {
        *self.model.lock().unwrap_or_else(|e| e.into_inner()) = model.to_string();
    }

    /// Start-up advice when no credential is visible: Claude Code needs an Anthropic API key,
    /// a token, a login, or a cloud provider of its own.
    pub fn credential_hint(&self) -> Option<String> {
        let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
        let vars = [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "CLAUDE_CODE_USE_BEDROCK",
            "CLAUDE_CODE_USE_VERTEX",
            "CLAUDE_CODE_USE_FOUNDRY",
        ];
        if vars.iter().any(|k| set(k)) {
            return None;
        }
        let dir = std::env::var_os("CLAUDE_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")))?;
        if dir.join(".credentials.json").is_file() {
            return None;
        }
        Some(format!(
            "claude has no credential: set ANTHROPIC_API_KEY (create one at https://console.anthropic.com/settings/keys), \
             or log in once with `{} auth login` (or `/login` in an interactive `claude`); looked in {}",
            self.config.bin.display(),
            dir.display()
        ))
    }

    /// The session's process: the running one, or a new one in `mode` (resuming the session's
    /// Claude conversation when the store knows one and `resume` says so).
    async fn proc(&self, app: &Base, s: &Session, mode: &str, resume: bool) -> Result<Arc<Proc>, String> {
        let mut procs = self.procs.lock().await;
        if let Some(p) = procs.get(&s.id).filter(|p| p.child.is_live()) {
            *p.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            return Ok(p.clone());
        }
        procs.remove(&s.id);
        procs.retain(|_, p| p.child.is_live());
        if procs.len() >= self.config.max_processes {
            // Make room: end the least recently used process no turn is reading.
            let idle = procs
                .iter()
                .filter(|(_, p)| p.inbound.try_lock().is_ok())
                .min_by_key(|(_, p)| *p.last_used.lock().unwrap_or_else(|e| e.into_inner()))
                .map(|(id, _)| id.clone());
            match idle {
                Some(id) => {
                    if let Some(p) = procs.remove(&id) {
                        p.child.kill();
                    }
                }
                None => {
                    return Err(format!(
                        "all {} claude processes are busy with other sessions' turns; try again when one is done \
                         (or start the host with a larger --claude-max-processes)",
                        self.config.max_processes
                    ))
                }
            }
        }
        let resume = if resume { app.store.agent_thread(s.pk).map_err(|e| e.to_string())? } else { None };
        let mut args: Vec<String> = [
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            // Not in `--help`: without it AskUserQuestion and ExitPlanMode are not offered, and
            // permissions are not asked on stdio.
            "--permission-prompt-tool",
            "stdio",
            "--permission-mode",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        args.push(mode.to_string());
        if let Some(id) = &resume {
            args.push("--resume".into());
            args.push(id.clone());
        }
        let cwd = s.cwd.clone().map(PathBuf::from).unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
        if !cwd.is_dir() {
            return Err(format!(
                "cannot start claude: the session's directory {} is not a directory here",
                cwd.display()
            ));
        }
        let n = self.started.fetch_add(1, Ordering::Relaxed) + 1;
        let tag = format!("claude-{}-{n}", std::process::id());
        let (child, inbound) = Child::spawn(&self.config.bin, &args, &cwd, &tag).map_err(|e| {
            format!(
                "cannot start claude ({}) in {}: {e}; install the pinned Claude Code with `bash scripts/bootstrap.sh` \
                 (or `npm test` / `npm start`, which run it), or pass --claude-bin PATH",
                self.config.bin.display(),
                cwd.display()
            )
        })?;
        let p = Arc::new(Proc {
            child,
            inbound: Mutex::new(inbound),
            mode: std::sync::Mutex::new(mode.to_string()),
            resuming: std::sync::atomic::AtomicBool::new(resume.is_some()),
            last_used: std::sync::Mutex::new(Instant::now()),
        });
        procs.insert(s.id.clone(), p.clone());
        Ok(p)
    }

    /// Forgets a session's process (it died or was killed).
    async fn drop_proc(&self, s: &Session, p: &Arc<Proc>) {
        let mut procs = self.procs.lock().await;
        if procs.get(&s.id).is_some_and(|q| Arc::ptr_eq(q, p)) {
            procs.remove(&s.id);
        }
    }

    /// Ends every process (host shutdown).
    pub async fn shutdown(&self) {
        for (_, p) in self.procs.lock().await.drain() {
            p.child.kill();
        }
    }
}

/// The session's `agent/error` on the host downlink.
fn agent_error(app: &Base, s: &Session, message: String) {
    app.hub.host(app.hub.out(&Frame::AgentError(AgentErrorFrame { session_id: Some(s.id.clone()), message })));
}
