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

use crate::agent::turns::{Run, Stop};
use crate::log::lineage::{Mode, Subagent};
use crate::providers::scripted::texts;
use serde_json::json;

impl Run<'_> {
    /// Spawns the child (through the `Base`'s spawner, which holds the sessions) and returns
    /// the sentence the parent's reply says about it.
    pub(super) async fn run_subagent(&mut self, step: u64, continuable: bool) -> Result<String, Stop> {
        let call_id = format!("call-{}", uuid::Uuid::new_v4());
        let mut args = json!({ "description": texts::SUBAGENT_LABEL, "prompt": texts::SUBAGENT_PROMPT });
        if continuable {
            args["run_in_background"] = json!(true);
        }
        self.tool_call(step, &call_id, "subagent", args).await?;
        let mode = if continuable { Mode::Continuable } else { Mode::OneShot };
        let identity = Subagent { mode, label: Some(texts::SUBAGENT_LABEL.to_string()) };
        let descriptor =
            json!({ "version": 2, "mode": mode.name(), "provider": "spawn", "label": texts::SUBAGENT_LABEL });
        let content = vec![json!({ "type": "text", "text": texts::SUBAGENT_PROMPT })];
        let spawner = &self.app.spawner;
        let child = spawner
            .spawn(self.app, &self.s.id, identity, descriptor, content, format!("subagent-{call_id}"))
            .await
            .map_err(Stop::Agent)?;
        if continuable {
            self.tool_result(step, &call_id, &format!("started subagent {child}"), false).await?;
            return Ok(format!("A subagent ({child}) works on it in the background."));
        }
        let answer = tokio::select! {
            answer = spawner.answer(self.app, &child) => Some(answer),
            _ = self.interrupt.wait_for(|i| *i) => None,
        };
        let Some(answer) = answer else {
            spawner.cancel(self.app, &child).await;
            return Err(Stop::Interrupted);
        };
        match answer {
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
