//! The scripted agent: no model, deterministic, paced by `--chunk-delay-ms`. Markers in the
//! prompt (`texts::Markers`) ask for a question, an approval, a tool call or (2026-08) a
//! subagent (`subagent`); a provider
//! session's plan-mode turn plays that provider's native payloads through its adapter
//! (`provider_turn`).

use crate::agent::turns::{title_frame, Run, Runtime, Stop, TurnFuture};
use crate::log::interact::Kind;
use crate::log::session::{AppendError, NewEvent, Waiting};
use crate::log::store::SessionUpdate;
use crate::providers::registry::Provider;
use crate::providers::scripted::texts::{self, Markers};
use agent_session_wire::{
    ApprovalOutcome, ApprovalRequested, ApprovalResolved, Frame, QuestionOutcome, QuestionRequested, QuestionResolved,
};
use serde_json::{json, Value};

mod provider_turn;
mod subagent;

/// The scripted agent (`--agent script`, the default).
pub struct Scripted;

impl Runtime for Scripted {
    fn turn<'a>(&'a self, run: &'a mut Run<'_>) -> TurnFuture<'a> {
        Box::pin(run.body())
    }

    fn scripted_modes(&self) -> bool {
        true
    }

    fn session_provider(&self, asked: Option<Provider>) -> Result<Option<Provider>, String> {
        match asked {
            Some(Provider::Acp) => {
                Err("provider \"acp\" is a real ACP agent: start the host with --agent acp -- <command>".into())
            }
            other => Ok(other),
        }
    }

    fn describe(&self) -> (String, String) {
        (texts::PROVIDER.to_string(), texts::MODEL.to_string())
    }
}

impl Run<'_> {
    async fn body(&mut self) -> Result<(), Stop> {
        let t = self.turn;
        if let Some(profile) = self.s.profile.filter(|_| t.plan_mode) {
            return self.provider_plan_turn(profile).await;
        }
        if t.plan_mode && Markers::parse(&t.text).plan_review {
            return self.plan_review_turn().await;
        }
        let mut markers = if t.plan_mode { Markers::default() } else { Markers::parse(&t.text) };
        // Subagents are the 2026-08 host's.
        markers.subagent &= self.app.options.wire.is_upstream();
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
            if markers.subagent {
                notes.push(self.run_subagent(step, markers.continuable).await?);
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
