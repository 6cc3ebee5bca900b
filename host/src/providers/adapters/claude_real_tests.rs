//! The Claude adapter over transcripts of the real Claude Code (2.1.328, `claude -p` with
//! stream-json in and out, partial messages and `--permission-prompt-tool stdio`, driven by
//! `tests/fake-models/probe-claude.mjs`): `host/tests/fixtures/providers/claude/real/*.jsonl`,
//! one `{"dir":"out"|"in","msg":…}` a line (out = the host's side sent it).
//!
//! A replay feeds every `in` line and the host's own `set_permission_mode` requests through
//! one adapter in order, as the runtime does; the tests answer where the recording answered
//! and compare the adapter's replies with what the CLI accepted.

use super::claude::{self, ClaudeAdapter};
use super::tests::{
    ans, assert_native_retained, diagnostics, events, last_mode, pending, plan_steps, projections, reasoning,
    requested, resolved, texts,
};
use super::{AnswerError, ApprovalRequest, Canonical};
use agent_session_wire::interaction::{
    OperatingMode, PromptOutcome, Provenance, EV_MODE_CHANGED, EV_PLAN_PROPOSED, PROJ_PROPOSED_PLAN,
};
use agent_session_wire::ApprovalOutcome;
use serde_json::{json, Value};

/// Every real transcript, in recording order (01-05 one process, 06a killed, 06b its resume).
const TRANSCRIPTS: [&str; 7] = [
    "01-plan-implement",
    "02-deny",
    "03-interrupt",
    "04-question-thinking-errors",
    "05-stall-interrupt",
    "06a-killed",
    "06b-resumed",
];

/// `(dir == "in", msg)` per line.
fn transcript(name: &str) -> Vec<(bool, Value)> {
    let path = format!("{}/tests/fixtures/providers/claude/real/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}"));
            (v["dir"] == "in", v["msg"].clone())
        })
        .collect()
}

/// What one replay step saw: the message and the adapter's outputs for it.
struct Step {
    msg: Value,
    out: Vec<Canonical>,
}

fn is_mode_request(m: &Value) -> bool {
    m["type"] == "control_request" && m["request"]["subtype"] == "set_permission_mode"
}

/// Replays `name` through `a`; `react` sees each step's outputs and may answer (its outputs are
/// appended to the step). Asserts on every real message: no diagnostic, the native payload
/// retained.
fn replay(
    a: &mut ClaudeAdapter,
    name: &str,
    mut react: impl FnMut(&mut ClaudeAdapter, &Value, &[Canonical]) -> Vec<Canonical>,
) -> Vec<Step> {
    let mut steps = Vec::new();
    for (inbound, msg) in transcript(name) {
        if !inbound && !is_mode_request(&msg) {
            continue;
        }
        let mut out = a.ingest(&msg);
        assert_native_retained("claude", &msg, &out);
        assert!(diagnostics(&out).is_empty(), "{name}: {:?} on {msg}", diagnostics(&out));
        let more = react(a, &msg, &out);
        out.extend(more);
        steps.push(Step { msg, out });
    }
    steps
}

fn all(steps: &[Step]) -> Vec<Canonical> {
    steps.iter().flat_map(|s| s.out.clone()).collect()
}

fn approvals(out: &[Canonical]) -> Vec<ApprovalRequest> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::Approval(a) => Some(a.clone()),
            _ => None,
        })
        .collect()
}

/// The recorded `control_response` the host's side sent for the CLI's request `request_id`.
fn recorded_response(name: &str, request_id: &str) -> Value {
    transcript(name)
        .into_iter()
        .find(|(inbound, m)| !inbound && m["type"] == "control_response" && m["response"]["request_id"] == request_id)
        .map(|(_, m)| m)
        .expect("a recorded control_response")
}

fn can_use_tool<'a>(steps: &'a [Step], tool: &str) -> Vec<&'a Value> {
    steps
        .iter()
        .map(|s| &s.msg)
        .filter(|m| m["type"] == "control_request" && m["request"]["tool_name"] == tool)
        .collect()
}

#[test]
fn every_real_line_maps_without_a_diagnostic() {
    for name in TRANSCRIPTS {
        let mut a = ClaudeAdapter::new();
        replay(&mut a, name, |_, _, _| Vec::new());
    }
}

#[test]
fn plan_turn_question_answer_exit_plan_mode_approval_and_the_implementation() {
    let mut a = ClaudeAdapter::new();
    let name = "01-plan-implement";
    let steps = replay(&mut a, name, |a, msg, out| {
        // Answer the question as the recording did (Minimal), through the adapter.
        if msg["type"] == "assistant" && !events(out, agent_session_wire::interaction::EV_PROMPT_REQUESTED).is_empty() {
            let p = requested(out);
            let answered = a.answer(&p.prompt_id, &[ans("q0", &["o0"], None)]).expect("answer");
            assert_eq!(answered.native_id, json!(msg["message"]["content"][0]["id"]), "the tool_use id");
            return answered.outputs;
        }
        Vec::new()
    });
    let out = all(&steps);
    // Mode: plan from the first init; default after the approved ExitPlanMode.
    let modes: Vec<String> =
        events(&out, EV_MODE_CHANGED).iter().map(|m| m["native"].as_str().unwrap().to_string()).collect();
    assert_eq!(modes, ["plan", "default"]);
    assert_eq!(last_mode(&out).unwrap().mode, OperatingMode::Default);

    // The question, its answer in the shape the CLI accepted.
    let ask = can_use_tool(&steps, claude::ASK_USER_QUESTION);
    assert_eq!(ask.len(), 1);
    let sent = recorded_response(name, ask[0]["request_id"].as_str().unwrap());
    let answers = &sent["response"]["response"]["updatedInput"]["answers"];
    assert_eq!(answers, &json!({ "How much should the change cover?": "Minimal" }));
    let mut b = ClaudeAdapter::new();
    let prompt_step = steps
        .iter()
        .position(|s| !events(&s.out, agent_session_wire::interaction::EV_PROMPT_REQUESTED).is_empty())
        .unwrap();
    for s in &steps[..=prompt_step] {
        b.ingest(&s.msg);
    }
    let p = requested(&steps[prompt_step].out);
    assert_eq!(b.answer(&p.prompt_id, &[ans("q0", &["o0"], None)]).unwrap().result["answers"], *answers);
    // Not an approval: AskUserQuestion's can_use_tool maps to nothing.
    let ask_step = steps.iter().find(|s| s.msg == *ask[0]).unwrap();
    assert!(ask_step.out.is_empty(), "{:?}", ask_step.out);
    assert!(pending(&out).prompts.is_empty(), "answered through us");

    // ExitPlanMode: the CLI's injected plan proposed, steps synthesized, then its approval.
    let proposed = events(&out, EV_PLAN_PROPOSED);
    assert_eq!(proposed.len(), 1);
    assert_eq!(proposed[0]["source"], "native");
    assert!(proposed[0]["markdown"].as_str().unwrap().starts_with("# Add the notes file"));
    let steps_proj = plan_steps(&out);
    assert_eq!(steps_proj.steps.len(), 3);
    assert!(steps_proj.steps.iter().all(|s| s.source == Provenance::Synthesized));
    let exits = can_use_tool(&steps, claude::EXIT_PLAN_MODE);
    let exit_approvals: Vec<ApprovalRequest> =
        approvals(&out).into_iter().filter(|x| x.tool_name == claude::EXIT_PLAN_MODE).collect();
    assert_eq!(exit_approvals.len(), 1);
    let rid = exits[0]["request_id"].as_str().unwrap();
    assert_eq!(exit_approvals[0].approval_id, claude::approval_id(rid));
    assert_eq!(exit_approvals[0].call_id.as_deref(), exits[0]["request"]["tool_use_id"].as_str());
    // Its tool_result hands the proposal off.
    assert_eq!(projections(&out, PROJ_PROPOSED_PLAN).last().copied(), Some(&Value::Null));

    // The answer the adapter writes is the one the CLI accepted (setMode included).
    let mut c = ClaudeAdapter::new();
    for s in steps.iter().take_while(|s| s.msg != *exits[0]) {
        c.ingest(&s.msg);
    }
    c.ingest(exits[0]);
    let reply = c.respond_approval(&claude::approval_id(rid), ApprovalOutcome::AllowedOnce).unwrap();
    assert_eq!(reply, recorded_response(name, rid));
    assert_eq!(
        c.respond_approval(&claude::approval_id(rid), ApprovalOutcome::AllowedOnce),
        Err(AnswerError::NotPending)
    );

    // The implementation: one Bash approval with the command as its reason.
    let bash: Vec<ApprovalRequest> = approvals(&out).into_iter().filter(|x| x.tool_name == "Bash").collect();
    assert_eq!(bash.len(), 1);
    assert_eq!(bash[0].reason.as_deref(), Some("Write the notes file: echo implemented > NOTES.md"));

    // Text arrives once, from the stream events (the whole blocks after them are skipped).
    let text: String = texts(&out).concat();
    assert_eq!(
        text,
        "I need one answer before I plan.Writing the plan file.The plan is approved. Say the word and I will implement it.\
         Done: the plan is implemented."
    );
    let tool_calls: Vec<&str> = out
        .iter()
        .filter_map(|o| match o {
            Canonical::ToolCall { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(tool_calls, ["ToolSearch", "Write", "Bash"]);
}

#[test]
fn denials_map_to_deny_replies_and_a_rejected_plan_leaves_no_proposal() {
    let mut a = ClaudeAdapter::new();
    let name = "02-deny";
    let steps = replay(&mut a, name, |a, msg, out| {
        if msg["type"] == "assistant" && !events(out, agent_session_wire::interaction::EV_PROMPT_REQUESTED).is_empty() {
            return a.answer(&requested(out).prompt_id, &[ans("q0", &["o1"], None)]).unwrap().outputs;
        }
        for ap in approvals(out) {
            let reply = a.respond_approval(&ap.approval_id, ApprovalOutcome::Rejected).unwrap();
            let rid = reply["response"]["request_id"].as_str().unwrap().to_string();
            let sent = recorded_response(name, &rid);
            assert_eq!(reply["response"]["response"]["behavior"], "deny");
            assert_eq!(sent["response"]["response"]["behavior"], "deny");
        }
        Vec::new()
    });
    let out = all(&steps);
    let tools: Vec<String> = approvals(&out).iter().map(|x| x.tool_name.clone()).collect();
    assert_eq!(tools, ["Bash", "ExitPlanMode"]);
    // The host's own set_permission_mode and the CLI's status both say plan; one event.
    let modes: Vec<&Value> = events(&out, EV_MODE_CHANGED).iter().map(|m| &m["native"]).collect();
    assert_eq!(modes, [&json!("default"), &json!("plan")]);
    assert_eq!(projections(&out, PROJ_PROPOSED_PLAN).last().copied(), Some(&Value::Null));
    assert!(texts(&out).concat().contains("Understood: the plan stays a proposal."));
}

#[test]
fn interrupts_keep_the_streamed_text_and_cancel_the_pending_question() {
    let mut a = ClaudeAdapter::new();
    let steps = replay(&mut a, "03-interrupt", |_, _, _| Vec::new());
    let out = all(&steps);
    let text = texts(&out).concat();
    assert!(text.starts_with("word0 of the long answer"), "{text}");
    assert!(!text.contains("word5 "), "only what streamed before the interrupt: {text}");
    // The question's can_use_tool was cancelled; its error tool_result resolves it cancelled.
    let r = resolved(&out);
    assert_eq!(r.outcome, PromptOutcome::Cancelled);
    assert!(pending(&out).prompts.is_empty());
    assert!(approvals(&out).is_empty());
    assert!(!out.iter().any(|o| matches!(o, Canonical::ApprovalWithdrawn { .. })), "a question is not an approval");
}

#[test]
fn a_pending_question_of_a_killed_process_is_withdrawn_cancelled() {
    let mut a = ClaudeAdapter::new();
    let steps = replay(&mut a, "06a-killed", |_, _, _| Vec::new());
    let out = all(&steps);
    assert_eq!(last_mode(&out).unwrap().mode, OperatingMode::Plan);
    assert_eq!(pending(&out).prompts.len(), 1);
    let w = a.withdraw_all();
    assert_eq!(resolved(&w).outcome, PromptOutcome::Cancelled);
    assert!(pending(&w).prompts.is_empty());
    assert!(a.withdraw_all().is_empty(), "nothing twice");
}

#[test]
fn thinking_streams_as_reasoning_and_api_errors_are_no_answer() {
    let mut a = ClaudeAdapter::new();
    let steps = replay(&mut a, "04-question-thinking-errors", |a, msg, out| {
        if msg["type"] == "assistant" && !events(out, agent_session_wire::interaction::EV_PROMPT_REQUESTED).is_empty() {
            return a.answer(&requested(out).prompt_id, &[ans("q0", &["o1"], None)]).unwrap().outputs;
        }
        Vec::new()
    });
    let out = all(&steps);
    assert_eq!(reasoning(&out).concat(), "Thinking about the fake question before answering.");
    let text = texts(&out).concat();
    assert!(text.contains("You picked Thorough."), "{text}");
    assert!(text.contains("Reasoned answer from the fake model."));
    assert!(!text.contains("API Error"), "the CLI's synthetic error note is not mapped: {text}");
}

#[test]
fn stall_and_resume_transcripts_map_cleanly() {
    for name in ["05-stall-interrupt", "06b-resumed"] {
        let mut a = ClaudeAdapter::new();
        let out = all(&replay(&mut a, name, |_, _, _| Vec::new()));
        assert!(approvals(&out).is_empty(), "{name}");
        if name == "06b-resumed" {
            assert_eq!(texts(&out).concat(), "Hello from the fake model.");
        }
    }
}

/// What the CLI sent the model in the same recording (`model-requests.jsonl`, long texts cut):
/// the facts the fake Messages server relies on.
#[test]
fn the_recorded_model_requests_are_what_the_fake_server_reads() {
    let path = format!("{}/tests/fixtures/providers/claude/real/model-requests.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let requests: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert!(requests.len() > 10, "{}", requests.len());
    for r in &requests {
        assert_eq!(
            (r["method"].as_str(), r["path"].as_str(), r["query"].as_str()),
            (Some("POST"), Some("/v1/messages"), Some("?beta=true"))
        );
        assert_eq!(r["stream"], true, "every call streams");
        assert!(r["model"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let tools = |r: &Value| {
        r["tools"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    // ExitPlanMode is deferred: offered only once ToolSearch loaded it.
    assert!(!tools(&requests[0]).iter().any(|t| t == claude::EXIT_PLAN_MODE));
    assert!(tools(&requests[0]).iter().any(|t| t == "ToolSearch" || t == claude::ASK_USER_QUESTION));
    assert!(tools(&requests[2]).iter().any(|t| t == claude::EXIT_PLAN_MODE), "{:?}", tools(&requests[2]));
    // Plan mode names the plan file the model is to write.
    let first = requests[0].to_string();
    assert!(first.contains("create your plan at /") && first.contains("/.claude/plans/"), "the plan file's path");
    // The answer comes back as AskUserQuestion's tool result.
    let second = requests[1]["messages"].to_string();
    assert!(second.contains(r#"\"How much should the change cover?\"=\"Minimal\""#), "{second}");
}
