//! One turn of a session on an ACP agent: `session/set_mode` with the committed plan mode,
//! `session/prompt`, every `session/update` through the session's ACP adapter, each
//! `session/request_permission` as the session's approval, and the end read from the prompt's
//! answer (`stopReason`).
//!
//! - A cancel (or a steer) sends `session/cancel`, answers every permission still pending with
//!   `{outcome: "cancelled"}` (the agent does not withdraw them) and waits for the prompt's
//!   answer (`stopReason: "cancelled"`) at most [`CANCEL_WAIT`].
//! - A plan the agent proposes (a `switch_mode` tool call) is the session's proposed plan; its
//!   permission is the approval of that plan: approved, the host leaves plan mode inside the
//!   turn (the agent switched itself); rejected, `claude-code-acp` fails `session/prompt`
//!   (JSON-RPC -32603) rather than ending the turn, which is read as the turn's end in plan mode.
//! - An approval still pending when the turn ends is answered `cancelled` and resolved so on
//!   the mux; an agent→client request this host does not serve (`fs/*`, `terminal/*`, …) is
//!   refused at once with a JSON-RPC error, so the agent never blocks on it.

use super::{agent_error, Acp, Link};
use crate::agent::codex::child::{refusal, Child, Inbound, RequestError};
use crate::agent::outputs::Out;
use crate::agent::provider;
use crate::agent::turns::{sole_provider, Run, Runtime, Stop, TurnFuture, CANCEL_WAIT};
use crate::log::interact::Kind;
use crate::log::plan;
use crate::log::session::Waiting;
use crate::providers::adapters::acp::{self, AcpAdapter};
use crate::providers::adapters::{ApprovalRequest, Canonical, ProviderAdapter};
use crate::providers::registry::Provider;
use agent_session_wire::interaction::EV_PROVIDER_NATIVE;
use agent_session_wire::{ApprovalOutcome, ApprovalResolved, Frame, RpcResult};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tokio::sync::mpsc;
use tokio::time::Instant;

impl Runtime for Acp {
    fn turn<'a>(&'a self, run: &'a mut Run<'_>) -> TurnFuture<'a> {
        Box::pin(run.acp_turn(self))
    }

    fn scripted_modes(&self) -> bool {
        false
    }

    fn session_provider(&self, asked: Option<Provider>) -> Result<Option<Provider>, String> {
        sole_provider(Provider::Acp, "an ACP agent", asked)
    }

    fn describe(&self) -> (String, String) {
        (acp::PROVIDER.to_string(), self.agent_name())
    }
}

/// An answer from the session for the agent: `None` when withdrawn before anyone answered.
struct Reply {
    approval_id: String,
    answer: Option<RpcResult<Value>>,
}

/// How the turn ended.
enum Ended {
    Completed,
    Interrupted,
    Failed(String),
}

/// What the turn keeps between messages.
struct Pending<'w> {
    /// Approvals on the mux: approval id -> the rpcId `/api/respond` answers.
    approvals: BTreeMap<String, String>,
    /// A proposed plan's approval was rejected this turn.
    plan_rejected: bool,
    waiting: Option<Waiting<'w>>,
}

/// The session's ACP adapter (every `--agent acp` session has one).
fn adapter(ps: &mut crate::log::session::ProviderState) -> Option<&mut AcpAdapter> {
    match &mut ps.adapter {
        ProviderAdapter::Cursor(a) => Some(a),
        _ => None,
    }
}

impl<'r> Run<'r> {
    async fn acp_turn(&mut self, rt: &Acp) -> Result<(), Stop> {
        let (child, link) = rt.link(self.app, self.s).await.map_err(|e| Stop::Agent(e.0))?;
        let mut inbound = link.inbound.lock().await;
        let mut out = Out::real(&rt.agent_name());
        self.log("step/start", json!({ "turn": self.turn.number, "step": 1 })).await?;
        // What came while no turn ran carries nothing for this turn; a request among them has
        // nobody to answer it: refuse it, or the agent would wait on it forever.
        while let Ok(queued) = inbound.try_recv() {
            let Inbound::Message(m) = queued else { continue };
            if let (Some(id), Some(method)) = (m.get("id"), m.get("method").and_then(Value::as_str)) {
                let _ = child.reply(&refusal(id, method)).await;
            }
        }
        self.set_mode(rt, &child, &link).await?;
        let prompt = json!({
            "sessionId": link.session_id,
            "prompt": [{ "type": "text", "text": self.turn.text }],
        });
        let call =
            child.call("session/prompt", prompt).await.map_err(|e| Stop::Agent(format!("ACP session/prompt: {e}")))?;
        let answer = call.answer();
        tokio::pin!(answer);
        let mut p = Pending { approvals: BTreeMap::new(), plan_rejected: false, waiting: None };
        let (reply_tx, mut reply_rx) = mpsc::unbounded_channel::<Reply>();
        let mut interrupt = self.interrupt.clone();
        let mut deadline: Option<Instant> = None;
        let ended = loop {
            tokio::select! {
                r = &mut answer => break self.prompt_answered(r, deadline.is_some(), &p),
                m = inbound.recv() => match m {
                    None => break Ended::Failed(child.exited().unwrap_or_else(|| "the ACP agent went away".into())),
                    Some(Inbound::Exited(why)) => break Ended::Failed(why),
                    Some(Inbound::Malformed(what)) => {
                        agent_error(self.app, self.s, format!("the ACP agent wrote {what}; it was dropped"));
                    }
                    Some(Inbound::Message(v)) => self.acp_message(&child, &v, &mut out, &mut p, &reply_tx).await?,
                },
                Some(r) = reply_rx.recv() => self.acp_reply(&child, r, &mut p).await?,
                // (The watch guard is not Send: drop it inside.)
                _ = async { let _ = interrupt.wait_for(|i| *i).await; }, if deadline.is_none() => {
                    deadline = Some(Instant::now() + CANCEL_WAIT);
                    if let Err(e) = child.notify("session/cancel", json!({ "sessionId": link.session_id })).await {
                        eprintln!("agent-session-host: {}: ACP session/cancel: {e}", self.s.id);
                    }
                    // The agent does not withdraw its permission requests: answer them.
                    self.acp_withdraw_pending(&child, &mut p).await;
                }
                _ = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    break Ended::Interrupted;
                }
            }
        };
        self.acp_withdraw_pending(&child, &mut p).await;
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

    /// `session/set_mode` to the committed plan mode's id, logged through the adapter (the
    /// agent's answer is `{}`, with no `current_mode_update`). An agent without a plan mode
    /// keeps its own, and the session hears why.
    async fn set_mode(&mut self, rt: &Acp, child: &Child, link: &Link) -> Result<(), Stop> {
        let wanted = if self.turn.plan_mode { link.modes.plan.as_deref() } else { link.modes.default.as_deref() };
        if self.turn.plan_mode && wanted.is_none() {
            agent_error(
                self.app,
                self.s,
                "the ACP agent offers no plan mode: this turn runs in its current mode".into(),
            );
        }
        let request = match wanted {
            Some(mode) => {
                let params = json!({ "sessionId": link.session_id, "modeId": mode });
                child.request("session/set_mode", params.clone(), rt.config.request_timeout).await.map_err(|e| {
                    if matches!(e, RequestError::Timeout { .. }) {
                        child.kill(); // a process that stopped answering: the next prompt starts a fresh one
                    }
                    Stop::Agent(format!("ACP session/set_mode: {e}"))
                })?;
                json!({ "jsonrpc": "2.0", "id": 0, "method": "session/set_mode", "params": params })
            }
            // No mode to set: the request that carries the turn (nothing canonical in it).
            None => json!({ "jsonrpc": "2.0", "id": 0, "method": "session/prompt", "params": {} }),
        };
        let mut log = self.s.log.lock().await;
        provider::mode_at_turn_start(self.app, self.s, &mut log, &request)?;
        Ok(())
    }

    /// The end of the turn from `session/prompt`'s answer.
    fn prompt_answered(&self, r: Result<Value, RequestError>, cancelling: bool, p: &Pending<'r>) -> Ended {
        match r {
            Ok(v) => match v.get("stopReason").and_then(Value::as_str) {
                Some("cancelled") => Ended::Interrupted,
                // end_turn, max_tokens, max_turn_requests, refusal: the agent's reply stands.
                _ => Ended::Completed,
            },
            Err(_) if cancelling => Ended::Interrupted,
            Err(RequestError::Rpc { .. }) if p.plan_rejected => Ended::Completed,
            Err(e @ RequestError::Rpc { .. }) => Ended::Failed(format!("the ACP agent failed the turn: {e}")),
            Err(e) => Ended::Failed(e.to_string()),
        }
    }

    /// One message for the session: an update or a request.
    async fn acp_message(
        &mut self,
        child: &Child,
        v: &Value,
        out: &mut Out,
        p: &mut Pending<'r>,
        reply_tx: &mpsc::UnboundedSender<Reply>,
    ) -> Result<(), Stop> {
        let method = v.get("method").and_then(Value::as_str).unwrap_or_default();
        if let Some(id) = v.get("id").filter(|_| !method.is_empty()) {
            if method != "session/request_permission" {
                let _ = child.reply(&refusal(id, method)).await;
                return Ok(());
            }
        }
        let mut log = self.s.log.lock().await;
        let Some(ps) = log.provider.as_mut() else { return Ok(()) };
        let mut outs = ps.adapter.ingest(v);
        // A chunk's native copy would double the log of every streamed reply.
        let chunk = matches!(
            v.pointer("/params/update/sessionUpdate").and_then(Value::as_str),
            Some("agent_message_chunk" | "agent_thought_chunk")
        );
        if chunk {
            outs.retain(|o| !matches!(o, Canonical::Event { kind, .. } if *kind == EV_PROVIDER_NATIVE));
        }
        let (approvals, rest): (Vec<Canonical>, Vec<Canonical>) =
            outs.into_iter().partition(|o| matches!(o, Canonical::Approval(_)));
        // ACP has no user-input request: no waiter can come back from these outputs.
        self.apply(&mut log, rest, out)?;
        drop(log);
        let asked = !approvals.is_empty();
        for a in approvals {
            if let Canonical::Approval(req) = a {
                self.acp_ask_approval(req, p, reply_tx);
            }
        }
        if method == "session/request_permission" && !asked {
            // The adapter could not read it (reported as a diagnostic): the agent must not wait.
            if let Some(id) = v.get("id") {
                let cancelled = json!({ "id": id, "result": { "outcome": { "outcome": "cancelled" } } });
                let _ = child.reply(&cancelled).await;
            }
        }
        self.acp_update_waiting(p);
        Ok(())
    }

    /// An approval on the mux, answered through `/api/respond`.
    fn acp_ask_approval(&self, req: ApprovalRequest, p: &mut Pending<'r>, reply_tx: &mpsc::UnboundedSender<Reply>) {
        let rpc_id = uuid::Uuid::new_v4().to_string();
        let out = self.app.hub.out_with_rpc_id(&Frame::ApprovalRequested(req.frame(&self.s.id)), rpc_id.clone());
        let rx = self.app.interactions.register(&self.s.id, Kind::Approval, out.clone());
        self.app.hub.mux(out);
        p.approvals.insert(req.approval_id.clone(), rpc_id);
        let tx = reply_tx.clone();
        let approval_id = req.approval_id;
        tokio::spawn(async move {
            let answer = rx.await.ok();
            let _ = tx.send(Reply { approval_id, answer });
        });
    }

    /// `approval/resolved` on the mux.
    fn acp_approval_resolved(&self, approval_id: &str, outcome: ApprovalOutcome, p: &mut Pending<'r>) {
        let Some(rpc_id) = p.approvals.remove(approval_id) else { return };
        self.app.interactions.remove(&rpc_id);
        let frame = Frame::ApprovalResolved(ApprovalResolved {
            session_id: self.s.id.clone(),
            approval_id: approval_id.to_string(),
            outcome,
        });
        self.app.hub.mux(self.app.hub.out(&frame));
    }

    fn acp_update_waiting(&self, p: &mut Pending<'r>) {
        match (!p.approvals.is_empty(), p.waiting.is_some()) {
            (true, false) => p.waiting = Some(Waiting::start(self.app, self.s)),
            (false, true) => p.waiting = None,
            _ => {}
        }
    }

    /// An answer from the session, written back to the agent; a plan's approval also moves
    /// the session's plan mode and its handoff.
    async fn acp_reply(&mut self, child: &Child, r: Reply, p: &mut Pending<'r>) -> Result<(), Stop> {
        let Some(answer) = r.answer else { return Ok(()) };
        let outcome = match &answer {
            Ok(v) => v
                .get("outcome")
                .and_then(|o| serde_json::from_value(o.clone()).ok())
                .unwrap_or(ApprovalOutcome::Rejected),
            Err(_) => ApprovalOutcome::Rejected,
        };
        let reply = {
            let mut log = self.s.log.lock().await;
            let Some(a) = log.provider.as_mut().and_then(adapter) else { return Ok(()) };
            let plan_exit = a.is_plan_exit(&r.approval_id);
            let reply = a.respond_approval(&r.approval_id, outcome);
            if plan_exit && reply.is_ok() {
                let outs = a.plan_answered();
                provider::apply_basic(self.app, self.s, &mut log, outs)?;
                match outcome {
                    ApprovalOutcome::AllowedOnce => plan::leave_now(self.app, self.s, &mut log)?,
                    _ => p.plan_rejected = true,
                }
            }
            reply
        };
        match reply {
            Ok(msg) => {
                if let Err(e) = child.reply(&msg).await {
                    eprintln!("agent-session-host: {}: answering the ACP agent: {e}", self.s.id);
                }
                self.acp_approval_resolved(&r.approval_id, outcome, p);
            }
            Err(e) => eprintln!("agent-session-host: {}: approval {}: {e:?}", self.s.id, r.approval_id),
        }
        self.acp_update_waiting(p);
        Ok(())
    }

    /// Answers every approval still pending `cancelled` (to the agent, when it still runs, and
    /// on the mux).
    async fn acp_withdraw_pending(&mut self, child: &Child, p: &mut Pending<'r>) {
        let ids: Vec<String> = p.approvals.keys().cloned().collect();
        for approval_id in ids {
            let reply = {
                let mut log = self.s.log.lock().await;
                log.provider.as_mut().and_then(adapter).map(|a| {
                    let r = a.respond_approval(&approval_id, ApprovalOutcome::Cancelled);
                    a.forget_approval(&approval_id);
                    r
                })
            };
            if let (Some(Ok(msg)), None) = (reply, child.exited()) {
                let _ = child.reply(&msg).await;
            }
            self.acp_approval_resolved(&approval_id, ApprovalOutcome::Cancelled, p);
        }
        p.waiting = None;
    }
}
