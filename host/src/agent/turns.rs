//! The turn runner every agent shares.
//!
//! A prompt on an idle session starts a turn before the RPC answers (so `turn/start`, the
//! plan commit and `user/message` are committed by the time the client hears `accepted`);
//! the rest of the turn is played by the host's [`Runtime`] from a driver task. While a turn
//! runs, `queue` prompts wait for it and `steer` interrupts it (`turn/end
//! {reason:{kind:'interrupted'}}`) and starts a new turn with the steering message as its
//! `user/message`. `session.cancel` interrupts the turn, drops queued prompts and answers once
//! `turn/end` is committed.

use crate::agent::provider;
use crate::log::base::Base;
use crate::log::plan;
use crate::log::session::{AppendError, Control, NewEvent, Prompt, Session, SessionRef, TitleState};
use crate::log::store::SessionUpdate;
use crate::providers::registry::Provider;
use crate::providers::scripted::texts;
use agent_session_wire::{AgentErrorFrame, Frame, PromptMode, RpcError};
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How long `session.cancel` waits for the turn to wind down before answering anyway.
pub(crate) const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// Why a turn stopped early.
pub enum Stop {
    Interrupted,
    /// The log could not be written.
    Failed(AppendError),
    /// The agent failed the turn (its process died, it answered with an error, ...), worded
    /// for the session's `agent/error`.
    Agent(String),
}

impl From<AppendError> for Stop {
    fn from(e: AppendError) -> Self {
        Stop::Failed(e)
    }
}

/// A started turn.
pub struct Turn {
    pub number: u64,
    pub text: String,
    /// Plan mode as committed at this turn's start.
    pub plan_mode: bool,
    pub user_seq: u64,
    /// The first turn of a session also "asks the model" for a title mid-stream.
    pub title_request: bool,
    /// What the "model" says about the prompt's images (their sizes).
    pub images: Vec<String>,
}

/// A boxed turn body (the runtimes are held as trait objects).
pub type TurnFuture<'a> = Pin<Box<dyn Future<Output = Result<(), Stop>> + Send + 'a>>;

/// What plays a turn's body: the scripted agent or a real agent's runtime.
pub trait Runtime: Send + Sync {
    /// Plays the turn after `turn/start`, the plan commit and `user/message` are logged;
    /// the runner logs `turn/end` from its outcome.
    fn turn<'a>(&'a self, run: &'a mut Run<'_>) -> TurnFuture<'a>;
    /// Whether a provider session's mode is fed to its adapter from the scripted profile at a
    /// turn start (a real agent's runtime feeds the request it really sends instead).
    fn scripted_modes(&self) -> bool;
    /// A new session's provider: `Err` (the sentence for the payload issue) when this runtime
    /// cannot play the one asked for.
    fn session_provider(&self, asked: Option<Provider>) -> Result<Option<Provider>, String>;
    /// `host.describe`'s provider and model (a real agent names its provider: a UI offers
    /// that one; the scripted agent's provider is its own name, and every profile is offered).
    fn describe(&self) -> (String, String);
}

/// [`Runtime::session_provider`] of a runtime that plays one provider only, `agent` in the
/// refusal's words (`the codex agent`, `an ACP agent`).
pub fn sole_provider(runs: Provider, agent: &str, asked: Option<Provider>) -> Result<Option<Provider>, String> {
    match asked {
        None => Ok(Some(runs)),
        Some(p) if p == runs => Ok(Some(runs)),
        Some(other) => Err(format!("this host runs {agent}: provider {:?} is not available here", other.name())),
    }
}

fn internal(e: impl std::fmt::Display) -> RpcError {
    RpcError::new(agent_session_wire::ErrorCode::Internal, e.to_string(), json!({}))
}

pub async fn prompt(
    app: &Arc<Base>,
    runtime: &Arc<dyn Runtime>,
    s: &SessionRef,
    mode: PromptMode,
    prompt: Prompt,
) -> Result<(), RpcError> {
    let mut ctl = s.ctl.lock().await;
    // Idempotent by the envelope rpcId: a prompt sent again (its first answer was lost)
    // is answered as the first one was, and logs nothing new.
    if ctl.accepted.contains(&prompt.rpc_id) || app.store.has_prompt(s.pk, &prompt.rpc_id).map_err(internal)? {
        return Ok(());
    }
    ctl.accepted.insert(prompt.rpc_id.clone());
    if ctl.running {
        match mode {
            PromptMode::Queue => {
                ctl.queue.push_back(prompt);
                publish_queue(app, s, &ctl.queue);
            }
            PromptMode::Steer => {
                ctl.queue.push_front(prompt);
                keep_queue(app, s, &ctl.queue);
                if let Some(tx) = &ctl.interrupt {
                    tx.send_replace(true);
                }
            }
        }
        return Ok(());
    }
    // Prompts held over a cancel go first (the 2026-08 host keeps them).
    let (prompt, held) = match ctl.queue.pop_front() {
        Some(first) => {
            ctl.queue.push_back(prompt);
            (first, true)
        }
        None => (prompt, false),
    };
    let rpc_id = prompt.rpc_id.clone();
    let started = start(app, runtime, s, &mut ctl, prompt).await;
    if held {
        // After the turn's `user/message` is logged: a restart between the two finds the
        // prompt in the log, never in neither.
        publish_queue(app, s, &ctl.queue);
    }
    started.inspect_err(|_| {
        ctl.accepted.remove(&rpc_id);
    })
}

/// Starts a turn for `prompt` on an idle session and its driver task.
async fn start(
    app: &Arc<Base>,
    runtime: &Arc<dyn Runtime>,
    s: &SessionRef,
    ctl: &mut Control,
    prompt: Prompt,
) -> Result<(), RpcError> {
    let turn = begin_turn(app, s, prompt, runtime.scripted_modes()).await.map_err(internal)?;
    let (tx, rx) = watch::channel(false);
    ctl.running = true;
    ctl.interrupt = Some(tx);
    s.running.send_replace(true);
    tokio::spawn(drive(app.clone(), runtime.clone(), s.clone(), turn, rx));
    Ok(())
}

/// The queue a session's store kept (accepted prompts waiting for a turn when the host went
/// down), back in its control: every prompt the log does not show yet, each accepted again
/// by its rpcId (a client that sends it again is answered as the first time).
pub fn restore_queue(app: &Base, s: &Session, ctl: &mut Control) -> Result<(), String> {
    let Some(items) = app.store.queue(s.pk).map_err(|e| e.to_string())? else { return Ok(()) };
    let items: Vec<Value> = serde_json::from_str(&items).map_err(|e| format!("the stored queue of {}: {e}", s.id))?;
    for it in items {
        let (Some(id), Some(rpc_id), Some(content)) =
            (it["id"].as_str(), it["rpcId"].as_str(), it["content"].as_array())
        else {
            continue;
        };
        if app.store.has_prompt(s.pk, rpc_id).map_err(|e| e.to_string())? {
            continue;
        }
        ctl.accepted.insert(rpc_id.to_string());
        let client_time_zone = it["clientTimeZone"].as_str().map(str::to_string);
        ctl.queue.push_back(Prompt {
            content: content.clone(),
            rpc_id: rpc_id.to_string(),
            id: id.to_string(),
            client_time_zone,
        });
    }
    keep_queue(app, s, &ctl.queue);
    Ok(())
}

/// After a restart: a session whose queue outlived the host runs its first prompt (the turn
/// it waited for was closed as interrupted when the host came back).
pub async fn resume_queue(app: &Arc<Base>, runtime: &Arc<dyn Runtime>, s: &SessionRef) {
    let mut ctl = s.ctl.lock().await;
    if ctl.running {
        return;
    }
    let Some(first) = ctl.queue.pop_front() else { return };
    if let Err(e) = start(app, runtime, s, &mut ctl, first).await {
        eprintln!("agent-session-host: the queue of {} could not resume: {}", s.id, e.message);
    }
    publish_queue(app, s, &ctl.queue);
}

/// Writes the session's whole queue to its store (the queue frame's items are what a client
/// sees; this is what a restart reads back).
fn keep_queue(app: &Base, s: &Session, queue: &std::collections::VecDeque<Prompt>) {
    let items = (!queue.is_empty()).then(|| {
        let items: Vec<Value> =
            queue.iter().map(|p| json!({ "id": p.id, "rpcId": p.rpc_id, "content": p.content, "clientTimeZone": p.client_time_zone })).collect();
        Value::Array(items).to_string()
    });
    if let Err(e) = app.store.set_queue(s.pk, items.as_deref()) {
        eprintln!("agent-session-host: the queue of {} was not stored: {e}", s.id);
    }
}

/// `session/queue`: the whole queue after every change (the 2026-08 host's frame).
pub fn publish_queue(app: &Base, s: &Session, queue: &std::collections::VecDeque<Prompt>) {
    keep_queue(app, s, queue);
    let items: Vec<Value> = queue
        .iter()
        .map(|p| {
            let message = json!({ "content": p.content, "source": p.source(), "role": "user", "id": p.id });
            json!({ "id": p.id, "placement": "queued", "message": message })
        })
        .collect();
    let frame = Frame::Queue(agent_session_wire::QueueFrame {
        session_id: s.id.clone(),
        items: agent_session_wire::Json::from_value(&Value::Array(items)),
    });
    app.hub.mux(app.hub.out(&frame));
}

pub async fn cancel(app: &Base, s: &Session) {
    let mut running = s.running.subscribe();
    {
        let mut ctl = s.ctl.lock().await;
        if !ctl.running {
            return;
        }
        if app.options.wire.is_upstream() {
            ctl.hold_queue = true; // queued prompts wait for the next prompt
        } else {
            ctl.queue.clear();
        }
        if let Some(tx) = &ctl.interrupt {
            tx.send_replace(true);
        }
    }
    let _ = tokio::time::timeout(CANCEL_WAIT, running.wait_for(|r| !*r)).await;
}

pub(crate) fn status(app: &Base, s: &Session, running: bool) {
    s.publish_status(app, running);
}

/// The `session/title` frame right after the title event's own `session/event` frame.
pub(crate) fn title_frame(app: &Base, s: &Session, title: &str, event_seq: u64, time: f64) {
    let t = TitleState { title: title.to_string(), event_seq, updated_at: time };
    app.hub.mux(app.hub.out(&t.frame(&s.id)));
}

/// `turn/start`, the pending plan commit, `user/message` and (first message) the title.
async fn begin_turn(app: &Base, s: &Session, p: Prompt, scripted_modes: bool) -> Result<Turn, AppendError> {
    let mut log = s.log.lock().await;
    let number = log.turn + 1;
    let source = p.source();
    s.append_locked(
        app,
        &mut log,
        NewEvent::new("turn/start", json!({ "turn": number, "trigger": { "kind": "message", "source": source } })),
        &[],
    )?;
    log.turn = number;
    let text = texts::prompt_text(&p.content);
    if app.options.plan_mode {
        plan::commit_at_turn_start(app, s, &mut log)?;
        if scripted_modes {
            provider::at_turn_start(app, s, &mut log, &text)?;
        }
    }
    let user = s.append_locked(
        app,
        &mut log,
        NewEvent::message("user/message", json!({ "content": p.content, "source": source })),
        &[],
    )?;
    let mut title_request = false;
    // As upstream: the first message with text titles the session; one without waits.
    if let Some(title) = log.title.is_none().then(|| texts::fallback_title(&text)).flatten() {
        let ev = s.append_locked(
            app,
            &mut log,
            NewEvent::new(
                "session/title",
                json!({ "title": title, "messageSeqs": [user.seq], "source": { "kind": "fallback" } }),
            ),
            &[SessionUpdate::Title(title.clone())],
        )?;
        title_frame(app, s, &title, ev.seq, ev.time);
        title_request = true;
    }
    let plan_mode = app.options.plan_mode && log.plan.active;
    drop(log);
    status(app, s, true);
    let images = texts::image_notes(&p.content);
    Ok(Turn { number, text, plan_mode, user_seq: user.seq, title_request, images })
}

/// Runs turns until the queue is empty.
async fn drive(
    app: Arc<Base>,
    runtime: Arc<dyn Runtime>,
    s: SessionRef,
    mut turn: Turn,
    mut interrupt: watch::Receiver<bool>,
) {
    loop {
        let mut run = Run { app: &app, s: &s, turn: &turn, interrupt: &mut interrupt, title_due: turn.title_request };
        let outcome = runtime.turn(&mut run).await;
        let kind = match &outcome {
            Ok(()) => "completed",
            Err(Stop::Interrupted) => "interrupted",
            Err(Stop::Failed(_) | Stop::Agent(_)) => "error",
        };
        let failure = match &outcome {
            Err(Stop::Failed(e)) => Some(format!("turn {} failed: {e}", turn.number)),
            Err(Stop::Agent(why)) => Some(format!("turn {} failed: {why}", turn.number)),
            _ => None,
        };
        if let Some(message) = failure {
            app.hub.host(app.hub.out(&Frame::AgentError(AgentErrorFrame { session_id: Some(s.id.clone()), message })));
        }
        let ended =
            s.append(&app, NewEvent::new("turn/end", json!({ "turn": turn.number, "reason": { "kind": kind } }))).await;
        status(&app, &s, false);
        let mut ctl = s.ctl.lock().await;
        let hold = std::mem::take(&mut ctl.hold_queue);
        let next = if ended.is_ok() && !hold { ctl.queue.pop_front() } else { None };
        if let Some(p) = next {
            let begun = begin_turn(&app, &s, p, runtime.scripted_modes()).await;
            // After its `user/message` is logged (a restart between finds it in the log).
            publish_queue(&app, &s, &ctl.queue);
            if let Ok(t) = begun {
                let (tx, rx) = watch::channel(false);
                ctl.interrupt = Some(tx);
                interrupt = rx;
                turn = t;
                continue;
            }
        }
        ctl.running = false;
        ctl.interrupt = None;
        if !hold && !ctl.queue.is_empty() {
            ctl.queue.clear();
            publish_queue(&app, &s, &ctl.queue);
        }
        s.running.send_replace(false);
        return;
    }
}

/// One turn being played: what every runtime's body reads and writes through.
pub struct Run<'a> {
    /// Shared (an `Arc`): a turn may start a turn in another session (a subagent child,
    /// through the `Base`'s spawner).
    pub app: &'a Arc<Base>,
    pub s: &'a Session,
    pub turn: &'a Turn,
    /// Becomes `true` when the turn is to stop (cancel, steer).
    pub interrupt: &'a mut watch::Receiver<bool>,
    /// A model title is still to come this turn (the scripted agent's first turn).
    pub title_due: bool,
}

impl Run<'_> {
    pub async fn log(&self, kind: &'static str, data: Value) -> Result<u64, Stop> {
        Ok(self.s.append(self.app, NewEvent::new(kind, data)).await?.seq)
    }

    pub fn interrupted(&self) -> bool {
        *self.interrupt.borrow()
    }

    /// The pacing point between chunks; where an interrupt takes effect.
    pub async fn pause(&mut self) -> Result<(), Stop> {
        let delay = self.app.options.chunk_delay;
        if !delay.is_zero() {
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = self.interrupt.wait_for(|i| *i) => {}
            }
        } else {
            tokio::task::yield_now().await;
        }
        if self.interrupted() {
            return Err(Stop::Interrupted);
        }
        Ok(())
    }
}

/// Logs `turn/end {interrupted}` for turns a previous process left open (killed mid-turn),
/// so the log is consistent before anyone reads it.
pub fn close_dangling_turns(app: &Base, dangling: &[(SessionRef, u64)]) -> Result<(), AppendError> {
    for (s, turn) in dangling {
        let mut log = s.log.try_lock().map_err(AppendError::Locked)?;
        s.append_locked(
            app,
            &mut log,
            NewEvent::new("turn/end", json!({ "turn": turn, "reason": { "kind": "interrupted" } })),
            &[],
        )?;
    }
    Ok(())
}
