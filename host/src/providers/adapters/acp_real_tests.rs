//! The ACP adapter over transcripts of a real ACP agent: `claude-code-acp` 0.16.2 (the Claude
//! Agent SDK over the pinned Claude Code), driven by `tests/fake-models/probe-acp.mjs` against
//! the fake Messages server: `host/tests/fixtures/providers/acp/real/*.jsonl`, one
//! `{"dir":"out"|"in","msg":…}` a line (out = the client sent it).
//!
//! A replay feeds every `in` notification and request, the client's own `session/set_mode`,
//! and the answers to `session/new` / `session/load` (through `ingest_session_result`) through
//! one adapter in order, as the `--agent acp` runtime does.

use super::acp::AcpAdapter;
use super::tests::{assert_native_retained, diagnostics, events, last_mode, projections, texts};
use super::Canonical;
use agent_session_wire::interaction::{
    OperatingMode, EV_PLAN_PROPOSED, PROJ_CAPABILITIES, PROJ_PLAN_STEPS, PROJ_PROPOSED_PLAN,
};
use agent_session_wire::ApprovalOutcome;
use serde_json::{json, Value};
use std::collections::HashMap;

/// `(dir == "in", msg)` per line.
fn transcript(name: &str) -> Vec<(bool, Value)> {
    let path = format!("{}/tests/fixtures/providers/acp/real/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}"));
            (v["dir"] == "in", v["msg"].clone())
        })
        .collect()
}

/// What the client answered to the agent's request `id` in `name`.
fn recorded_answer(name: &str, id: &Value) -> Value {
    transcript(name)
        .into_iter()
        .find(|(inbound, m)| !inbound && m.get("method").is_none() && m.get("id") == Some(id))
        .map(|(_, m)| m)
        .expect("a recorded answer")
}

/// Replays `name` through `a`; returns each inbound message (and our `session/set_mode`) with
/// its outputs. Asserts on every real message: no diagnostic, the native payload retained.
fn replay(a: &mut AcpAdapter, name: &str) -> Vec<(Value, Vec<Canonical>)> {
    let mut ours: HashMap<String, String> = HashMap::new();
    let mut steps = Vec::new();
    for (inbound, msg) in transcript(name) {
        let method = msg.get("method").and_then(Value::as_str);
        let out = match (inbound, method) {
            (true, Some(_)) => a.ingest(&msg),
            (true, None) => {
                let id = msg.get("id").map(Value::to_string).unwrap_or_default();
                assert!(a.ingest(&msg).is_empty(), "{name}: a response yields nothing");
                match ours.get(&id).map(String::as_str) {
                    Some("session/new" | "session/load") if msg.get("result").is_some() => {
                        a.ingest_session_result(&msg)
                    }
                    _ => Vec::new(),
                }
            }
            (false, Some(m)) => {
                if let Some(id) = msg.get("id") {
                    ours.insert(id.to_string(), m.to_string());
                }
                if m == "session/set_mode" {
                    a.ingest(&msg)
                } else {
                    Vec::new()
                }
            }
            (false, None) => Vec::new(),
        };
        assert!(diagnostics(&out).is_empty(), "{name}: {msg} -> {out:?}");
        if method.is_some() && !out.is_empty() {
            assert_native_retained("acp", &msg, &out);
        }
        steps.push((msg, out));
    }
    steps
}

fn all(steps: &[(Value, Vec<Canonical>)]) -> Vec<Canonical> {
    steps.iter().flat_map(|(_, o)| o.iter().cloned()).collect()
}

fn approvals(out: &[Canonical]) -> Vec<&super::ApprovalRequest> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::Approval(a) => Some(a),
            _ => None,
        })
        .collect()
}

fn tool_calls(out: &[Canonical]) -> Vec<(&str, &str, &Value)> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::ToolCall { call_id, name, arguments } => Some((call_id.as_str(), name.as_str(), arguments)),
            _ => None,
        })
        .collect()
}

fn tool_results(out: &[Canonical]) -> Vec<(&str, bool)> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::ToolResult { call_id, is_error, .. } => Some((call_id.as_str(), *is_error)),
            _ => None,
        })
        .collect()
}

/// The permission request (the whole message) behind an approval id.
fn permission_request(steps: &[(Value, Vec<Canonical>)], approval_id: &str) -> Value {
    steps
        .iter()
        .find(|(_, out)| approvals(out).iter().any(|a| a.approval_id == approval_id))
        .map(|(m, _)| m.clone())
        .expect("the request")
}

#[test]
fn session_new_advertises_plan_mode_but_no_ask_mode_and_no_questions() {
    let mut a = AcpAdapter::agent();
    let out = all(&replay(&mut a, "01-initialize"));
    let caps = projections(&out, PROJ_CAPABILITIES);
    let caps = caps.last().expect("capabilities");
    assert_eq!(caps["supportsPlanMode"], true, "claude-code-acp's modes include plan: {caps}");
    assert_eq!(caps["supportsAskMode"], false, "default, acceptEdits, plan, dontAsk: {caps}");
    assert_eq!(caps["supportsStructuredUserInput"], false);
    assert_eq!(caps["supportsExitPlanMode"], false, "not before the agent asks to approve a plan");
    let mode = last_mode(&out).expect("a mode");
    assert_eq!((mode.mode, mode.native.as_deref()), (OperatingMode::Default, Some("default")));
}

#[test]
fn a_plan_turn_proposes_the_plan_once_and_its_permission_is_the_plans_approval() {
    let mut a = AcpAdapter::agent();
    replay(&mut a, "01-initialize");
    let steps = replay(&mut a, "02-plan-approved");
    let out = all(&steps);
    // Our session/set_mode is the mode change (the agent answers {} and sends no update)...
    let set = steps.iter().position(|(m, _)| m["method"] == "session/set_mode").expect("set_mode");
    let mode = last_mode(&steps[set].1).expect("mode from set_mode");
    assert_eq!(mode.mode, OperatingMode::Plan);
    // ... and approving the plan brings the agent's own current_mode_update back to default.
    let mode = last_mode(&out).expect("a mode");
    assert_eq!(mode.native.as_deref(), Some("default"));

    let proposed = events(&out, EV_PLAN_PROPOSED);
    assert_eq!(proposed.len(), 1, "announced twice, proposed once: {proposed:?}");
    assert_eq!(proposed[0]["source"], "native");
    assert!(proposed[0]["markdown"].as_str().unwrap_or_default().starts_with("# Add the notes file"));
    assert_eq!(projections(&out, PROJ_PROPOSED_PLAN).len(), 1);
    let steps_proj = projections(&out, PROJ_PLAN_STEPS);
    assert_eq!(steps_proj[0]["steps"].as_array().map(Vec::len), Some(3));
    assert_eq!(steps_proj[0]["steps"][0]["source"], "synthesized");

    // Every tool call once (each is announced twice by the agent), with its input; the
    // switch_mode call is the plan, not a tool call.
    let calls = tool_calls(&out);
    let ids: Vec<&str> = calls.iter().map(|c| c.0).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{calls:?}");
    assert!(!ids.iter().any(|id| *id == proposed[0]["planId"]), "{calls:?}");
    let write = calls.iter().find(|c| c.1.starts_with("Write")).expect("the Write call");
    assert!(write.2["content"].as_str().is_some_and(|c| c.contains("NOTES.md")), "{write:?}");
    // The question the fake asked is a failed tool call: this agent has no questions.
    let ask = calls.iter().find(|c| c.1 == "AskUserQuestion").expect("the AskUserQuestion call");
    assert!(tool_results(&out).contains(&(ask.0, true)));
    assert!(texts(&out).iter().all(|t| !t.is_empty()), "empty chunks carry nothing");
    assert!(texts(&out).concat().contains("The plan is approved."));

    let asked = approvals(&out);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].call_id.as_deref(), proposed[0]["planId"].as_str());
    let caps = projections(&out, PROJ_CAPABILITIES);
    assert_eq!(caps.last().map(|c| &c["supportsExitPlanMode"]), Some(&json!(true)));
    let request = permission_request(&steps, &asked[0].approval_id);
    // The request names only the call (its kind came with the call): a plan exit, and
    // allowed-once is the answer the probe sent.
    assert!(a.is_plan_exit(&asked[0].approval_id));
    let reply = a.respond_approval(&asked[0].approval_id, ApprovalOutcome::AllowedOnce).expect("reply");
    assert_eq!(reply, recorded_answer("02-plan-approved", &request["id"]));
    assert_eq!(reply["result"]["outcome"]["optionId"], "default", "allow_once, never allow_always (acceptEdits)");
    assert!(!a.is_plan_exit(&asked[0].approval_id), "answered");
}

#[test]
fn a_command_permission_is_an_ordinary_approval() {
    let mut a = AcpAdapter::agent();
    replay(&mut a, "01-initialize");
    let steps = replay(&mut a, "03-bash-approval");
    let out = all(&steps);
    let asked = approvals(&out);
    assert_eq!(asked.len(), 1);
    assert!(!a.is_plan_exit(&asked[0].approval_id));
    let reply = a.respond_approval(&asked[0].approval_id, ApprovalOutcome::AllowedOnce).expect("reply");
    let request = permission_request(&steps, &asked[0].approval_id);
    assert_eq!(reply, recorded_answer("03-bash-approval", &request["id"]));
    let calls = tool_calls(&out);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].2["command"], "echo approved > APPROVED.md");
    assert_eq!(tool_results(&out), [(calls[0].0, false)]);
    assert_eq!(texts(&out).concat(), "The command ran.");
}

#[test]
fn a_rejected_plan_is_answered_with_the_reject_once_option() {
    let mut a = AcpAdapter::agent();
    replay(&mut a, "01-initialize");
    let steps = replay(&mut a, "04-plan-rejected");
    let out = all(&steps);
    let asked = approvals(&out);
    assert_eq!(asked.len(), 1);
    assert!(a.is_plan_exit(&asked[0].approval_id));
    let reply = a.respond_approval(&asked[0].approval_id, ApprovalOutcome::Rejected).expect("reply");
    let request = permission_request(&steps, &asked[0].approval_id);
    assert_eq!(reply, recorded_answer("04-plan-rejected", &request["id"]));
    assert_eq!(reply["result"]["outcome"]["optionId"], "plan");
    // The agent fails the prompt instead of ending the turn (the runtime reads it as the end).
    let (last, _) = steps.last().expect("messages");
    assert_eq!(last["error"]["code"], -32603, "{last}");
    // A cancelled answer to a pending permission (after session/cancel) is ACP's own shape.
    let mut b = AcpAdapter::agent();
    b.ingest(&request);
    let cancelled = b.respond_approval(&asked[0].approval_id, ApprovalOutcome::Cancelled).expect("reply");
    assert_eq!(cancelled["result"], json!({ "outcome": { "outcome": "cancelled" } }));
}

#[test]
fn a_cancelled_turn_and_a_loaded_session_read_cleanly() {
    let mut a = AcpAdapter::agent();
    replay(&mut a, "01-initialize");
    let steps = replay(&mut a, "05-cancel");
    let (last, _) = steps.last().expect("messages");
    assert_eq!(last["result"]["stopReason"], "cancelled");
    assert!(texts(&all(&steps)).concat().starts_with("word0 of the long answer"));

    // A new process: session/load replays the history before its answer (the runtime drops
    // it: the log has it), then the next turn.
    let mut a = AcpAdapter::agent();
    let steps = replay(&mut a, "06-restart-load");
    let answer = steps.iter().position(|(m, _)| m["id"] == 2 && m.get("result").is_some()).expect("the load answer");
    let replayed = steps[..answer].iter().filter(|(m, _)| m["method"] == "session/update").count();
    assert!(replayed > 10, "the history came before the answer: {replayed}");
    let after = all(&steps[answer..]);
    let mode = last_mode(&after).expect("the load answer's mode");
    assert_eq!(mode.native.as_deref(), Some("default"), "a load resets the mode");
    assert!(texts(&after).concat().contains("Hello from the fake model."));
}
