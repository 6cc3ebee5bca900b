//! Claude Agent SDK messages of a plan-mode turn: `system/init` with `permissionMode: plan`,
//! an assistant message reading a file (`Read` tool_use + its tool_result), an
//! `AskUserQuestion` tool_use that waits for the answer, the answer's tool_result, then the
//! `ExitPlanMode` tool_use carrying the markdown plan, and the `result`.

use super::ctx::{plan_markdown, Ctx};
use serde_json::{json, Value};

const MODEL: &str = "claude-sonnet-4-5-20250929";

fn sdk_session(ctx: &Ctx) -> String {
    ctx.session_id.trim_start_matches("session-").to_string()
}

fn assistant(ctx: &Ctx, n: u32, content: Value) -> Value {
    json!({
        "type": "assistant",
        "message": { "id": format!("msg_{}_{n}", ctx.turn), "type": "message", "role": "assistant", "model": MODEL,
                     "content": content, "stop_reason": "tool_use", "stop_sequence": null,
                     "usage": { "input_tokens": 1000, "output_tokens": 100 } },
        "parent_tool_use_id": null, "session_id": sdk_session(ctx)
    })
}

fn user(ctx: &Ctx, content: Value) -> Value {
    json!({ "type": "user", "message": { "role": "user", "content": content }, "parent_tool_use_id": null, "session_id": sdk_session(ctx) })
}

fn ask_id(ctx: &Ctx) -> String {
    format!("toolu_ask_{}", ctx.turn)
}

const QUESTION: &str = "Which approach should the plan take?";

/// `system/init` (each query starts with one) carrying the permission mode.
pub fn system_init(ctx: &Ctx, plan: bool) -> Value {
    json!({
        "type": "system", "subtype": "init", "cwd": "/workspace", "session_id": sdk_session(ctx),
        "tools": ["Read", "Grep", "AskUserQuestion", "ExitPlanMode"], "mcp_servers": [], "model": MODEL,
        "permissionMode": if plan { "plan" } else { "default" }, "apiKeySource": "none"
    })
}

pub fn opening(ctx: &Ctx) -> Vec<Value> {
    let read = format!("toolu_read_{}", ctx.turn);
    vec![
        system_init(ctx, true),
        assistant(
            ctx,
            1,
            json!([
                { "type": "text", "text": "Let me look at the project first." },
                { "type": "tool_use", "id": read, "name": "Read", "input": { "file_path": "README.md" } }
            ]),
        ),
        user(
            ctx,
            json!([{ "type": "tool_result", "tool_use_id": read, "content": "1\t# Scripted README\n2\tNothing to see here." }]),
        ),
        assistant(
            ctx,
            2,
            json!([
                { "type": "text", "text": "One question before I plan." },
                { "type": "tool_use", "id": ask_id(ctx), "name": "AskUserQuestion", "input": { "questions": [{
                    "question": QUESTION, "header": "Approach", "multiSelect": false,
                    "options": [
                        { "label": "Small change", "description": "Touch as little as possible." },
                        { "label": "Refactor", "description": "Clean up the surrounding code too." }
                    ]
                }] } }
            ]),
        ),
    ]
}

/// The AskUserQuestion was withdrawn: its tool_result is an error.
pub fn question_declined(ctx: &Ctx) -> Value {
    user(
        ctx,
        json!([{ "type": "tool_result", "tool_use_id": ask_id(ctx), "is_error": true, "content": "The user declined to answer." }]),
    )
}

pub fn closing(ctx: &Ctx, reply: &Value) -> Vec<Value> {
    let answers = reply.get("answers").and_then(Value::as_object);
    let choice = answers
        .map(|m| m.values().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "no answer".into());
    let plan = plan_markdown(ctx.prompt, &choice);
    vec![
        user(ctx, json!([{ "type": "tool_result", "tool_use_id": ask_id(ctx), "content": reply.to_string() }])),
        assistant(
            ctx,
            3,
            json!([
                { "type": "text", "text": format!("Going with: {choice}. Here is my plan.") },
                { "type": "tool_use", "id": format!("toolu_exit_{}", ctx.turn), "name": "ExitPlanMode", "input": { "plan": plan } }
            ]),
        ),
        json!({ "type": "result", "subtype": "success", "is_error": false, "num_turns": 3, "result": "Here is my plan.", "session_id": sdk_session(ctx) }),
    ]
}
