//! Cursor over ACP: `session/new`'s modes, `current_mode_update` to `plan`, then the plan as
//! plain prose in `agent_message_chunk`s. No questions, no structured steps.

use super::ctx::{plan_markdown, Ctx};
use crate::providers::scripted::texts;
use serde_json::{json, Value};

fn acp_session(ctx: &Ctx) -> String {
    format!("sess_{}", ctx.session_id.trim_start_matches("session-"))
}

fn update(ctx: &Ctx, update: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": "session/update", "params": { "sessionId": acp_session(ctx), "update": update } })
}

fn mode_id(plan: bool) -> &'static str {
    if plan {
        "plan"
    } else {
        "agent"
    }
}

/// The `session/new` response: Cursor's modes (`agent`, `plan`, `ask`).
pub fn session_new_result(ctx: &Ctx, plan: bool) -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "result": { "sessionId": acp_session(ctx), "modes": {
        "currentModeId": mode_id(plan),
        "availableModes": [
            { "id": "agent", "name": "Agent", "description": "Edits files and runs tools" },
            { "id": "plan", "name": "Plan", "description": "Plans before acting" },
            { "id": "ask", "name": "Ask", "description": "Answers questions, read-only" }
        ]
    } } })
}

pub fn mode_update(ctx: &Ctx, plan: bool) -> Value {
    update(ctx, json!({ "sessionUpdate": "current_mode_update", "currentModeId": mode_id(plan) }))
}

pub fn turn(ctx: &Ctx) -> Vec<Value> {
    let mut v = vec![mode_update(ctx, true)];
    let text = plan_markdown(ctx.prompt, "as small as possible");
    for d in texts::deltas(&text) {
        v.push(update(
            ctx,
            json!({ "sessionUpdate": "agent_message_chunk", "content": { "type": "text", "text": d } }),
        ));
    }
    v
}
