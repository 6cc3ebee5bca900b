//! An adapter's canonical outputs logged as the origin's events: assistant text becomes
//! `assistant/chunk`s and one `assistant/message` per step (a new step starts when text follows
//! a finished message); tool calls are `tool/call` / `tool/result`; reasoning is a
//! `reasoning-delta` chunk; events and projections go through `crate::agent::provider`. A
//! prompt-requested output registers a waiter under the same log lock, so an answer can never
//! miss it.

use crate::agent::provider;
use crate::agent::turns::Run;
use crate::log::session::{AppendError, LogState, NewEvent};
use crate::providers::adapters::{Answered, Canonical};
use agent_session_wire::interaction::{EV_PLAN_PROPOSED, EV_PLAN_TEXT_DELTA, EV_PROMPT_REQUESTED};
use serde_json::{json, Value};
use tokio::sync::oneshot;

/// An assistant text block being streamed.
pub struct Block {
    seqs: Vec<u64>,
    text: String,
    deltas: usize,
}

/// Per-turn output state: the step being written and its open text block.
pub struct Out {
    /// The model a real agent runs (its messages' provenance, with no made-up usage); `None`
    /// for the scripted agent.
    real_model: Option<String>,
    pub step: u64,
    block: Option<Block>,
    /// The current step already has its assistant message.
    pub step_has_message: bool,
}

pub type Waiter = (String, oneshot::Receiver<Answered>);

impl Out {
    /// A turn's outputs start in step 1 with no text open.
    pub fn new() -> Out {
        Out { real_model: None, step: 1, block: None, step_has_message: false }
    }

    /// Drops the open text block: an interrupted or failed reply stays as its streamed chunks,
    /// with no message claiming it finished.
    pub fn abandon(&mut self) {
        self.block = None;
    }

    /// The same for a real agent running `model`.
    pub fn real(model: &str) -> Out {
        Out { real_model: Some(model.to_string()), ..Out::new() }
    }

    /// The model a real agent reported once its turn started (Claude Code names it in each
    /// turn's `system/init`).
    pub fn set_model(&mut self, model: &str) {
        if self.real_model.is_some() {
            self.real_model = Some(model.to_string());
        }
    }
}

impl Run<'_> {
    /// Ends the step: its open text block, then `step/end`.
    pub async fn end_step(&mut self, out: &mut Out, finish: &str) -> Result<(), AppendError> {
        let mut log = self.s.log.lock().await;
        self.flush(&mut log, out, finish)?;
        let step = json!({ "turn": self.turn.number, "step": out.step });
        self.s.append_locked(self.app, &mut log, NewEvent::new("step/end", step), &[])?;
        Ok(())
    }

    /// Logs one payload's outputs; a prompt-requested output comes back as a waiter.
    pub fn apply(
        &self,
        log: &mut LogState,
        outs: Vec<Canonical>,
        out: &mut Out,
    ) -> Result<Option<Waiter>, AppendError> {
        // Text after a finished message is the next model request: a new step, which then
        // also holds this payload's native event.
        if out.block.is_none()
            && out.step_has_message
            && outs.iter().any(|o| matches!(o, Canonical::AssistantText { .. }))
        {
            self.next_step(log, out)?;
        }
        let mut waiter = None;
        for o in outs {
            // Text before a tool call, a question or plan output ends its message first.
            let ends_text = match &o {
                Canonical::ToolCall { .. } => true,
                Canonical::Event { kind, .. } => {
                    [EV_PROMPT_REQUESTED, EV_PLAN_PROPOSED, EV_PLAN_TEXT_DELTA].contains(kind)
                }
                _ => false,
            };
            if ends_text {
                self.flush(log, out, "tool-use")?;
            }
            match o {
                Canonical::Event { kind, data } => {
                    let prompt_id = (kind == EV_PROMPT_REQUESTED)
                        .then(|| data.pointer("/prompt/promptId").and_then(Value::as_str).map(str::to_owned))
                        .flatten();
                    provider::log_event(self.app, self.s, log, kind, data)?;
                    if let (Some(id), Some(ps)) = (prompt_id, log.provider.as_mut()) {
                        let (tx, rx) = oneshot::channel();
                        ps.waiters.insert(id.clone(), tx);
                        waiter = Some((id, rx));
                    }
                }
                Canonical::Projection { key, value } => provider::set_projection(self.app, self.s, log, key, value)?,
                Canonical::AssistantText { text } => self.text(log, out, &text)?,
                Canonical::ToolCall { call_id, name, arguments } => {
                    let data = json!({ "turn": self.turn.number, "step": out.step, "callId": call_id, "name": name, "arguments": arguments });
                    self.s.append_locked(self.app, log, NewEvent::new("tool/call", data), &[])?;
                }
                Canonical::ToolResult { call_id, content, is_error } => {
                    let content = match content {
                        Value::String(t) => json!([{ "type": "text", "text": t }]),
                        Value::Array(a) => Value::Array(a),
                        other => json!([{ "type": "text", "text": other.to_string() }]),
                    };
                    let data = json!({ "turn": self.turn.number, "step": out.step, "callId": call_id, "content": content, "isError": is_error });
                    self.s.append_locked(self.app, log, NewEvent::new("tool/result", data), &[])?;
                }
                Canonical::Reasoning { text } => {
                    self.chunk(log, out.step, json!({ "type": "reasoning-delta", "index": 0, "text": text }))?;
                }
                Canonical::Diagnostic { message } => eprintln!("agent-session-host: {}: {message}", self.s.id),
                // Approvals are the runtime's to register (it answers them natively).
                other => eprintln!("agent-session-host: {}: not applied: {other:?}", self.s.id),
            }
        }
        Ok(waiter)
    }

    fn next_step(&self, log: &mut LogState, out: &mut Out) -> Result<(), AppendError> {
        let turn = self.turn.number;
        self.s.append_locked(
            self.app,
            log,
            NewEvent::new("step/end", json!({ "turn": turn, "step": out.step })),
            &[],
        )?;
        out.step += 1;
        out.step_has_message = false;
        self.s.append_locked(
            self.app,
            log,
            NewEvent::new("step/start", json!({ "turn": turn, "step": out.step })),
            &[],
        )?;
        Ok(())
    }

    fn chunk(&self, log: &mut LogState, step: u64, c: Value) -> Result<u64, AppendError> {
        let data = json!({ "turn": self.turn.number, "step": step, "chunk": c });
        Ok(self.s.append_locked(self.app, log, NewEvent::new("assistant/chunk", data), &[])?.seq)
    }

    /// A text delta; opens a block (and a new step after a finished message) as needed.
    fn text(&self, log: &mut LogState, out: &mut Out, text: &str) -> Result<(), AppendError> {
        if out.block.is_none() {
            if out.step_has_message {
                self.next_step(log, out)?;
            }
            let seq = self.chunk(log, out.step, json!({ "type": "block-start", "index": 0, "blockType": "text" }))?;
            out.block = Some(Block { seqs: vec![seq], text: String::new(), deltas: 0 });
        }
        let seq = self.chunk(log, out.step, json!({ "type": "text-delta", "index": 0, "text": text }))?;
        if let Some(b) = out.block.as_mut() {
            b.seqs.push(seq);
            b.text.push_str(text);
            b.deltas += 1;
        }
        Ok(())
    }

    /// Ends the open text block: `block-end`, `usage`, `finish`, then `assistant/message`.
    pub fn flush(&self, log: &mut LogState, out: &mut Out, finish: &str) -> Result<(), AppendError> {
        let Some(mut b) = out.block.take() else { return Ok(()) };
        let step = out.step;
        let end = json!({ "type": "block-end", "index": 0, "block": { "type": "text", "text": b.text } });
        b.seqs.push(self.chunk(log, step, end)?);
        let provenance = self.s.provider.as_deref().unwrap_or(crate::providers::scripted::texts::PROVIDER);
        let mut data = json!({
            "turn": self.turn.number, "step": step,
            "content": [{ "type": "text", "text": b.text }],
        });
        match &out.real_model {
            Some(model) => data["provenance"] = json!({ "provider": provenance, "model": model }),
            None => {
                // The scripted agent's made-up token counts.
                let usage = json!({ "inputTokens": 100 + self.turn.text.len(), "outputTokens": b.deltas, "cacheReadTokens": 0 });
                b.seqs.push(self.chunk(log, step, json!({ "type": "usage", "usage": usage }))?);
                data["provenance"] =
                    json!({ "provider": provenance, "model": crate::providers::scripted::texts::MODEL });
                data["usage"] = usage;
            }
        }
        b.seqs.push(self.chunk(log, step, json!({ "type": "finish", "reason": { "kind": finish } }))?);
        let mut ev = NewEvent::message("assistant/message", data);
        ev.source_event_seqs = Some(b.seqs);
        self.s.append_locked(self.app, log, ev, &[])?;
        out.step_has_message = true;
        Ok(())
    }
}
