//! Any Agent Client Protocol agent over stdio (`--agent acp -- <command…>`): one agent process
//! per host, one ACP session per host session.
//!
//! - **One process per host**: ACP multiplexes sessions (every `session/*` message names its
//!   `sessionId`), so one process serves every session, as the Codex app-server does; a crash
//!   costs one restart, not one per session, and the per-process start-up (`claude-code-acp`
//!   loads the Claude Agent SDK and a native CLI) is paid once.
//! - The process starts on the first prompt that needs it (or at host start, [`Acp::warm`]) and
//!   again on the next prompt after it died (a crash fails the running turns with the exit
//!   status and stderr's tail).
//! - A session's ACP session id is kept in the store (`agent_threads`), so after a host restart
//!   or a crashed agent the next prompt sends `session/load` (when the agent advertises
//!   `loadSession`) and the conversation continues; the history the agent replays before its
//!   answer is already in the log and is not logged again.
//! - Plan mode: each turn starts with `session/set_mode` to the agent's plan mode id or its
//!   default mode id, both read from the modes `session/new` / `session/load` advertise (the
//!   ids the ACP adapter reads: `plan`; `default` or Cursor's `agent`); sent on every turn,
//!   since a load resets the agent to its default mode and the agent can switch by itself.
//! - Every request but `session/prompt` has a deadline ([`AcpConfig::request_timeout`]);
//!   `session/prompt` is answered when the turn ends, which only the agent (or a cancel)
//!   decides. An agent that misses the deadline of `initialize` is killed.
//!
//! The JSON-RPC is written here over tokio, on the host's JSON-lines peer
//! (`crate::agent::codex::child`), rather than with the `agent-client-protocol` crate (5.2):
//! its stdio transports read lines without a bound (the host drops a line over 16 MiB), and its
//! connection lives inside a `connect_with` closure, where the host keeps one process across
//! turns and sessions, restarts it after a crash and routes its messages to each session's
//! turn. The messages follow the ACP schema (protocol version 1).
//!
//! Modules: `turn` (one session turn: `session/prompt`, the updates through the session's ACP
//! adapter, permissions as approvals, `session/cancel`).

mod turn;

use crate::agent::codex::child::{Child, Inbound, Peer, RequestError};
use crate::agent::provider;
use crate::log::base::Base;
use crate::log::session::{AppendError, Session};
use crate::providers::adapters::acp::mode_from_id;
use crate::providers::adapters::ProviderAdapter;
use agent_session_wire::interaction::OperatingMode;
use agent_session_wire::{AgentErrorFrame, Frame};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Mutex};
use tokio::time::Instant;

/// An ACP agent: routed by `params.sessionId`, every message with `"jsonrpc": "2.0"`.
const PEER: Peer = Peer { name: "acp agent", label: "acp", route: "/params/sessionId", jsonrpc: true };

/// The ACP protocol version this client speaks.
const PROTOCOL_VERSION: u64 = 1;

/// How the host runs the agent.
#[derive(Debug, Clone)]
pub struct AcpConfig {
    /// The agent's command line (after `--`): program, then its arguments.
    pub command: Vec<String>,
    /// Deadline of every request but `session/prompt`.
    pub request_timeout: Duration,
}

/// The mode ids a session's agent advertised.
#[derive(Debug, Clone, Default)]
struct Modes {
    /// The id that reads as plan mode.
    plan: Option<String>,
    /// The id that reads as the default mode (else the one the session started in).
    default: Option<String>,
}

/// What a session is in the current process.
struct Link {
    /// The ACP session id.
    session_id: String,
    modes: Modes,
    inbound: Arc<Mutex<mpsc::Receiver<Inbound>>>,
}

/// The process of the moment and the sessions in it.
struct Slot {
    child: Option<Arc<Child>>,
    links: HashMap<String, Arc<Link>>,
    started: u64,
    /// The agent's `initialize` answer advertised `loadSession`.
    load_session: bool,
}

/// The runtime the host holds (`--agent acp`).
pub struct Acp {
    config: AcpConfig,
    slot: Mutex<Slot>,
    /// The agent's name from its `initialize` answer (`""` before it).
    agent: std::sync::Mutex<String>,
}

/// A failure of the runtime, worded for the session's agent error.
#[derive(Debug)]
pub struct AgentFailure(pub String);

impl Acp {
    pub fn new(config: AcpConfig) -> Acp {
        Acp {
            config,
            slot: Mutex::new(Slot { child: None, links: HashMap::new(), started: 0, load_session: false }),
            agent: std::sync::Mutex::new(String::new()),
        }
    }

    /// What the start-up line says about the agent.
    pub fn banner(&self) -> String {
        format!("acp agent ({})", self.config.command.join(" "))
    }

    /// The agent's name (its `agentInfo` title, else name), once it started.
    pub fn agent_name(&self) -> String {
        self.agent.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The live process, started (and initialized) if there is none.
    async fn child(&self, slot: &mut Slot) -> Result<Arc<Child>, AgentFailure> {
        if let Some(c) = slot.child.as_ref().filter(|c| c.is_live()) {
            return Ok(c.clone());
        }
        slot.links.clear();
        slot.started += 1;
        let Some((program, args)) = self.config.command.split_first() else {
            return Err(AgentFailure("no ACP agent command: pass it after `--agent acp --`".into()));
        };
        let scope = format!("acp-{}-{}", std::process::id(), slot.started);
        let child = Child::spawn_peer(&PathBuf::from(program), args, &[], scope, PEER)
            .map_err(|e| AgentFailure(format!("cannot start the ACP agent `{program}`: {e}")))?;
        let init = json!({
            "protocolVersion": PROTOCOL_VERSION,
            // Neither file system nor terminal methods are served: the agent uses its own.
            "clientCapabilities": { "fs": { "readTextFile": false, "writeTextFile": false }, "terminal": false },
            "clientInfo": { "name": "agent-session-host", "title": "agent-session reference host", "version": env!("CARGO_PKG_VERSION") }
        });
        let answer = match child.request("initialize", init, self.config.request_timeout).await {
            Ok(a) => a,
            Err(e) => {
                child.kill();
                return Err(AgentFailure(format!("the ACP agent did not start: {e}")));
            }
        };
        let version = answer.get("protocolVersion").and_then(Value::as_u64);
        if version != Some(PROTOCOL_VERSION) {
            child.kill();
            return Err(AgentFailure(format!(
                "the ACP agent speaks protocol version {}, this host {PROTOCOL_VERSION}",
                version.map_or_else(|| "(none)".to_string(), |v| v.to_string())
            )));
        }
        slot.load_session = answer.pointer("/agentCapabilities/loadSession").and_then(Value::as_bool).unwrap_or(false);
        let name = ["/agentInfo/title", "/agentInfo/name"]
            .iter()
            .find_map(|p| answer.pointer(p).and_then(Value::as_str).filter(|n| !n.is_empty()))
            .unwrap_or("acp agent");
        *self.agent.lock().unwrap_or_else(|e| e.into_inner()) = name.to_string();
        slot.child = Some(child.clone());
        Ok(child)
    }

    /// The process and the session's ACP session in it: loaded when the session has one (and
    /// the agent can load), created otherwise.
    async fn link(&self, app: &Base, s: &Session) -> Result<(Arc<Child>, Arc<Link>), AgentFailure> {
        let mut slot = self.slot.lock().await;
        let child = self.child(&mut slot).await?;
        if let Some(l) = slot.links.get(&s.id) {
            return Ok((child, l.clone()));
        }
        let cwd = s
            .cwd
            .clone()
            .unwrap_or_else(|| std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default());
        let known = app.store.agent_thread(s.pk).map_err(|e| AgentFailure(e.to_string()))?;
        let mut opened = None;
        match known {
            Some(id) if slot.load_session => {
                let inbound = child.subscribe(&id);
                let params = json!({ "sessionId": id, "cwd": cwd, "mcpServers": [] });
                match self.load(&child, params, inbound).await {
                    Ok((result, inbound)) => opened = Some((id, result, inbound)),
                    Err(e) => agent_error(
                        app,
                        s,
                        format!("the ACP agent could not load session {id} ({e}); the conversation continues in a new session"),
                    ),
                }
            }
            Some(id) => agent_error(
                app,
                s,
                format!("the ACP agent cannot load sessions (no loadSession): session {id} is lost, the conversation continues in a new one"),
            ),
            None => {}
        }
        let (session_id, result, inbound) = match opened {
            Some(o) => o,
            None => {
                let params = json!({ "cwd": cwd, "mcpServers": [] });
                let r = child
                    .request("session/new", params, self.config.request_timeout)
                    .await
                    .map_err(|e| AgentFailure(format!("ACP session/new failed: {e}")))?;
                let id = r
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .ok_or_else(|| AgentFailure("the ACP agent answered session/new without a sessionId".into()))?
                    .to_string();
                app.store.set_agent_thread(s.pk, &id).map_err(|e| AgentFailure(e.to_string()))?;
                let inbound = child.subscribe(&id);
                (id, r, inbound)
            }
        };
        session_result(app, s, &result).await.map_err(|e| AgentFailure(e.to_string()))?;
        let link = Arc::new(Link { session_id, modes: modes(&result), inbound: Arc::new(Mutex::new(inbound)) });
        slot.links.insert(s.id.clone(), link.clone());
        Ok((child, link))
    }

    /// `session/load`: the agent replays the conversation as `session/update`s before its
    /// answer; they are already in the log, so they are read and dropped while waiting (a long
    /// history must not fill the session's queue and stall the reader).
    async fn load(
        &self,
        child: &Child,
        params: Value,
        mut inbound: mpsc::Receiver<Inbound>,
    ) -> Result<(Value, mpsc::Receiver<Inbound>), RequestError> {
        let call = child.call("session/load", params).await?;
        let answer = call.answer();
        tokio::pin!(answer);
        let deadline = Instant::now() + self.config.request_timeout;
        let mut replayed = 0u64;
        loop {
            tokio::select! {
                r = &mut answer => {
                    if replayed > 0 {
                        eprintln!("agent-session-host: acp session/load replayed {replayed} messages (already in the log)");
                    }
                    return r.map(|v| (v, inbound));
                }
                m = inbound.recv() => match m {
                    Some(Inbound::Message(v)) => {
                        replayed += 1;
                        // A request during the replay has no turn to answer it.
                        if let (Some(id), Some(method)) = (v.get("id"), v.get("method").and_then(Value::as_str)) {
                            let _ = child.reply(&crate::agent::codex::child::refusal(id, method)).await;
                        }
                    }
                    Some(Inbound::Malformed(_)) => {}
                    Some(Inbound::Exited(why)) => return Err(RequestError::Exited(why)),
                    None => return Err(RequestError::Exited("the ACP agent went away".into())),
                },
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(RequestError::Timeout { peer: PEER.name, method: "session/load" });
                }
            }
        }
    }

    /// Starts the agent ahead of the first prompt (so `host.describe` names it). A failure is
    /// only reported here: the first prompt tries again and fails its turn with the reason.
    pub async fn warm(&self) {
        let mut slot = self.slot.lock().await;
        if let Err(e) = self.child(&mut slot).await {
            eprintln!("agent-session-host: {}", e.0);
        }
    }

    /// Ends the process (host shutdown).
    pub async fn shutdown(&self) {
        if let Some(c) = self.slot.lock().await.child.take() {
            c.kill();
        }
    }
}

/// The mode ids of a `session/new` / `session/load` answer.
fn modes(result: &Value) -> Modes {
    let ids: Vec<&str> = result
        .pointer("/modes/availableModes")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|m| m.get("id").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    let current = result.pointer("/modes/currentModeId").and_then(Value::as_str);
    let reads_as = |mode: OperatingMode| ids.iter().find(|id| mode_from_id(id).mode == mode).map(|id| id.to_string());
    Modes {
        plan: reads_as(OperatingMode::Plan),
        default: reads_as(OperatingMode::Default).or_else(|| current.map(str::to_owned)),
    }
}

/// The session's `agent/error` on the host downlink.
fn agent_error(app: &Base, s: &Session, message: String) {
    app.hub.host(app.hub.out(&Frame::AgentError(AgentErrorFrame { session_id: Some(s.id.clone()), message })));
}

/// A `session/new` / `session/load` answer through the adapter (capabilities and mode).
async fn session_result(app: &Base, s: &Session, result: &Value) -> Result<(), AppendError> {
    let mut log = s.log.lock().await;
    let Some(ps) = log.provider.as_mut() else { return Ok(()) };
    let ProviderAdapter::Cursor(adapter) = &mut ps.adapter else { return Ok(()) };
    let outs = adapter.ingest_session_result(result);
    provider::apply_basic(app, s, &mut log, outs)
}

#[cfg(test)]
mod tests {
    use super::modes;
    use serde_json::json;

    #[test]
    fn plan_and_default_ids_come_from_the_advertised_modes() {
        // claude-code-acp 0.16.2's session/new modes.
        let claude = json!({ "modes": { "currentModeId": "default", "availableModes": [
            { "id": "default" }, { "id": "acceptEdits" }, { "id": "plan" }, { "id": "dontAsk" } ] } });
        let m = modes(&claude);
        assert_eq!((m.plan.as_deref(), m.default.as_deref()), (Some("plan"), Some("default")));
        // Cursor's ids: `agent` is its default mode.
        let cursor = json!({ "modes": { "currentModeId": "ask", "availableModes": [
            { "id": "agent" }, { "id": "plan" }, { "id": "ask" } ] } });
        let m = modes(&cursor);
        assert_eq!((m.plan.as_deref(), m.default.as_deref()), (Some("plan"), Some("agent")));
        // codex-acp 0.16.0: no plan mode; its default is the one it starts in.
        let codex = json!({ "modes": { "currentModeId": "read-only", "availableModes": [
            { "id": "read-only" }, { "id": "auto" }, { "id": "full-access" } ] } });
        let m = modes(&codex);
        assert_eq!((m.plan.as_deref(), m.default.as_deref()), (None, Some("read-only")));
        // No modes at all: nothing to set.
        let m = modes(&json!({ "sessionId": "s" }));
        assert_eq!((m.plan, m.default), (None, None));
    }
}
