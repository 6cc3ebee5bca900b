//! One turn of a session on the real Claude Code: the committed plan mode set on the process
//! (`set_permission_mode` when it differs), the prompt as one stream-json user message, every
//! line through the session's Claude adapter until the turn's `result`, and the CLI's
//! permission requests answered from the session's questions and approvals.
//!
//! - AskUserQuestion: the adapter makes the prompt from the `tool_use`; the CLI's
//!   `can_use_tool` for it is held until the session answers, then allowed with
//!   `updatedInput: {questions, answers}` (the answers alone fail the tool's validation). One
//!   whose `tool_use` the adapter could not make a prompt of is denied at once.
//! - Any other tool's `can_use_tool` is an approval; allowing ExitPlanMode commits plan mode
//!   off at once (the CLI leaves plan mode with the same answer).
//! - A cancel (or a steer) sends the control request `interrupt` and waits for the `result` at
//!   most [`CANCEL_WAIT`]; a process that does not end the turn by then is killed (the next turn
//!   resumes the conversation in a new one).
//! - A question or approval still pending when the turn ends (interrupted, failed, the process
//!   gone) is resolved `cancelled`: the CLI never asks it again, after a resume neither.
//! - A resumed process that ends before its first `system/init` (Claude no longer has the
//!   conversation) is replaced once by a fresh one, and the prompt goes to it.

use super::child::{refusal, Child, ControlError, Inbound};
use super::{agent_error, Claude, Proc};
use crate::agent::outputs::Out;
use crate::agent::turns::{sole_provider, Run, Runtime, Stop, TurnFuture, CANCEL_WAIT};
use crate::log::interact::Kind;
use crate::log::session::Waiting;
use crate::providers::adapters::claude::{control_response, ASK_USER_QUESTION, EXIT_PLAN_MODE};
use crate::providers::adapters::{Answered, ApprovalRequest, Canonical, ProviderAdapter};
use crate::providers::registry::Provider;
use agent_session_wire::interaction::EV_PROVIDER_NATIVE;
use agent_session_wire::{ApprovalOutcome, ApprovalResolved, Frame, RpcResult};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::time::Instant;

impl Runtime for Claude {
    fn turn<'a>(&'a self, run: &'a mut Run<'_>) -> TurnFuture<'a> {
        Box::pin(run.claude_turn(self))
    }

    fn scripted_modes(&self) -> bool {
        false
    }

    fn session_provider(&self, asked: Option<Provider>) -> Result<Option<Provider>, String> {
        sole_provider(Provider::Claude, "the claude agent", asked)
    }

    fn describe(&self) -> (String, String) {
        ("claude".to_string(), self.model_hint())
    }
}

/// Answers queued for the turn at once (their senders wait for room beyond that).
const REPLIES: usize = 64;

/// An answer the turn forwards to the CLI.
enum Reply {
    Question(Answered),
    /// `None`: the interaction was withdrawn before anyone answered.
    Approval {
        approval_id: String,
        answer: Option<RpcResult<Value>>,
    },
}

/// How the turn ended.
enum Ended {
    Completed,
    Interrupted,
    Failed(String),
    /// A resumed process gave up before it started (the conversation is unknown to it).
    Unresumable(String),
}

/// What the turn keeps between messages.
struct Pending<'w> {
    /// Approvals on the mux: approval id -> (the rpcId `/api/respond` answers, the tool).
    approvals: BTreeMap<String, (String, String)>,
    /// Prompts asked (their waiter forwards the answer).
    questions: BTreeSet<String>,
    /// AskUserQuestion `can_use_tool` requests: tool_use id -> (request id, the tool's input).
    asks: HashMap<String, (String, Value)>,
    /// Answers that came before their `can_use_tool` (tool_use id -> `{answers}`).
    early: HashMap<String, Value>,
    /// The turn was asked to stop.
    interrupted: bool,
    /// The process said `system/init` this turn.
    saw_init: bool,
    waiting: Option<Waiting<'w>>,
}

impl Pending<'_> {
    fn new() -> Self {
        Pending {
            approvals: BTreeMap::new(),
            questions: BTreeSet::new(),
            asks: HashMap::new(),
            early: HashMap::new(),
            interrupted: false,
            saw_init: false,
            waiting: None,
        }
    }
}

/// The user message of a turn, as `--input-format stream-json` reads it.
fn user_message(text: &str) -> Value {
    json!({
        "type": "user",
        "message": { "role": "user", "content": [{ "type": "text", "text": text }] },
        "parent_tool_use_id": null,
        "session_id": ""
    })
}

/// The control request that sets the permission mode (also what the adapter reads the
/// turn's mode from).
fn mode_request(mode: &str) -> Value {
    json!({ "subtype": "set_permission_mode", "mode": mode })
}

impl<'r> Run<'r> {
    async fn claude_turn(&mut self, claude: &Claude) -> Result<(), Stop> {
        let want = if self.turn.plan_mode { "plan".to_string() } else { claude.config.permission_mode.clone() };
        {
            let mut log = self.s.log.lock().await;
            let request =
                json!({ "type": "control_request", "request_id": "turn-start", "request": mode_request(&want) });
            crate::agent::provider::mode_at_turn_start(self.app, self.s, &mut log, &request)?;
        }
        self.log("step/start", json!({ "turn": self.turn.number, "step": 1 })).await?;
        let mut out = Out::real(&claude.model_hint());
        let mut resume = true;
        loop {
            let p = claude.proc(self.app, self.s, &want, resume).await.map_err(Stop::Agent)?;
            let ended = self.claude_attempt(claude, &p, &want, &mut out).await;
            let ended = match ended {
                Ok(e) => e,
                Err(e) => {
                    claude.drop_proc(self.s, &p).await;
                    p.child.kill();
                    return Err(e);
                }
            };
            match ended {
                Ended::Completed => {
                    self.end_step(&mut out, "stop").await?;
                    return Ok(());
                }
                Ended::Interrupted => {
                    out.abandon();
                    return Err(Stop::Interrupted);
                }
                Ended::Failed(why) => {
                    out.abandon();
                    if !p.child.is_live() {
                        claude.drop_proc(self.s, &p).await;
                    }
                    return Err(Stop::Agent(why));
                }
                Ended::Unresumable(why) if resume => {
                    agent_error(
                        self.app,
                        self.s,
                        format!(
                            "claude could not resume this session's conversation ({why}); it continues in a new one"
                        ),
                    );
                    p.child.kill();
                    claude.drop_proc(self.s, &p).await;
                    resume = false;
                }
                Ended::Unresumable(why) => {
                    out.abandon();
                    return Err(Stop::Agent(why));
                }
            }
        }
    }

    /// The turn on one process, up to its `result` (or the process's end).
    async fn claude_attempt(
        &mut self,
        claude: &Claude,
        p: &Arc<Proc>,
        want: &str,
        out: &mut Out,
    ) -> Result<Ended, Stop> {
        let child = p.child.clone();
        let timeout = claude.config.request_timeout;
        let mut inbound = p.inbound.lock().await;
        // What came while no turn ran: a permission request among it has nobody to answer it;
        // a new process that is already done said why (a resume Claude refused).
        let resuming = p.resuming.load(Ordering::Relaxed);
        while let Ok(queued) = inbound.try_recv() {
            match queued {
                Inbound::Message(m) if resuming && m.get("type").and_then(Value::as_str) == Some("result") => {
                    let none = Pending::new();
                    return Ok(self.result_end(p, &m, &none));
                }
                Inbound::Message(m) => refuse_stale(&child, &m).await,
                Inbound::Exited(why) if resuming => return Ok(Ended::Unresumable(why)),
                Inbound::Exited(why) => return Ok(Ended::Failed(why)),
                Inbound::Malformed(_) => {}
            }
        }
        if p.mode() != want {
            match child.control("set_permission_mode", mode_request(want), timeout).await {
                Ok(_) => p.set_mode(want),
                Err(e) => {
                    if matches!(e, ControlError::Timeout(_)) {
                        child.kill();
                    }
                    return Ok(Ended::Failed(format!("claude set_permission_mode {want}: {e}")));
                }
            }
        }
        if let Err(e) = child.send(&user_message(&self.turn.text)).await {
            return Ok(Ended::Failed(e.to_string()));
        }
        let mut pend = Pending::new();
        // Each waiting question or approval sends at most one answer.
        let (reply_tx, mut reply_rx) = mpsc::channel::<Reply>(REPLIES);
        let mut interrupt = self.interrupt.clone();
        let mut deadline: Option<Instant> = None;
        let ended = loop {
            tokio::select! {
                m = inbound.recv() => match m {
                    None => break Ended::Failed(child.exited().unwrap_or_else(|| "claude went away".into())),
                    Some(Inbound::Exited(why)) => {
                        break if p.resuming.load(Ordering::Relaxed) && !pend.saw_init { Ended::Unresumable(why) } else { Ended::Failed(why) };
                    }
                    Some(Inbound::Malformed(what)) => {
                        agent_error(self.app, self.s, format!("claude wrote {what}; it was dropped"));
                    }
                    Some(Inbound::Message(v)) => {
                        if let Some(end) = self.claude_message(claude, p, &v, out, &mut pend, &reply_tx).await? {
                            break end;
                        }
                    }
                },
                Some(r) = reply_rx.recv() => self.claude_reply(&child, r, &mut pend).await?,
                // (The watch guard is not Send: drop it inside.)
                _ = async { let _ = interrupt.wait_for(|i| *i).await; }, if deadline.is_none() => {
                    deadline = Some(Instant::now() + CANCEL_WAIT);
                    pend.interrupted = true;
                    if let Err(e) = child.control("interrupt", json!({ "subtype": "interrupt" }), timeout).await {
                        eprintln!("agent-session-host: {}: claude interrupt: {e}", self.s.id);
                    }
                }
                _ = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    // It did not end the turn: a process mid-turn cannot take the next one.
                    child.kill();
                    break Ended::Interrupted;
                }
            }
        };
        self.claude_withdraw_pending(out, &mut pend).await?;
        Ok(ended)
    }

    /// One message of the process; `Some` when it ends the turn.
    async fn claude_message(
        &mut self,
        claude: &Claude,
        p: &Proc,
        v: &Value,
        out: &mut Out,
        pend: &mut Pending<'r>,
        reply_tx: &mpsc::Sender<Reply>,
    ) -> Result<Option<Ended>, Stop> {
        let ty = v.get("type").and_then(Value::as_str).unwrap_or_default();
        if let Some(sid) = v.get("session_id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            if matches!(ty, "system" | "result") {
                self.keep_session_id(sid);
            }
        }
        match ty {
            "system" => {
                if v.get("subtype").and_then(Value::as_str) == Some("init") {
                    pend.saw_init = true;
                    p.resuming.store(false, Ordering::Relaxed);
                    if let Some(model) = v.get("model").and_then(Value::as_str).filter(|m| !m.is_empty()) {
                        claude.set_model(model);
                        out.set_model(model);
                    }
                }
                if let Some(mode) = v.get("permissionMode").and_then(Value::as_str) {
                    p.set_mode(mode);
                }
            }
            "result" => return Ok(Some(self.result_end(p, v, pend))),
            "control_request" => {
                let rid = v.get("request_id").and_then(Value::as_str).unwrap_or_default().to_string();
                let req = v.get("request").cloned().unwrap_or(Value::Null);
                let subtype = req.get("subtype").and_then(Value::as_str).unwrap_or_default();
                if subtype != "can_use_tool" {
                    let why = format!("control request {subtype:?} is not served by agent-session-host");
                    let _ = p.child.send(&refusal(&rid, &why)).await;
                    return Ok(None);
                }
                if req.get("tool_name").and_then(Value::as_str) == Some(ASK_USER_QUESTION) {
                    let tool_use = req.get("tool_use_id").and_then(Value::as_str).unwrap_or_default().to_string();
                    let input = req.get("input").cloned().unwrap_or(Value::Null);
                    if !self.is_asking(&tool_use).await && !pend.early.contains_key(&tool_use) {
                        // Its tool_use was not a question the session could show (the adapter
                        // dropped it): nobody can answer, so it must not wait.
                        let no =
                            json!({ "behavior": "deny", "message": "The question could not be shown to the user." });
                        let _ = p.child.send(&control_response(&rid, no)).await;
                        return Ok(None);
                    }
                    match pend.early.remove(&tool_use) {
                        Some(answers) => self.allow_question(&p.child, &rid, &input, answers).await,
                        None => {
                            pend.asks.insert(tool_use, (rid, input));
                        }
                    }
                    return Ok(None);
                }
            }
            "control_cancel_request" => {
                let rid = v.get("request_id").and_then(Value::as_str).unwrap_or_default();
                pend.asks.retain(|_, (r, _)| r != rid);
            }
            _ => {}
        }
        let mut log = self.s.log.lock().await;
        let Some(ps) = log.provider.as_mut() else { return Ok(None) };
        let mut outs = ps.adapter.ingest(v);
        // A delta's native copy would double the log of every streamed reply.
        if ty == "stream_event" {
            outs.retain(|o| !matches!(o, Canonical::Event { kind, .. } if *kind == EV_PROVIDER_NATIVE));
        }
        let (approvals, rest): (Vec<Canonical>, Vec<Canonical>) =
            outs.into_iter().partition(|o| matches!(o, Canonical::Approval(_) | Canonical::ApprovalWithdrawn { .. }));
        if let Some((prompt_id, rx)) = self.apply(&mut log, rest, out)? {
            pend.questions.insert(prompt_id);
            let tx = reply_tx.clone();
            tokio::spawn(async move {
                if let Ok(a) = rx.await {
                    let _ = tx.send(Reply::Question(a)).await;
                }
            });
        }
        drop(log);
        for a in approvals {
            match a {
                Canonical::Approval(req) => self.claude_ask_approval(req, pend, reply_tx),
                Canonical::ApprovalWithdrawn { approval_id } => self.claude_approval_resolved(&approval_id, None, pend),
                _ => {}
            }
        }
        self.claude_update_waiting(pend);
        Ok(None)
    }

    /// Whether the session's adapter shows AskUserQuestion `tool_use_id` as a waiting prompt.
    async fn is_asking(&self, tool_use_id: &str) -> bool {
        let log = self.s.log.lock().await;
        matches!(log.provider.as_ref().map(|ps| &ps.adapter), Some(ProviderAdapter::Claude(a)) if a.is_asking(tool_use_id))
    }

    /// Claude's `session_id`, kept for `--resume` (it stays the same across a resume).
    fn keep_session_id(&self, sid: &str) {
        match self.app.store.agent_thread(self.s.pk) {
            Ok(Some(known)) if known == sid => {}
            _ => {
                if let Err(e) = self.app.store.set_agent_thread(self.s.pk, sid) {
                    eprintln!("agent-session-host: {}: the claude session id was not stored: {e}", self.s.id);
                }
            }
        }
    }

    /// How a `result` ends the turn.
    fn result_end(&self, p: &Proc, v: &Value, pend: &Pending<'r>) -> Ended {
        let subtype = v.get("subtype").and_then(Value::as_str).unwrap_or_default();
        let is_error = v.get("is_error").and_then(Value::as_bool).unwrap_or(false);
        if subtype == "success" && !is_error {
            return Ended::Completed;
        }
        if pend.interrupted {
            return Ended::Interrupted;
        }
        let errors: Vec<&str> = v
            .get("errors")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let why = v
            .get("result")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .map(str::to_owned)
            .or_else(|| (!errors.is_empty()).then(|| errors.join("; ")))
            .unwrap_or_else(|| format!("claude ended the turn with {subtype:?}"));
        if p.resuming.load(Ordering::Relaxed) && !pend.saw_init {
            return Ended::Unresumable(why);
        }
        Ended::Failed(why)
    }

    /// Allows a held AskUserQuestion with the session's answers.
    async fn allow_question(&self, child: &Child, request_id: &str, input: &Value, answers: Value) {
        let mut updated = input.clone();
        if let Some(o) = updated.as_object_mut() {
            o.insert("answers".into(), answers);
        }
        let msg = control_response(request_id, json!({ "behavior": "allow", "updatedInput": updated }));
        if let Err(e) = child.send(&msg).await {
            eprintln!("agent-session-host: {}: answering claude: {e}", self.s.id);
        }
    }

    /// An approval on the mux, answered through `/api/respond`.
    fn claude_ask_approval(&self, req: ApprovalRequest, pend: &mut Pending<'r>, reply_tx: &mpsc::Sender<Reply>) {
        let rpc_id = uuid::Uuid::new_v4().to_string();
        let out = self.app.hub.out_with_rpc_id(&Frame::ApprovalRequested(req.frame(&self.s.id)), rpc_id.clone());
        let rx = self.app.interactions.register(&self.s.id, Kind::Approval, out.clone());
        self.app.hub.mux(out);
        pend.approvals.insert(req.approval_id.clone(), (rpc_id, req.tool_name.clone()));
        let tx = reply_tx.clone();
        let approval_id = req.approval_id;
        tokio::spawn(async move {
            let answer = rx.await.ok();
            let _ = tx.send(Reply::Approval { approval_id, answer }).await;
        });
    }

    /// `approval/resolved` on the mux (`None`: withdrawn, `cancelled`).
    fn claude_approval_resolved(&self, approval_id: &str, outcome: Option<ApprovalOutcome>, pend: &mut Pending<'r>) {
        let Some((rpc_id, _)) = pend.approvals.remove(approval_id) else { return };
        self.app.interactions.remove(&rpc_id);
        let frame = Frame::ApprovalResolved(ApprovalResolved {
            session_id: self.s.id.clone(),
            approval_id: approval_id.to_string(),
            outcome: outcome.unwrap_or(ApprovalOutcome::Cancelled),
        });
        self.app.hub.mux(self.app.hub.out(&frame));
    }

    fn claude_update_waiting(&self, pend: &mut Pending<'r>) {
        let waits = !pend.approvals.is_empty() || !pend.questions.is_empty();
        match (waits, pend.waiting.is_some()) {
            (true, false) => pend.waiting = Some(Waiting::start(self.app, self.s)),
            (false, true) => pend.waiting = None,
            _ => {}
        }
    }

    /// An answer from the session, written back to the CLI.
    async fn claude_reply(&mut self, child: &Child, r: Reply, pend: &mut Pending<'r>) -> Result<(), Stop> {
        match r {
            Reply::Question(a) => {
                pend.questions.retain(|q| !answered_prompt(&a, q));
                let tool_use = a.native_id.as_str().unwrap_or_default().to_string();
                let answers = a.result.get("answers").cloned().unwrap_or_else(|| json!({}));
                match pend.asks.remove(&tool_use) {
                    Some((rid, input)) => self.allow_question(child, &rid, &input, answers).await,
                    None => {
                        pend.early.insert(tool_use, answers);
                    }
                }
            }
            Reply::Approval { answer: None, .. } => {}
            Reply::Approval { approval_id, answer: Some(answer) } => {
                let outcome = match &answer {
                    Ok(v) => v
                        .get("outcome")
                        .and_then(|o| serde_json::from_value(o.clone()).ok())
                        .unwrap_or(ApprovalOutcome::Rejected),
                    Err(_) => ApprovalOutcome::Rejected,
                };
                let tool = pend.approvals.get(&approval_id).map(|(_, t)| t.clone()).unwrap_or_default();
                let reply = {
                    let mut log = self.s.log.lock().await;
                    let reply = log.provider.as_mut().map(|ps| ps.adapter.respond_approval(&approval_id, outcome));
                    // The CLI leaves plan mode with this answer: so does the session, at once.
                    if tool == EXIT_PLAN_MODE && outcome == ApprovalOutcome::AllowedOnce && matches!(reply, Some(Ok(_)))
                    {
                        crate::log::plan::leave_now(self.app, self.s, &mut log)?;
                    }
                    reply
                };
                if let Some(Ok(msg)) = reply {
                    if let Err(e) = child.send(&msg).await {
                        eprintln!("agent-session-host: {}: answering claude: {e}", self.s.id);
                    }
                    self.claude_approval_resolved(&approval_id, Some(outcome), pend);
                }
            }
        }
        self.claude_update_waiting(pend);
        Ok(())
    }

    /// Resolves what the CLI still waited on as `cancelled`.
    async fn claude_withdraw_pending(&mut self, out: &mut Out, pend: &mut Pending<'r>) -> Result<(), Stop> {
        let ids: Vec<String> = pend.approvals.keys().cloned().collect();
        for id in ids {
            self.claude_approval_resolved(&id, None, pend);
        }
        {
            let mut log = self.s.log.lock().await;
            let outs = match log.provider.as_mut().map(|ps| &mut ps.adapter) {
                Some(ProviderAdapter::Claude(a)) => a.withdraw_all(),
                _ => Vec::new(),
            };
            self.apply(&mut log, outs, out)?;
        }
        pend.questions.clear();
        pend.asks.clear();
        pend.waiting = None;
        Ok(())
    }
}

/// Answers a permission request left from a turn that is over (nobody can decide it now).
async fn refuse_stale(child: &Child, m: &Value) {
    if m.get("type").and_then(Value::as_str) != Some("control_request") {
        return;
    }
    let Some(rid) = m.get("request_id").and_then(Value::as_str) else { return };
    let msg = if m.pointer("/request/subtype").and_then(Value::as_str) == Some("can_use_tool") {
        control_response(rid, json!({ "behavior": "deny", "message": "No turn is running to decide this." }))
    } else {
        refusal(rid, "no turn is running")
    };
    let _ = child.send(&msg).await;
}

/// Whether an accepted answer resolved the prompt `prompt_id` (its resolution event names it).
fn answered_prompt(a: &Answered, prompt_id: &str) -> bool {
    a.outputs.iter().any(|o| match o {
        Canonical::Event { data, .. } => data.pointer("/prompt/promptId").and_then(Value::as_str) == Some(prompt_id),
        _ => false,
    })
}
