//! The scripted agent's `subagent` tool (2026-08 only), played as upstream's tool-subagent
//! plays it: `tool/call subagent {description, prompt}` in the parent, then a child session
//! (`origin: 'subagent'`, the parent's cwd and provider, its identity stored) whose log opens
//! with upstream's `subagent/descriptor` and plays one scripted turn for the prompt.
//! - One-shot (`[subagent]`, upstream's foreground call): the parent waits for the child's
//!   turn, and its tool result is the child's final text (upstream's rendering of
//!   `{kind: 'foreground', runId: <childId>, output}`); interrupting the parent cancels it.
//! - Continuable (`[subagent:continuable]`, upstream's background call): the tool result is
//!   upstream's `started subagent <childId>` at once; the child's turn runs on its own, and
//!   `subagent.prompt` continues the conversation.

use crate::agent::turns::{self, Run, Stop};
use crate::log::base::Base;
use crate::log::children::create_child;
use crate::log::lineage::{Mode, Subagent};
use crate::log::session::{AppendError, NewEvent, Prompt, Session};
use crate::providers::scripted::texts;
use agent_session_wire::PromptMode;
use serde_json::{json, Value};

impl Run<'_> {
    /// Spawns the child and returns the sentence the parent's reply says about it.
    pub(super) async fn run_subagent(&mut self, step: u64, continuable: bool) -> Result<String, Stop> {
        let call_id = format!("call-{}", uuid::Uuid::new_v4());
        let mut args = json!({ "description": texts::SUBAGENT_LABEL, "prompt": texts::SUBAGENT_PROMPT });
        if continuable {
            args["run_in_background"] = json!(true);
        }
        self.tool_call(step, &call_id, "subagent", args).await?;
        let mode = if continuable { Mode::Continuable } else { Mode::OneShot };
        let identity = Subagent { mode, label: Some(texts::SUBAGENT_LABEL.to_string()) };
        let child = create_child(self.app, self.s, Some(identity)).map_err(AppendError::Store)?;
        let descriptor =
            json!({ "version": 2, "mode": mode.name(), "provider": "spawn", "label": texts::SUBAGENT_LABEL });
        child.append(self.app, NewEvent::new("subagent/descriptor", descriptor)).await?;
        let mut running = child.running.subscribe();
        let content = vec![json!({ "type": "text", "text": texts::SUBAGENT_PROMPT })];
        let prompt = Prompt::new(content, format!("subagent-{call_id}"));
        turns::prompt(self.app, self.runtime, &child, PromptMode::Queue, prompt)
            .await
            .map_err(|e| Stop::Agent(e.message))?;
        if continuable {
            self.tool_result(step, &call_id, &format!("started subagent {}", child.id), false).await?;
            return Ok(format!("A subagent ({}) works on it in the background.", child.id));
        }
        let interrupted = tokio::select! {
            _ = running.wait_for(|r| !*r) => false,
            _ = self.interrupt.wait_for(|i| *i) => true,
        };
        if interrupted {
            turns::cancel(self.app, &child).await;
            return Err(Stop::Interrupted);
        }
        match final_text(self.app, &child) {
            Some(text) => {
                self.tool_result(step, &call_id, &text, false).await?;
                Ok(format!("The subagent answered: {text}"))
            }
            None => {
                self.tool_result(step, &call_id, "Error: aborted", true).await?;
                Ok("The subagent stopped before it answered.".to_string())
            }
        }
    }
}

/// The text of the child's last assistant message (upstream's one-shot `output`).
fn final_text(app: &Base, child: &Session) -> Option<String> {
    let upper = child.last_seq.load(std::sync::atomic::Ordering::SeqCst);
    let (events, _) = app.store.page(child.pk, upper, 1, u32::MAX).ok()?;
    let message = events.iter().rev().find(|e| e.kind == "assistant/message")?;
    let content = message.data_value()["content"].clone();
    let text: Vec<String> =
        content.as_array()?.iter().filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned)).collect();
    Some(text.join(""))
}
