//! Codex app-server payloads (JSON-RPC without the `jsonrpc` header) of a plan-mode turn:
//! `turn/start` with `collaborationMode`, `turn/plan/updated` steps progressing, an
//! `item/tool/requestUserInput` server request that waits, `serverRequest/resolved`, the plan
//! item's `item/plan/delta`s and `item/completed`, then `turn/completed`.

use super::ctx::{plan_markdown, Ctx};
use crate::providers::scripted::texts;
use serde_json::{json, Value};

const STEPS: [&str; 3] = ["Inspect the relevant files", "Settle the approach with the user", "Write the plan"];

fn thread(ctx: &Ctx) -> String {
    format!("thr_{}", ctx.session_id.trim_start_matches("session-"))
}

fn turn_id(ctx: &Ctx) -> String {
    format!("turn_{}", ctx.turn)
}

fn notify(ctx: &Ctx, method: &str, mut params: Value) -> Value {
    if let Some(p) = params.as_object_mut() {
        p.insert("threadId".into(), json!(thread(ctx)));
        if method != "turn/started" && method != "turn/completed" {
            p.insert("turnId".into(), json!(turn_id(ctx)));
        }
    }
    json!({ "method": method, "params": params })
}

/// The server request id of the turn's question (prompt id `codex-<id>`).
pub fn request_id(ctx: &Ctx) -> u64 {
    ctx.turn * 100 + 1
}

/// The client's `turn/start`: the collaboration mode rides on every turn.
pub fn turn_start(ctx: &Ctx, plan: bool) -> Value {
    let mode = if plan { "plan" } else { "default" };
    json!({
        "id": ctx.turn * 100,
        "method": "turn/start",
        "params": {
            "threadId": thread(ctx),
            "input": [{ "type": "text", "text": ctx.prompt }],
            "collaborationMode": { "mode": mode, "settings": { "model": "gpt-5.1-codex", "reasoning_effort": "medium", "developer_instructions": null } }
        }
    })
}

fn plan_updated(ctx: &Ctx, done: usize) -> Value {
    let plan: Vec<Value> = STEPS
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let status = if i < done {
                "completed"
            } else if i == done {
                "inProgress"
            } else {
                "pending"
            };
            json!({ "step": s, "status": status })
        })
        .collect();
    notify(ctx, "turn/plan/updated", json!({ "explanation": "Planning before any edit", "plan": plan }))
}

fn agent_delta(ctx: &Ctx, item: &str, text: &str) -> Vec<Value> {
    texts::deltas(text)
        .into_iter()
        .map(|d| notify(ctx, "item/agentMessage/delta", json!({ "itemId": item, "delta": d })))
        .collect()
}

pub fn opening(ctx: &Ctx) -> Vec<Value> {
    let turn = json!({ "id": turn_id(ctx), "items": [], "status": "inProgress", "error": null });
    let mut v = vec![notify(ctx, "turn/started", json!({ "turn": turn })), plan_updated(ctx, 0)];
    v.extend(agent_delta(ctx, &format!("msg_{}_1", ctx.turn), "I looked at the project; two choices shape the plan."));
    v.push(plan_updated(ctx, 1));
    v.push(json!({
        "id": request_id(ctx),
        "method": "item/tool/requestUserInput",
        "params": {
            "threadId": thread(ctx), "turnId": turn_id(ctx), "itemId": format!("call_{}", ctx.turn),
            "questions": [
                { "id": "scope", "header": "Scope", "question": "How much should the change cover?", "isOther": true, "isSecret": false,
                  "options": [
                      { "label": "Minimal (Recommended)", "description": "Touch as little as possible." },
                      { "label": "Thorough", "description": "Clean up the surrounding code too." }
                  ] },
                { "id": "tests", "header": "Tests", "question": "Should the plan add tests?", "isOther": false, "isSecret": false,
                  "options": [
                      { "label": "Yes", "description": "Add a regression test." },
                      { "label": "No", "description": "Rely on the existing tests." }
                  ] }
            ]
        }
    }));
    v
}

/// Sent when the question is settled (answered or withdrawn).
pub fn request_resolved(ctx: &Ctx) -> Value {
    notify(ctx, "serverRequest/resolved", json!({ "requestId": request_id(ctx) }))
}

/// `{answers: {[id]: {answers: [..]}}}` -> "scope Minimal, tests Yes".
fn choice(reply: &Value) -> String {
    let Some(map) = reply.get("answers").and_then(Value::as_object) else { return "no answer".into() };
    let parts: Vec<String> = map
        .iter()
        .filter_map(|(k, v)| {
            let a: Vec<&str> = v.get("answers")?.as_array()?.iter().filter_map(Value::as_str).collect();
            Some(format!("{k}: {}", a.join(", ")))
        })
        .collect();
    if parts.is_empty() {
        "no answer".into()
    } else {
        parts.join("; ")
    }
}

pub fn closing(ctx: &Ctx, reply: &Value) -> Vec<Value> {
    let choice = choice(reply);
    let item = format!("plan_{}", ctx.turn);
    let markdown = plan_markdown(ctx.prompt, &choice);
    let mut v = vec![request_resolved(ctx), plan_updated(ctx, 2)];
    v.push(notify(ctx, "item/started", json!({ "item": { "type": "plan", "id": item, "text": "" } })));
    for d in texts::deltas(&markdown) {
        v.push(notify(ctx, "item/plan/delta", json!({ "itemId": item, "delta": d })));
    }
    v.push(notify(ctx, "item/completed", json!({ "item": { "type": "plan", "id": item, "text": markdown } })));
    v.push(plan_updated(ctx, 3));
    v.extend(agent_delta(ctx, &format!("msg_{}_2", ctx.turn), &format!("The plan is ready ({choice}).")));
    let turn = json!({ "id": turn_id(ctx), "items": [], "status": "completed", "error": null });
    v.push(notify(ctx, "turn/completed", json!({ "turn": turn })));
    v
}
