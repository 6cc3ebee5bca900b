//! Command line. Other tools rely on these exact flag names and on the first stdout line.

use crate::dialect::Downlinks;
use clap::{Parser, ValueEnum};
use std::path::PathBuf;

/// What plays the turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Agent {
    /// The scripted agent: no model, deterministic (every provider profile is scripted).
    Script,
    /// The real Codex (`codex app-server`): needs OPENAI_API_KEY, a Codex login, or a model
    /// provider of your own in CODEX_HOME's config.toml.
    Codex,
    /// The real Claude Code (`claude -p`, one process per session): needs ANTHROPIC_API_KEY,
    /// a Claude login, or a cloud provider of its own.
    Claude,
    /// Any Agent Client Protocol agent over stdio: its command line after `--`
    /// (e.g. `--agent acp -- agents/node_modules/.bin/claude-code-acp`).
    Acp,
}

/// Reference agent host for agent-session: the host wire contract over a durable SQLite log,
/// with a scripted (model-free, deterministic) agent.
///
/// The first stdout line is always `listening on http://ADDR:PORT` with the bound address.
#[derive(Debug, Parser)]
#[command(name = "agent-session-host", version)]
pub struct Cli {
    /// Address to listen on; port 0 picks a free port (see the first stdout line).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7878")]
    pub listen: String,

    /// SQLite database file (created with its parent directories).
    /// Default: $XDG_DATA_HOME/agent-session-host/host.sqlite, else ~/.local/share/agent-session-host/host.sqlite.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Start without the plan-mode service: session.planMode / session.setPlanMode answer
    /// null (capability absent) and no plan/mode event is ever logged.
    #[arg(long)]
    pub no_plan_mode: bool,

    /// Enable fault injection at POST /admin/faults (drop streams, withhold/delay/fail responses,
    /// skip mux frames, reset the store, seed events). The route is 404 without this flag.
    #[arg(long)]
    pub faults: bool,

    /// Require `Authorization: Bearer TOKEN` on every /api/ (and /admin/) route; 401 otherwise.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,

    /// Allow cross-origin requests from ORIGIN (repeatable), e.g. http://127.0.0.1:8000.
    /// CORS is off without it.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,

    /// Serve static files from DIR at / (the web demo), so one process serves everything.
    #[arg(long = "static", value_name = "DIR")]
    pub static_dir: Option<PathBuf>,

    /// Milliseconds the scripted agent waits between streamed chunks (0 = as fast as possible).
    #[arg(long, value_name = "N", default_value_t = 40)]
    pub chunk_delay_ms: u64,

    /// Carriers of the two downlinks: `ws` (plain GET answers 426), `sse` (no WebSocket
    /// upgrades, like the seed host) or `both`.
    #[arg(long, value_enum, default_value_t = Downlinks::Both)]
    pub downlinks: Downlinks,

    /// Wire generation: `seed` (the origin's July 2026 wire: plan RPCs, session/title frames)
    /// or `2026-08` (the 2026-08 wire: plan and title as projections, /plan through
    /// commands/execute, the new event shapes; pair it with `--downlinks ws`).
    #[arg(long, value_enum, value_name = "GENERATION", default_value = "seed")]
    pub wire: crate::dialect::Wire,

    /// Milliseconds a connection may take to send a whole request head, counted from when the
    /// host starts waiting for one (a new connection, or a keep-alive connection after its last
    /// response: also the idle timeout between requests). Stalled clients (slowloris) are closed.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_ms: u64,

    /// Milliseconds a request body may go without a byte before the request fails and its
    /// connection closes. Streams (SSE, WebSocket) are responses and are not affected.
    #[arg(long, value_name = "MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout_ms: u64,

    /// What plays the turns: the scripted agent, the real Codex app-server or the real Claude
    /// Code.
    #[arg(long, value_enum, default_value_t = Agent::Script, env = "AGENT_SESSION_AGENT")]
    pub agent: Agent,

    /// The `codex` binary (default: the project's pinned install under agents/, else `codex`
    /// on PATH).
    #[arg(long, value_name = "PATH")]
    pub codex_bin: Option<PathBuf>,

    /// Codex's approval policy for the threads it starts: `untrusted` (every command asks),
    /// `on-request` or `never`.
    #[arg(long, value_name = "POLICY", default_value = "on-request", value_parser = ["untrusted", "on-request", "never"])]
    pub codex_approval_policy: String,

    /// Codex's sandbox for the threads it starts.
    #[arg(long, value_name = "MODE", default_value = "workspace-write", value_parser = ["read-only", "workspace-write", "danger-full-access"])]
    pub codex_sandbox: String,

    /// Milliseconds codex may take to answer one request before the turn fails.
    #[arg(long, value_name = "MS", default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub codex_request_timeout_ms: u64,

    /// The `claude` binary (default: the project's pinned install under agents/, else `claude`
    /// on PATH).
    #[arg(long, value_name = "PATH")]
    pub claude_bin: Option<PathBuf>,

    /// Claude Code's permission mode outside plan mode (`default` asks before edits and
    /// commands).
    #[arg(long, value_name = "MODE", default_value = "default", value_parser = ["default", "acceptEdits", "auto", "dontAsk", "bypassPermissions", "manual"])]
    pub claude_permission_mode: String,

    /// Milliseconds claude may take to answer one control request (interrupt, mode change)
    /// before the turn fails and the process is ended.
    #[arg(long, value_name = "MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub claude_request_timeout_ms: u64,

    /// Claude processes running at once (one per session with a recent turn; the least
    /// recently used idle one makes room).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub claude_max_processes: u64,
    /// Milliseconds the ACP agent may take to answer one request (all but `session/prompt`,
    /// which lasts the turn) before the turn fails.
    #[arg(long, value_name = "MS", default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub acp_request_timeout_ms: u64,

    /// The ACP agent's command line (`--agent acp -- <command…>`).
    #[arg(last = true, value_name = "COMMAND")]
    pub agent_command: Vec<String>,

    /// Internal: run as the reaper of the agent process tree tagged TAG (the host starts it).
    #[arg(long, value_name = "TAG", hide = true)]
    pub agent_guard: Option<String>,

    /// Lifetime of a `stream.ticket` in milliseconds (tests shorten it; not a user knob).
    #[arg(long, value_name = "MS", default_value_t = 30_000, hide = true)]
    pub ticket_ttl_ms: u64,
}

impl Cli {
    pub fn timeouts(&self) -> crate::http::serve::Timeouts {
        crate::http::serve::Timeouts {
            header: std::time::Duration::from_millis(self.header_timeout_ms),
            idle: std::time::Duration::from_millis(self.idle_timeout_ms),
        }
    }

    pub fn db_path(&self) -> PathBuf {
        if let Some(p) = &self.db {
            return p.clone();
        }
        let base = std::env::var_os("XDG_DATA_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
            .unwrap_or_else(|| PathBuf::from("."));
        base.join("agent-session-host").join("host.sqlite")
    }
}
