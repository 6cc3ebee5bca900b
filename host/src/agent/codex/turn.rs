//! One turn of a session on the real Codex: `turn/start` with the committed plan mode as the
//! collaboration mode, every message of the thread through the session's Codex adapter, the
//! server requests answered from the session's questions and approvals, and the end read from
//! `turn/completed`.
//!
//! - A cancel (or a steer) sends `turn/interrupt` and waits for `turn/completed
//!   {status: "interrupted"}` at most [`CANCEL_WAIT`].
//! - A question or approval Codex still waits on when the turn ends (interrupted, failed, the
//!   process gone) is resolved `cancelled` in the log and on the mux: Codex never re-asks one
//!   after a restart, so none may stay pending.
//! - A server request this host does not serve is refused at once with a JSON-RPC error, so
//!   Codex never blocks on it.

use super::child::{refusal, Child, Inbound, RequestError};
use super::{agent_error, Codex, Link};
use crate::agent::outputs::Out;
use crate::agent::provider;
use crate::agent::turns::{sole_provider, Run, Runtime, Stop, TurnFuture, CANCEL_WAIT};
use crate::log::interact::Kind;
use crate::log::session::Waiting;
use crate::providers::adapters::{codex::rpc_response, Answered, ApprovalRequest, Canonical};
use crate::providers::registry::Provider;
use agent_session_wire::interaction::EV_PROVIDER_NATIVE;
use agent_session_wire::{ApprovalOutcome, ApprovalResolved, Frame, RpcResult};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use tokio::sync::mpsc;
use tokio::time::Instant;

impl Runtime for Codex {
    fn turn<'a>(&'a self, run: &'a mut Run<'_>) -> TurnFuture<'a> {
        Box::pin(run.codex_turn(self))
    }

    fn scripted_modes(&self) -> bool {
        false
    }

    fn session_provider(&self, asked: Option<Provider>) -> Result<Option<Provider>, String> {
        sole_provider(Provider::Codex, "the codex agent", asked)
    }

    fn describe(&self) -> (String, String) {
        ("codex".to_string(), self.model_hint())
    }
}

/// An answer the turn forwards to Codex.
enum Reply {
    Question(Answered),
    /// `None`: the interaction was withdrawn before anyone answered.
    Approval {
        approval_id: String,
        answer: Option<RpcResult<Value>>,
    },
}

/// How the turn ended, as Codex said.
enum Ended {
    Completed,
    Interrupted,
    Failed(String),
}

/// What the turn keeps between messages.
struct Pending<'w> {
    turn_id: String,
    /// Server requests not yet answered: native id (its JSON text) -> the id itself.
    requests: BTreeMap<String, Value>,
    /// Approvals on the mux: approval id -> the rpcId `/api/respond` answers.
    approvals: BTreeMap<String, String>,
    /// Prompts asked (their waiter forwards the answer).
    questions: BTreeSet<String>,
    /// The last `error` notification's message (a failed turn's reason).
    last_error: Option<String>,
    waiting: Option<Waiting<'w>>,
}

fn native_key(id: &Value) -> String {
    id.to_string()
}

impl<'r> Run<'r> {
    async fn codex_turn(&mut self, codex: &Codex) -> Result<(), Stop> {
        let (child, link) = codex.link(self.app, self.s).await.map_err(|e| Stop::Agent(e.0))?;
        let mut inbound = link.inbound.lock().await;
        let mut out = Out::real(&link.model);
        self.log("step/start", json!({ "turn": self.turn.number, "step": 1 })).await?;
        // What came while no turn ran: only a late resolution still matters (its prompt was
        // already resolved when its turn ended, so it changes nothing). A server request among
        // them has nobody to answer it: refuse it, or codex would wait on it forever.
        // (Drained to the end: a malformed-line report among them must not stop the drain.)
        while let Ok(queued) = inbound.try_recv() {
            let Inbound::Message(m) = queued else { continue };
            if let (Some(id), Some(method)) = (m.get("id"), m.get("method").and_then(Value::as_str)) {
                let _ = child.reply(&refusal(id, method)).await;
            }
        }
        let params = self.turn_params(&link);
        {
            let mut log = self.s.log.lock().await;
            let request = json!({ "id": 0, "method": "turn/start", "params": params });
            provider::mode_at_turn_start(self.app, self.s, &mut log, &request)?;
        }
        let started = child.request("turn/start", params, codex.config.request_timeout).await.map_err(|e| {
            // A child that stopped answering is ended, so the next prompt starts a fresh one.
            if matches!(e, RequestError::Timeout { .. }) {
                child.kill();
            }
            Stop::Agent(format!("codex turn/start: {e}"))
        })?;
        let turn_id = started.pointer("/turn/id").and_then(Value::as_str).unwrap_or_default().to_string();
        let mut p = Pending {
            turn_id,
            requests: BTreeMap::new(),
            approvals: BTreeMap::new(),
            questions: BTreeSet::new(),
            last_error: None,
            waiting: None,
        };
        let (reply_tx, mut reply_rx) = mpsc::unbounded_channel::<Reply>();
        let mut interrupt = self.interrupt.clone();
        let mut deadline: Option<Instant> = None;
        let ended = loop {
            tokio::select! {
                m = inbound.recv() => match m {
                    None => break Ended::Failed(child.exited().unwrap_or_else(|| "codex went away".into())),
                    Some(Inbound::Exited(why)) => break Ended::Failed(why),
                    Some(Inbound::Malformed(what)) => {
                        agent_error(self.app, self.s, format!("codex wrote {what}; it was dropped"));
                    }
                    Some(Inbound::Message(v)) => {
                        if let Some(end) = self.codex_message(&child, &v, &mut out, &mut p, &reply_tx).await? {
                            break end;
                        }
                    }
                },
                Some(r) = reply_rx.recv() => self.codex_reply(&child, r, &mut p).await?,
                // (The watch guard is not Send: drop it inside.)
                _ = async { let _ = interrupt.wait_for(|i| *i).await; }, if deadline.is_none() => {
                    deadline = Some(Instant::now() + CANCEL_WAIT);
                    let params = json!({ "threadId": link.thread_id, "turnId": p.turn_id });
                    if let Err(e) = child.request("turn/interrupt", params, codex.config.request_timeout).await {
                        eprintln!("agent-session-host: {}: codex turn/interrupt: {e}", self.s.id);
                    }
                }
                _ = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    break Ended::Interrupted;
                }
            }
        };
        self.withdraw_pending(&link, &mut out, &mut p).await?;
        match ended {
            Ended::Completed => {
                self.end_step(&mut out, "stop").await?;
                Ok(())
            }
            // As the scripted agent: a cut reply is its chunks, with no message and no step end.
            Ended::Interrupted => {
                out.abandon();
                Err(Stop::Interrupted)
            }
            Ended::Failed(why) => {
                out.abandon();
                Err(Stop::Agent(why))
            }
        }
    }

    /// `turn/start`'s params: the prompt's text and the committed mode as the collaboration
    /// mode (sent on every turn: Codex keeps the last one otherwise).
    fn turn_params(&self, link: &Link) -> Value {
        let mode = if self.turn.plan_mode { "plan" } else { "default" };
        json!({
            "threadId": link.thread_id,
            "input": [{ "type": "text", "text": self.turn.text, "text_elements": [] }],
            "collaborationMode": {
                "mode": mode,
                "settings": { "model": link.model, "reasoning_effort": null, "developer_instructions": null }
            }
        })
    }

    /// One message of the thread; `Some` when it ends the turn.
    async fn codex_message(
        &mut self,
        child: &Child,
        v: &Value,
        out: &mut Out,
        p: &mut Pending<'r>,
        reply_tx: &mpsc::UnboundedSender<Reply>,
    ) -> Result<Option<Ended>, Stop> {
        let method = v.get("method").and_then(Value::as_str).unwrap_or_default();
        let params = v.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "turn/completed" => {
                let turn = params.get("turn").cloned().unwrap_or(Value::Null);
                if turn.get("id").and_then(Value::as_str) != Some(p.turn_id.as_str()) {
                    return Ok(None); // an earlier turn's
                }
                let ended = match turn.get("status").and_then(Value::as_str) {
                    Some("completed") => Ended::Completed,
                    Some("interrupted") => Ended::Interrupted,
                    _ => Ended::Failed(
                        turn.pointer("/error/message")
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                            .or_else(|| p.last_error.clone())
                            .unwrap_or_else(|| "codex failed the turn".into()),
                    ),
                };
                return Ok(Some(ended));
            }
            "error" if !params.get("willRetry").and_then(Value::as_bool).unwrap_or(false) => {
                p.last_error = params.pointer("/error/message").and_then(Value::as_str).map(str::to_owned);
            }
            _ => {}
        }
        if let Some(id) = v.get("id").filter(|_| !method.is_empty()) {
            match method {
                "item/tool/requestUserInput"
                | "item/commandExecution/requestApproval"
                | "item/fileChange/requestApproval" => {
                    p.requests.insert(native_key(id), id.clone());
                }
                _ => {
                    let _ = child.reply(&refusal(id, method)).await;
                    return Ok(None);
                }
            }
        }
        let mut log = self.s.log.lock().await;
        let Some(ps) = log.provider.as_mut() else { return Ok(None) };
        let mut outs = ps.adapter.ingest(v);
        // A delta's native copy would double the log of every streamed reply.
        if method.ends_with("elta") {
            outs.retain(|o| !matches!(o, Canonical::Event { kind, .. } if *kind == EV_PROVIDER_NATIVE));
        }
        let (approvals, rest): (Vec<Canonical>, Vec<Canonical>) =
            outs.into_iter().partition(|o| matches!(o, Canonical::Approval(_) | Canonical::ApprovalWithdrawn { .. }));
        if let Some((prompt_id, rx)) = self.apply(&mut log, rest, out)? {
            p.questions.insert(prompt_id);
            let tx = reply_tx.clone();
            tokio::spawn(async move {
                if let Ok(a) = rx.await {
                    let _ = tx.send(Reply::Question(a));
                }
            });
        }
        drop(log);
        for a in approvals {
            match a {
                Canonical::Approval(req) => self.ask_approval(req, p, reply_tx),
                Canonical::ApprovalWithdrawn { approval_id } => self.approval_resolved(&approval_id, None, p),
                _ => {}
            }
        }
        // `serverRequest/resolved` settles a request however it was answered.
        if method == "serverRequest/resolved" {
            if let Some(id) = params.get("requestId") {
                p.requests.remove(&native_key(id));
            }
        }
        self.update_waiting(p);
        Ok(None)
    }

    /// An approval on the mux, answered through `/api/respond`.
    fn ask_approval(&self, req: ApprovalRequest, p: &mut Pending<'r>, reply_tx: &mpsc::UnboundedSender<Reply>) {
        let rpc_id = uuid::Uuid::new_v4().to_string();
        let out = self.app.hub.out_with_rpc_id(&Frame::ApprovalRequested(req.frame(&self.s.id)), rpc_id.clone());
        let rx = self.app.interactions.register(&self.s.id, Kind::Approval, out.clone());
        self.app.hub.mux(out);
        p.approvals.insert(req.approval_id.clone(), rpc_id);
        let tx = reply_tx.clone();
        let approval_id = req.approval_id;
        tokio::spawn(async move {
            let answer = rx.await.ok();
            let _ = tx.send(Reply::Approval { approval_id, answer });
        });
    }

    /// `approval/resolved` on the mux (`None`: withdrawn, `cancelled`).
    fn approval_resolved(&self, approval_id: &str, outcome: Option<ApprovalOutcome>, p: &mut Pending<'r>) {
        let Some(rpc_id) = p.approvals.remove(approval_id) else { return };
        self.app.interactions.remove(&rpc_id);
        let frame = Frame::ApprovalResolved(ApprovalResolved {
            session_id: self.s.id.clone(),
            approval_id: approval_id.to_string(),
            outcome: outcome.unwrap_or(ApprovalOutcome::Cancelled),
        });
        self.app.hub.mux(self.app.hub.out(&frame));
    }

    fn update_waiting(&self, p: &mut Pending<'r>) {
        let waits = !p.approvals.is_empty() || !p.questions.is_empty();
        match (waits, p.waiting.is_some()) {
            (true, false) => p.waiting = Some(Waiting::start(self.app, self.s)),
            (false, true) => p.waiting = None,
            _ => {}
        }
    }

    /// An answer from the session, written back to Codex.
    async fn codex_reply(&mut self, child: &Child, r: Reply, p: &mut Pending<'r>) -> Result<(), Stop> {
        match r {
            Reply::Question(a) => {
                p.questions.retain(|q| !answered_prompt(&a, q));
                p.requests.remove(&native_key(&a.native_id));
                if let Err(e) = child.reply(&rpc_response(&a.native_id, a.result)).await {
                    eprintln!("agent-session-host: {}: answering codex: {e}", self.s.id);
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
                let reply = {
                    let mut log = self.s.log.lock().await;
                    log.provider.as_mut().map(|ps| ps.adapter.respond_approval(&approval_id, outcome))
                };
                if let Some(Ok(msg)) = reply {
                    if let Some(id) = msg.get("id") {
                        p.requests.remove(&native_key(id));
                    }
                    if let Err(e) = child.reply(&msg).await {
                        eprintln!("agent-session-host: {}: answering codex: {e}", self.s.id);
                    }
                    self.approval_resolved(&approval_id, Some(outcome), p);
                }
            }
        }
        self.update_waiting(p);
        Ok(())
    }

    /// Resolves what Codex still waited on as `cancelled`, as its own `serverRequest/resolved`
    /// would (Codex sends that after `turn/completed`, or never when it died).
    async fn withdraw_pending(&mut self, link: &Link, out: &mut Out, p: &mut Pending<'r>) -> Result<(), Stop> {
        let ids: Vec<Value> = std::mem::take(&mut p.requests).into_values().collect();
        for id in ids {
            let resolved = json!({ "method": "serverRequest/resolved", "params": { "threadId": link.thread_id, "requestId": id } });
            let mut log = self.s.log.lock().await;
            let Some(ps) = log.provider.as_mut() else { break };
            let outs = ps.adapter.ingest(&resolved);
            let (approvals, rest): (Vec<Canonical>, Vec<Canonical>) =
                outs.into_iter().partition(|o| matches!(o, Canonical::ApprovalWithdrawn { .. }));
            self.apply(&mut log, rest, out)?;
            drop(log);
            for a in approvals {
                if let Canonical::ApprovalWithdrawn { approval_id } = a {
                    self.approval_resolved(&approval_id, None, p);
                }
            }
        }
        for (_, rpc_id) in std::mem::take(&mut p.approvals) {
            self.app.interactions.remove(&rpc_id);
        }
        p.questions.clear();
        p.waiting = None;
        Ok(())
    }
}

/// Whether an accepted answer resolved the prompt `prompt_id` (its resolution event names it).
fn answered_prompt(a: &Answered, prompt_id: &str) -> bool {
    a.outputs.iter().any(|o| match o {
        Canonical::Event { data, .. } => data.pointer("/prompt/promptId").and_then(Value::as_str) == Some(prompt_id),
        _ => false,
    })
}
