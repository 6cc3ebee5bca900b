//! The scripted agent: no model, deterministic, paced by `--chunk-delay-ms`.
//!
//! A prompt on an idle session starts a turn before the RPC answers (so `turn/start`, the
//! plan commit and `user/message` are committed by the time the client hears `accepted`);
//! the rest of the turn streams from a driver task. While a turn runs, `queue` prompts wait
//! for it and `steer` interrupts it (`turn/end {reason:{kind:'interrupted'}}`) and starts a
//! new turn with the steering message as its `user/message`. `session.cancel` interrupts the
//! turn, drops queued prompts and answers once `turn/end` is committed.

use crate::agent::provider;
use crate::log::base::Base;
use crate::log::interact::Kind;
use crate::log::plan;
use crate::log::session::{AppendError, NewEvent, Prompt, Session, SessionRef, TitleState, Waiting};
use crate::log::store::SessionUpdate;
use crate::providers::scripted::texts::{self, Markers};
use agent_session_wire::{
    AgentErrorFrame, ApprovalOutcome, ApprovalRequested, ApprovalResolved, Frame, PromptMode, QuestionOutcome,
    QuestionRequested, QuestionResolved, RpcError,
};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

mod provider_turn;

/// How long `session.cancel` waits for the turn to wind down before answering anyway.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// Why a turn stopped early.
enum Stop {
    Interrupted,
    Failed(AppendError),
}

impl From<AppendError> for Stop {
    fn from(e: AppendError) -> Self {
        Stop::Failed(e)
    }
}

/// A started turn.
struct Turn {
    number: u64,
    text: String,
    plan_mode: bool,
    user_seq: u64,
    /// The first turn of a session also "asks the model" for a title mid-stream.
    title_request: bool,
    /// What the "model" says about the prompt's images (their sizes).
    images: Vec<String>,
}

fn internal(e: impl std::fmt::Display) -> RpcError {
    RpcError::new(agent_session_wire::ErrorCode::Internal, e.to_string(), json!({}))
}

pub async fn prompt(app: &Arc<Base>, s: &SessionRef, mode: PromptMode, prompt: Prompt) -> Result<(), RpcError> {
    let mut ctl = s.ctl.lock().await;
    if ctl.running {
        match mode {
            PromptMode::Queue => {
                ctl.queue.push_back(prompt);
                publish_queue(app, s, &ctl.queue);
            }
            PromptMode::Steer => {
                ctl.queue.push_front(prompt);
                if let Some(tx) = &ctl.interrupt {
                    tx.send_replace(true);
                }
            }
        }
        return Ok(());
    }
    // Prompts held over a cancel go first (today's upstream host keeps them).
    let prompt = match ctl.queue.pop_front() {
        Some(first) => {
            ctl.queue.push_back(prompt);
            publish_queue(app, s, &ctl.queue);
            first
        }
        None => prompt,
    };
    let turn = begin_turn(app, s, prompt).await.map_err(internal)?;
    let (tx, rx) = watch::channel(false);
    ctl.running = true;
    ctl.interrupt = Some(tx);
    s.running.send_replace(true);
    drop(ctl);
    tokio::spawn(drive(app.clone(), s.clone(), turn, rx));
    Ok(())
}

/// `session/queue`: the whole queue after every change (today's upstream host's frame).
pub fn publish_queue(app: &Base, s: &Session, queue: &std::collections::VecDeque<Prompt>) {
    let items: Vec<Value> = queue
        .iter()
        .map(|p| {
            let message = json!({ "content": p.content, "source": { "kind": "user", "rpcId": p.rpc_id }, "role": "user", "id": p.id });
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

fn status(app: &Base, s: &Session, running: bool) {
    s.publish_status(app, running);
}

/// The `session/title` frame right after the title event's own `session/event` frame.
fn title_frame(app: &Base, s: &Session, title: &str, event_seq: u64, time: f64) {
    let t = TitleState { title: title.to_string(), event_seq, updated_at: time };
    app.hub.mux(app.hub.out(&t.frame(&s.id)));
}

/// `turn/start`, the pending plan commit, `user/message` and (first message) the title.
async fn begin_turn(app: &Base, s: &Session, p: Prompt) -> Result<Turn, AppendError> {
    let mut log = s.log.lock().await;
    let number = log.turn + 1;
    let source = json!({ "kind": "user", "rpcId": p.rpc_id });
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
        provider::at_turn_start(app, s, &mut log, &text)?;
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
async fn drive(app: Arc<Base>, s: SessionRef, mut turn: Turn, mut interrupt: watch::Receiver<bool>) {
    loop {
        let mut run = Run { app: &app, s: &s, turn: &turn, interrupt: &mut interrupt, title_due: turn.title_request };
        let outcome = run.body().await;
        let kind = match &outcome {
            Ok(()) => "completed",
            Err(Stop::Interrupted) => "interrupted",
            Err(Stop::Failed(_)) => "error",
        };
        if let Err(Stop::Failed(e)) = &outcome {
            app.hub.host(app.hub.out(&Frame::AgentError(AgentErrorFrame {
                session_id: Some(s.id.clone()),
                message: format!("turn {} failed: {e}", turn.number),
            })));
        }
        let ended =
            s.append(&app, NewEvent::new("turn/end", json!({ "turn": turn.number, "reason": { "kind": kind } }))).await;
        status(&app, &s, false);
        let mut ctl = s.ctl.lock().await;
        let hold = std::mem::take(&mut ctl.hold_queue);
        let next = if ended.is_ok() && !hold { ctl.queue.pop_front() } else { None };
        if next.is_some() {
            publish_queue(&app, &s, &ctl.queue);
        }
        if let Some(p) = next {
            if let Ok(t) = begin_turn(&app, &s, p).await {
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

struct Run<'a> {
    app: &'a Base,
    s: &'a Session,
    turn: &'a Turn,
    interrupt: &'a mut watch::Receiver<bool>,
    title_due: bool,
}

impl Run<'_> {
    async fn log(&self, kind: &'static str, data: Value) -> Result<u64, Stop> {
        Ok(self.s.append(self.app, NewEvent::new(kind, data)).await?.seq)
    }

    fn interrupted(&self) -> bool {
        *self.interrupt.borrow()
    }

    /// The pacing point between chunks; where an interrupt takes effect.
    async fn pause(&mut self) -> Result<(), Stop> {
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

    async fn body(&mut self) -> Result<(), Stop> {
        let t = self.turn;
        if let Some(profile) = self.s.profile.filter(|_| t.plan_mode) {
            return self.provider_plan_turn(profile).await;
        }
        if t.plan_mode && Markers::parse(&t.text).plan_review {
            return self.plan_review_turn().await;
        }
        let markers = if t.plan_mode { Markers::default() } else { Markers::parse(&t.text) };
        let mut step = 1;
        self.step_start(step).await?;
        let mut notes = self.turn.images.clone();
        if markers.any() {
            self.stream_message(step, &texts::tool_intro(markers), "tool-use").await?;
            if markers.question {
                notes.push(self.ask_question(step).await?);
            }
            if markers.approval {
                notes.push(self.run_approved_tool(step).await?);
            }
            if markers.tool {
                notes.push(self.run_tool(step).await?);
            }
            self.log("step/end", json!({ "turn": t.number, "step": step })).await?;
            step += 1;
            self.step_start(step).await?;
        }
        self.stream_message(step, &texts::reply(&t.text, t.plan_mode, &notes), "stop").await?;
        self.log("step/end", json!({ "turn": t.number, "step": step })).await?;
        Ok(())
    }

    /// `step/start`, then `request/header` when the header differs from the last logged.
    async fn step_start(&mut self, step: u64) -> Result<(), Stop> {
        self.pause().await?;
        let mut log = self.s.log.lock().await;
        self.s.append_locked(
            self.app,
            &mut log,
            NewEvent::new("step/start", json!({ "turn": self.turn.number, "step": step })),
            &[],
        )?;
        let header = texts::request_header(self.turn.plan_mode);
        if log.last_header.as_ref() != Some(&header) {
            let reason = if log.last_header.is_none() { "initial" } else { "change" };
            self.s.append_locked(
                self.app,
                &mut log,
                NewEvent::new("request/header", json!({ "header": header, "reason": reason })),
                &[],
            )?;
            log.last_header = Some(header);
        }
        drop(log);
        if self.title_due && step == 1 {
            self.log(
                "session/title-llm-request",
                json!({
                    "titleProvider": "scripted-title",
                    "messageSeqs": [self.turn.user_seq],
                    "route": { "provider": texts::PROVIDER, "model": texts::MODEL },
                    "maxTokens": 64
                }),
            )
            .await?;
        }
        Ok(())
    }

    /// The "model" title arrives while the first reply streams (as the origin's does).
    async fn model_title(&mut self) -> Result<(), Stop> {
        self.title_due = false;
        let title = texts::model_title(&self.turn.text);
        let mut log = self.s.log.lock().await;
        let ev = self.s.append_locked(
            self.app,
            &mut log,
            NewEvent::new(
                "session/title",
                json!({
                    "title": title,
                    "messageSeqs": [self.turn.user_seq],
                    "source": { "kind": "provider", "provider": "scripted-title",
                                "model": { "provider": texts::PROVIDER, "model": texts::MODEL } }
                }),
            ),
            &[SessionUpdate::Title(title.clone())],
        )?;
        drop(log);
        title_frame(self.app, self.s, &title, ev.seq, ev.time);
        Ok(())
    }

    /// Streams one assistant message as chunks, then logs `assistant/message`. An interrupt
    /// leaves the streamed chunks in the log and no message.
    async fn stream_message(&mut self, step: u64, text: &str, finish: &str) -> Result<(), Stop> {
        let turn = self.turn.number;
        let mut seqs = Vec::new();
        let chunk = |c: Value| json!({ "turn": turn, "step": step, "chunk": c });
        seqs.push(
            self.log("assistant/chunk", chunk(json!({ "type": "block-start", "index": 0, "blockType": "text" })))
                .await?,
        );
        let deltas = texts::deltas(text);
        for (i, d) in deltas.iter().enumerate() {
            self.pause().await?;
            seqs.push(
                self.log("assistant/chunk", chunk(json!({ "type": "text-delta", "index": 0, "text": d }))).await?,
            );
            if self.title_due && i == 1 {
                self.model_title().await?;
            }
        }
        if self.title_due {
            self.model_title().await?;
        }
        let usage =
            json!({ "inputTokens": 100 + self.turn.text.len(), "outputTokens": deltas.len(), "cacheReadTokens": 0 });
        seqs.push(
            self.log(
                "assistant/chunk",
                chunk(json!({ "type": "block-end", "index": 0, "block": { "type": "text", "text": text } })),
            )
            .await?,
        );
        seqs.push(self.log("assistant/chunk", chunk(json!({ "type": "usage", "usage": usage })).clone()).await?);
        seqs.push(self.log("assistant/chunk", chunk(json!({ "type": "finish", "reason": { "kind": finish } }))).await?);
        let mut ev = NewEvent::message(
            "assistant/message",
            json!({
                "turn": turn, "step": step,
                "content": [{ "type": "text", "text": text }],
                "provenance": { "provider": self.s.provider.as_deref().unwrap_or(texts::PROVIDER), "model": texts::MODEL },
                "usage": usage
            }),
        );
        ev.source_event_seqs = Some(seqs);
        self.s.append(self.app, ev).await?;
        Ok(())
    }

    async fn tool_call(&self, step: u64, call_id: &str, name: &str, arguments: Value) -> Result<(), Stop> {
        self.log(
            "tool/call",
            json!({ "turn": self.turn.number, "step": step, "callId": call_id, "name": name, "arguments": arguments }),
        )
        .await
        .map(|_| ())
    }

    async fn tool_result(&self, step: u64, call_id: &str, text: &str, is_error: bool) -> Result<(), Stop> {
        self.log(
            "tool/result",
            json!({ "turn": self.turn.number, "step": step, "callId": call_id,
                    "content": [{ "type": "text", "text": text }], "isError": is_error }),
        )
        .await
        .map(|_| ())
    }

    /// Waits for the client's answer; an interrupt withdraws the interaction.
    async fn wait_answer(
        &mut self,
        rpc_id: &str,
        rx: tokio::sync::oneshot::Receiver<agent_session_wire::RpcResult<Value>>,
    ) -> Result<Option<agent_session_wire::RpcResult<Value>>, Stop> {
        tokio::select! {
            r = rx => Ok(r.ok()),
            _ = self.interrupt.wait_for(|i| *i) => {
                self.app.interactions.remove(rpc_id);
                Ok(None)
            }
        }
    }

    /// Plan mode, `[plan-review]`: the plan, then `exit_plan_mode` asks the user to review it
    /// (a question with the plan-review intent); `Approve` leaves plan mode at once.
    async fn plan_review_turn(&mut self) -> Result<(), Stop> {
        let number = self.turn.number;
        self.step_start(1).await?;
        self.stream_message(1, "Here is the plan for review.", "tool-use").await?;
        let call_id = format!("call-{}", uuid::Uuid::new_v4());
        self.tool_call(1, &call_id, "exit_plan_mode", json!({ "plan": texts::REVIEWED_PLAN })).await?;
        let answer = self.ask(texts::plan_review_question()).await?;
        let approved = matches!(&answer, Some(Ok(v)) if texts::approves_plan(v));
        if approved {
            let mut log = self.s.log.lock().await;
            crate::log::plan::leave_now(self.app, self.s, &mut log).map_err(Stop::Failed)?;
        }
        let text = if approved {
            "Plan approved — plan mode exited; carry out the plan starting with your next step."
        } else {
            "The user kept planning; the plan stays under review."
        };
        self.tool_result(1, &call_id, text, false).await?;
        self.log("step/end", json!({ "turn": number, "step": 1 })).await?;
        self.step_start(2).await?;
        let reply = if approved { "Carrying out the plan." } else { "I will refine the plan." };
        self.stream_message(2, reply, "stop").await?;
        self.log("step/end", json!({ "turn": number, "step": 2 })).await?;
        Ok(())
    }

    /// Asks one question on the mux and waits for its answer; `None` when the turn was
    /// interrupted. The question is resolved either way.
    async fn ask(&mut self, question: Value) -> Result<Option<agent_session_wire::RpcResult<Value>>, Stop> {
        let rpc_id = uuid::Uuid::new_v4().to_string();
        let questions = serde_json::from_value(json!([question])).map_err(|e| Stop::Failed(AppendError::Encode(e)))?;
        let frame = Frame::QuestionRequested(QuestionRequested { session_id: self.s.id.clone(), questions });
        let out = self.app.hub.out_with_rpc_id(&frame, rpc_id.clone());
        let rx = self.app.interactions.register(&self.s.id, Kind::Question, out.clone());
        self.app.hub.mux(out);
        let waiting = Waiting::start(self.app, self.s);
        let answer = self.wait_answer(&rpc_id, rx).await?;
        drop(waiting);
        let outcome = match &answer {
            Some(Ok(_)) => QuestionOutcome::Answered,
            _ => QuestionOutcome::Cancelled,
        };
        self.app.hub.mux(self.app.hub.out(&Frame::QuestionResolved(QuestionResolved {
            session_id: self.s.id.clone(),
            question_rpc_id: rpc_id,
            outcome,
        })));
        if self.interrupted() || answer.is_none() {
            return Err(Stop::Interrupted);
        }
        Ok(answer)
    }

    async fn ask_question(&mut self, step: u64) -> Result<String, Stop> {
        let call_id = format!("call-{}", uuid::Uuid::new_v4());
        let q = texts::question("approach");
        self.tool_call(step, &call_id, "ask_user_question", json!({ "questions": [q.clone()] })).await?;
        let answer = self.ask(q).await?;
        // A dismissed question is the tool's error result, so its card does not read "done".
        let (text, is_error) = match answer {
            Some(Ok(v)) => (texts::answer_sentence(&v), false),
            _ => ("The user dismissed the question.".to_string(), true),
        };
        self.tool_result(step, &call_id, &text, is_error).await?;
        Ok(text)
    }

    async fn run_approved_tool(&mut self, step: u64) -> Result<String, Stop> {
        let call_id = format!("call-{}", uuid::Uuid::new_v4());
        self.tool_call(step, &call_id, "bash", json!({ "command": "echo scripted" })).await?;
        let rpc_id = uuid::Uuid::new_v4().to_string();
        let approval_id = format!("approval-{}", uuid::Uuid::new_v4());
        let frame = Frame::ApprovalRequested(ApprovalRequested {
            session_id: self.s.id.clone(),
            approval_id: approval_id.clone(),
            tool_name: "bash".into(),
            call_id: Some(call_id.clone()),
            reason: Some("run a shell command (echo scripted)".into()),
        });
        let out = self.app.hub.out_with_rpc_id(&frame, rpc_id.clone());
        let rx = self.app.interactions.register(&self.s.id, Kind::Approval, out.clone());
        self.app.hub.mux(out);
        let waiting = Waiting::start(self.app, self.s);
        let answer = self.wait_answer(&rpc_id, rx).await?;
        drop(waiting);
        let outcome = match &answer {
            None => ApprovalOutcome::Cancelled,
            Some(Err(_)) => ApprovalOutcome::Rejected,
            Some(Ok(v)) => v
                .get("outcome")
                .and_then(|o| serde_json::from_value(o.clone()).ok())
                .unwrap_or(ApprovalOutcome::Rejected),
        };
        self.app.hub.mux(self.app.hub.out(&Frame::ApprovalResolved(ApprovalResolved {
            session_id: self.s.id.clone(),
            approval_id,
            outcome,
        })));
        if self.interrupted() || answer.is_none() {
            return Err(Stop::Interrupted);
        }
        if outcome == ApprovalOutcome::AllowedOnce {
            self.tool_result(step, &call_id, "scripted\n[exit code: 0]", false).await?;
            Ok("The command ran (allowed once).".into())
        } else {
            self.tool_result(step, &call_id, "The user rejected this tool call.", true).await?;
            Ok("The command was rejected.".into())
        }
    }

    async fn run_tool(&mut self, step: u64) -> Result<String, Stop> {
        self.pause().await?;
        let call_id = format!("call-{}", uuid::Uuid::new_v4());
        self.tool_call(step, &call_id, "read", json!({ "file_path": "README.md" })).await?;
        self.pause().await?;
        self.tool_result(step, &call_id, "1\t# Scripted README\n2\tNothing to see here.", false).await?;
        Ok("I read README.md.".into())
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
