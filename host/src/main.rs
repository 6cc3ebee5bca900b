//! agent-session-host: the reference host of the agent-session wire contract.
//!
//! Modules: `cli` (flags), `dialect` (`--wire`), `app` (shared host state), `routes` (the
//! router and its layers), `http` (the HTTP edge), `log` (the durable log and what shares it),
//! `agent` (what answers a prompt), `providers` (provider names and adapters), `trust` (the
//! trust fence), `tickets` (stream tickets) and `faults` (the `--faults` knobs).

mod agent;
mod app;
mod cli;
mod dialect;
mod faults;
mod http;
mod log;
mod providers;
mod routes;
mod tickets;
mod trust;

use app::{App, Options};
use clap::Parser;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    if let Some(tag) = &cli.agent_guard {
        agent::guard::run(tag);
    }
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("agent-session-host: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Why the host did not start (or stopped serving).
#[derive(Debug)]
enum RunError {
    CreateDir(PathBuf, std::io::Error),
    Store(log::store::StoreError),
    Open(app::OpenError),
    Listen(String, std::io::Error),
    Router(trust::security::BadOrigin),
    Io(std::io::Error),
    /// `--agent acp` without the agent's command after `--`.
    NoAgentCommand,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::CreateDir(dir, e) => write!(f, "cannot create {}: {e}", dir.display()),
            RunError::Store(e) => write!(f, "{e}"),
            RunError::Open(e) => write!(f, "{e}"),
            RunError::Listen(addr, e) => f.write_str(&listen_error(addr, e)),
            RunError::Router(e) => write!(f, "{e}"),
            RunError::Io(e) => write!(f, "{e}"),
            RunError::NoAgentCommand => f.write_str(
                "--agent acp needs the agent's command after `--`, e.g. \
                 --agent acp -- agents/node_modules/.bin/claude-code-acp",
            ),
        }
    }
}

impl std::error::Error for RunError {}

async fn run(cli: cli::Cli) -> Result<(), RunError> {
    let db = cli.db_path();
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| RunError::CreateDir(dir.to_path_buf(), e))?;
    }
    let store = log::store::Store::open(&db).map_err(RunError::Store)?;
    let options = Options {
        plan_mode: !cli.no_plan_mode,
        chunk_delay: Duration::from_millis(cli.chunk_delay_ms),
        downlinks: cli.downlinks,
        ticket_ttl: Duration::from_millis(cli.ticket_ttl_ms),
        wire: cli.wire,
    };
    let claude = (cli.agent == cli::Agent::Claude).then(|| {
        Arc::new(agent::claude::Claude::new(agent::claude::ClaudeConfig {
            bin: agent::claude::ClaudeConfig::resolve_bin(cli.claude_bin.clone()),
            permission_mode: cli.claude_permission_mode.clone(),
            request_timeout: Duration::from_millis(cli.claude_request_timeout_ms),
            max_processes: usize::try_from(cli.claude_max_processes).unwrap_or(8),
        }))
    });
    let codex = match cli.agent {
        cli::Agent::Script | cli::Agent::Claude | cli::Agent::Acp => None,
        cli::Agent::Codex => Some(Arc::new(agent::codex::Codex::new(agent::codex::CodexConfig {
            bin: agent::codex::CodexConfig::resolve_bin(cli.codex_bin.clone()),
            approval_policy: cli.codex_approval_policy.clone(),
            sandbox: cli.codex_sandbox.clone(),
            request_timeout: Duration::from_millis(cli.codex_request_timeout_ms),
        }))),
    };
    let acp = match cli.agent {
        cli::Agent::Acp if cli.agent_command.is_empty() => return Err(RunError::NoAgentCommand),
        cli::Agent::Acp => Some(Arc::new(agent::acp::Acp::new(agent::acp::AcpConfig {
            command: cli.agent_command.clone(),
            request_timeout: Duration::from_millis(cli.acp_request_timeout_ms),
        }))),
        _ => None,
    };
    let runtime: Arc<dyn agent::turns::Runtime> = match (&codex, &acp, &claude) {
        (Some(c), _, _) => c.clone(),
        (None, Some(a), _) => a.clone(),
        (None, None, Some(c)) => c.clone(),
        (None, None, None) => Arc::new(agent::script::Scripted),
    };
    let app = Arc::new(App::new(store, options, cli.faults, runtime.clone()).map_err(RunError::Open)?);
    // Accepted prompts that waited for a turn when the host went down run now.
    for s in app.sessions() {
        let (base, runtime) = (app.base.clone(), runtime.clone());
        tokio::spawn(async move { agent::turns::resume_queue(&base, &runtime, &s).await });
    }
    let listener =
        tokio::net::TcpListener::bind(&cli.listen).await.map_err(|e| RunError::Listen(cli.listen.clone(), e))?;
    let addr = listener.local_addr().map_err(RunError::Io)?;
    // The fence needs the bound port (`--listen …:0` picks one).
    let router = routes::router(app.clone(), &cli, addr).map_err(RunError::Router)?;
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on http://{addr}");
        let _ = out.flush();
    }
    eprintln!("agent-session-host: db {}", db.display());
    if let Some(c) = &codex {
        eprintln!("agent-session-host: agent {}", c.banner());
        if let Some(hint) = agent::codex::Codex::credential_hint() {
            eprintln!("agent-session-host: {hint}");
        }
        let warm = c.clone();
        tokio::spawn(async move { warm.warm().await });
    }
    if let Some(c) = &claude {
        eprintln!("agent-session-host: agent {}", c.banner());
        if let Some(hint) = c.credential_hint() {
            eprintln!("agent-session-host: {hint}");
        }
    }
    if let Some(a) = &acp {
        eprintln!("agent-session-host: agent {}", a.banner());
        let warm = a.clone();
        tokio::spawn(async move { warm.warm().await });
    }
    let r = tokio::select! {
        r = http::serve::serve(listener, router, cli.timeouts()) => r.map_err(RunError::Io),
        // Every commit is already durable: on a signal there is nothing to flush, and
        // open streams would keep a graceful shutdown waiting forever.
        _ = shutdown_signal() => Ok(()),
    };
    // The agent's process group goes with the host (a SIGKILL of the host is covered by the
    // child's parent-death signal).
    if let Some(c) = &codex {
        c.shutdown().await;
    }
    if let Some(c) = &claude {
        c.shutdown().await;
    }
    if let Some(a) = &acp {
        a.shutdown().await;
    }
    r
}

/// A taken port says how to pick another one (`npm start` passes `AGENT_SESSION_LISTEN`).
fn listen_error(addr: &str, e: &std::io::Error) -> String {
    let mut m = format!("cannot listen on {addr}: {e}");
    if e.kind() == std::io::ErrorKind::AddrInUse {
        m.push_str(
            "\n  another process uses this port: pick another one with --listen 127.0.0.1:PORT \
             (npm start: AGENT_SESSION_LISTEN=127.0.0.1:PORT npm start), or port 0 for any free port",
        );
    }
    m
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(t) => t,
            Err(_) => return std::future::pending().await,
        };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}
