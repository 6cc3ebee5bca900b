//! The Codex adapter over transcripts of the real `codex app-server` (0.169.0, driven by
//! `tests/fake-models/probe-codex.mjs`): `host/tests/fixtures/providers/codex/real/*.jsonl`,
//! one `{"dir":"out"|"in","msg":…}` a line (out = the client sent it).
//!
//! A replay feeds every `in` message and the client's own `turn/start` through one adapter in
//! order, and the answers to `thread/start` / `thread/resume` through `ingest_thread_result`,
//! as the runtime does.

use super::codex::{self, CodexAdapter};
use super::tests::{
    ans, assert_native_retained, diagnostics, events, last_mode, pending, plan_steps, projections, reasoning,
    requested, resolved, texts,
};
use super::{AnswerError, ApprovalRequest, Canonical, ProviderAdapter};
use agent_session_wire::interaction::{
    OperatingMode, PromptOutcome, Provenance, StepStatus, EV_MODE_CHANGED, EV_PLAN_PROPOSED, EV_PLAN_TEXT_DELTA,
    EV_PLAN_TEXT_DONE, EV_PROMPT_REQUESTED, EV_PROVIDER_NATIVE, PROJ_PROPOSED_PLAN,
};
use agent_session_wire::ApprovalOutcome;
use serde_json::{json, Value};
use std::collections::HashMap;

/// Every real transcript, in recording order (01-06c one codex process, 07 the next).
const TRANSCRIPTS: [&str; 11] = [
    "01-initialize",
    "02-thread-start",
    "03-plan-turn",
    "04-implement-turn",
    "04b-patch-turn",
    "04c-reasoning-turn",
    "05-long-interrupt",
    "06-error-turn",
    "06b-error-stream-turn",
    "06c-stall-interrupt",
    "07-restart-resume",
];

/// `(dir == "in", msg)` per line.
fn transcript(name: &str) -> Vec<(bool, Value)> {
    let path = format!("{}/tests/fixtures/providers/codex/real/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}"));
            (v["dir"] == "in", v["msg"].clone())
        })
        .collect()
}

/// The message the client sent in `name` that satisfies `pick` (e.g. a recorded answer).
fn recorded_out(name: &str, pick: impl Fn(&Value) -> bool) -> Value {
    transcript(name).into_iter().find(|(inbound, m)| !inbound && pick(m)).map(|(_, m)| m).expect("recorded message")
}

/// What one replay step saw: the message and the adapter's outputs for it.
struct Step {
    msg: Value,
    out: Vec<Canonical>,
}

/// Replays `name` through `a`; `react` sees each step's outputs and may answer (its outputs
/// are appended to the step). Asserts on every real message: no diagnostic, the native payload
/// retained.
fn replay(
    a: &mut CodexAdapter,
    name: &str,
    mut react: impl FnMut(&mut CodexAdapter, &Value, &[Canonical]) -> Vec<Canonical>,
) -> Vec<Step> {
    let mut client_requests: HashMap<String, String> = HashMap::new();
    let mut steps = Vec::new();
    for (inbound, msg) in transcript(name) {
        let method = msg.get("method").and_then(Value::as_str);
        let mut out = match (inbound, method) {
            (true, Some(_)) => a.ingest(&msg),
            (true, None) => {
                // An answer to a client request: the thread answers go through ingest_thread_result.
                let id = msg.get("id").map(Value::to_string).unwrap_or_default();
                let mut out = a.ingest(&msg);
                assert!(out.is_empty(), "{name}: a response yields nothing: {out:?}");
                if matches!(client_requests.get(&id).map(String::as_str), Some("thread/start" | "thread/resume")) {
                    out = a.ingest_thread_result(&msg);
                }
                out
            }
            (false, Some(m)) => {
                if let Some(id) = msg.get("id") {
                    client_requests.insert(id.to_string(), m.to_string());
                }
                if m == "turn/start" {
                    a.ingest(&msg)
                } else {
                    Vec::new()
                }
            }
            (false, None) => Vec::new(), // our own answers: the replay gives them through `react`
        };
        assert!(diagnostics(&out).is_empty(), "{name}: {msg} -> {out:?}");
        if method.is_some() {
            assert_native_retained("codex", &msg, &out);
        }
        let extra = react(a, &msg, &out);
        out.extend(extra);
        steps.push(Step { msg, out });
    }
    steps
}

fn no_reaction(_: &mut CodexAdapter, _: &Value, _: &[Canonical]) -> Vec<Canonical> {
    Vec::new()
}

fn all(steps: &[Step]) -> Vec<Canonical> {
    steps.iter().flat_map(|s| s.out.iter().cloned()).collect()
}

/// The outputs without the `provider/native` events.
fn canonical_only(out: &[Canonical]) -> Vec<&Canonical> {
    out.iter().filter(|o| !matches!(o, Canonical::Event { kind, .. } if *kind == EV_PROVIDER_NATIVE)).collect()
}

fn approvals(out: &[Canonical]) -> Vec<&ApprovalRequest> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::Approval(r) => Some(r),
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

fn tool_results(out: &[Canonical]) -> Vec<(&str, &Value, bool)> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::ToolResult { call_id, content, is_error } => Some((call_id.as_str(), content, *is_error)),
            _ => None,
        })
        .collect()
}

/// Index of the first output matching `pred` in the flattened replay.
fn position(out: &[Canonical], pred: impl Fn(&Canonical) -> bool) -> usize {
    out.iter().position(pred).expect("output present")
}

/// The `item` of the first `item/completed` of `type` in a transcript.
fn completed_item(name: &str, ty: &str) -> Value {
    transcript(name)
        .into_iter()
        .find(|(i, m)| *i && m["method"] == "item/completed" && m["params"]["item"]["type"] == ty)
        .map(|(_, m)| m["params"]["item"].clone())
        .expect("completed item")
}

/// The first message of `method` codex sent in a transcript.
fn inbound(name: &str, method: &str) -> Value {
    transcript(name).into_iter().find(|(i, m)| *i && m["method"] == method).map(|(_, m)| m).expect("message")
}

// ---- per scenario ----

#[test]
fn a_real_plan_turn_streams_plan_text_asks_one_question_and_proposes_the_plan() {
    let mut a = CodexAdapter::new();
    a.set_request_scope("p1");
    let mut answered = None;
    let steps = replay(&mut a, "03-plan-turn", |a, _, out| {
        if events(out, EV_PROMPT_REQUESTED).is_empty() {
            return Vec::new();
        }
        let prompt = requested(out);
        let done = a.answer(&prompt.prompt_id, &[ans("scope", &["o0"], None)]).expect("pending");
        let outputs = done.outputs.clone();
        answered = Some(done);
        outputs
    });
    let out = all(&steps);

    // Mode plan, logged once (the turn/start, then thread/settings/updated says the same).
    assert_eq!(events(&out, EV_MODE_CHANGED).len(), 1);
    assert_eq!(last_mode(&out).unwrap().mode, OperatingMode::Plan);
    assert_eq!(a.mode().unwrap().native.as_deref(), Some("plan"));

    // One prompt: question `scope`, two options, free text allowed (isOther).
    let asked: Vec<_> = steps.iter().filter(|s| s.msg["method"] == "item/tool/requestUserInput").collect();
    assert_eq!(asked.len(), 1);
    let prompt = requested(&asked[0].out);
    assert_eq!(prompt.prompt_id, "codex-p1-0");
    assert_eq!(prompt.questions.len(), 1);
    let q = &prompt.questions[0];
    assert_eq!(q.id, "scope");
    assert_eq!(q.header.as_deref(), Some("Scope"));
    assert_eq!(q.options.iter().map(|o| o.label.as_str()).collect::<Vec<_>>(), ["Minimal", "Thorough"]);
    assert_eq!(q.allow_freeform, Some(true));

    // The answer is the reply the real client sent, and the prompt is resolved answered.
    let answered = answered.expect("answered");
    assert_eq!(answered.result, json!({"answers": {"scope": {"answers": ["Minimal"]}}}));
    let recorded = recorded_out("03-plan-turn", |m| m.get("result").is_some());
    assert_eq!(codex::rpc_response(&answered.native_id, answered.result.clone()), recorded);
    assert_eq!(resolved(&answered.outputs).outcome, PromptOutcome::Answered);
    assert!(pending(&answered.outputs).prompts.is_empty());
    // serverRequest/resolved of the answered prompt says nothing.
    let res = steps.iter().find(|s| s.msg["method"] == "serverRequest/resolved").unwrap();
    assert!(res.out.is_empty(), "{:?}", res.out);

    // The plan text streams natively, and its concatenation is the plan item's text.
    let plan_item = completed_item("03-plan-turn", "plan");
    let plan_text = plan_item["text"].as_str().unwrap();
    let streamed: String =
        events(&out, EV_PLAN_TEXT_DELTA).iter().map(|d| d["text"].as_str().unwrap().to_string()).collect();
    assert_eq!(streamed, plan_text);
    assert!(events(&out, EV_PLAN_TEXT_DELTA).iter().all(|d| d["itemId"] == plan_item["id"]));
    assert_eq!(events(&out, EV_PLAN_TEXT_DONE), [&json!({"itemId": plan_item["id"], "text": plan_text})]);
    let proposed = events(&out, EV_PLAN_PROPOSED);
    assert_eq!(proposed.len(), 1);
    assert_eq!(proposed[0]["markdown"], plan_text);
    assert_eq!(proposed[0]["source"], json!(Provenance::Synthesized));
    assert_eq!(projections(&out, PROJ_PROPOSED_PLAN), [proposed[0]]);

    // Assistant text is only the text outside the block: the agentMessage items' texts.
    let said: String = texts(&out).concat();
    assert_eq!(said, "I need one answer before I plan.Here is the plan.\n\n\nSay the word and I will implement it.");
    assert!(!said.contains("NOTES.md"), "no plan text in the assistant text");
    assert!(tool_calls(&out).is_empty() && approvals(&out).is_empty());
}

#[test]
fn a_real_implementation_turn_updates_plan_steps_and_asks_one_command_approval() {
    let mut a = CodexAdapter::new();
    let mut replies = Vec::new();
    let steps = replay(&mut a, "04-implement-turn", |a, _, out| {
        for r in approvals(out) {
            replies.push(a.respond_approval(&r.approval_id, ApprovalOutcome::AllowedOnce).expect("pending"));
            assert_eq!(a.respond_approval(&r.approval_id, ApprovalOutcome::AllowedOnce), Err(AnswerError::NotPending));
        }
        Vec::new()
    });
    let out = all(&steps);
    assert_eq!(last_mode(&out).unwrap().mode, OperatingMode::Default);

    // Plan steps, statuses mapped (codex's camelCase `inProgress`).
    let updates: Vec<_> = steps.iter().filter(|s| s.msg["method"] == "turn/plan/updated").collect();
    assert_eq!(updates.len(), 2);
    let first = plan_steps(&updates[0].out);
    assert_eq!(first.explanation.as_deref(), Some("Implementing the agreed plan."));
    assert_eq!(
        first.steps.iter().map(|s| (s.text.as_str(), s.status)).collect::<Vec<_>>(),
        [
            ("Create NOTES.md", StepStatus::InProgress),
            ("Write the summary", StepStatus::Pending),
            ("Report back", StepStatus::Pending)
        ]
    );
    assert!(first.steps.iter().all(|s| s.source == Provenance::Native));
    let last = plan_steps(&updates[1].out);
    assert_eq!(last.explanation, None);
    assert!(last.steps.iter().all(|s| s.status == StepStatus::Completed));

    // One approval: shell, call id = the item id, the parsed command as reason.
    let asked = approvals(&out);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].approval_id, "codex-1");
    assert_eq!(asked[0].tool_name, "shell");
    assert_eq!(asked[0].call_id.as_deref(), Some("call_fake_impl_shell"));
    assert_eq!(asked[0].reason.as_deref(), Some("run echo implemented > NOTES.md"));
    // Allowed once -> the reply the real client sent.
    assert_eq!(replies, [json!({"id": 1, "result": {"decision": "accept"}})]);
    assert_eq!(replies[0], recorded_out("04-implement-turn", |m| m.get("result").is_some()));
    // serverRequest/resolved of the answered approval: nothing, no withdrawal.
    let res = steps.iter().find(|s| s.msg["method"] == "serverRequest/resolved").unwrap();
    assert!(res.out.is_empty(), "{:?}", res.out);

    // Tool call, then the approval, then the result.
    let calls = tool_calls(&out);
    assert_eq!(calls.len(), 1);
    let (id, name, args) = calls[0];
    assert_eq!((id, name), ("call_fake_impl_shell", "shell"));
    assert_eq!(args["command"], "/bin/bash -lc 'echo implemented > NOTES.md'");
    assert!(args["cwd"].as_str().unwrap().ends_with("/workspace"));
    let results = tool_results(&out);
    assert_eq!(results.len(), 1);
    let output = completed_item("04-implement-turn", "commandExecution")["aggregatedOutput"].clone();
    assert_eq!(results[0], ("call_fake_impl_shell", &output, false));
    let call_at = position(&out, |o| matches!(o, Canonical::ToolCall { .. }));
    let approval_at = position(&out, |o| matches!(o, Canonical::Approval(_)));
    let result_at = position(&out, |o| matches!(o, Canonical::ToolResult { .. }));
    assert!(call_at < approval_at && approval_at < result_at);

    assert_eq!(texts(&out).concat(), "Done: the plan is implemented.");
}

#[test]
fn a_real_patch_turn_asks_one_file_change_approval_naming_the_file() {
    let mut a = CodexAdapter::new();
    let mut replies = Vec::new();
    let steps = replay(&mut a, "04b-patch-turn", |a, _, out| {
        for r in approvals(out) {
            replies.push(a.respond_approval(&r.approval_id, ApprovalOutcome::AllowedOnce).unwrap());
        }
        Vec::new()
    });
    let out = all(&steps);
    let item = completed_item("04b-patch-turn", "fileChange");
    let path = item["changes"][0]["path"].as_str().unwrap();
    assert!(path.ends_with("/PATCHED.md"));

    let calls = tool_calls(&out);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0], ("call_fake_patch", "apply_patch", &json!({"changes": item["changes"]})));

    // codex sends `reason: null`: the reason names the file seen in the item's start.
    let asked = approvals(&out);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].approval_id, "codex-2");
    assert_eq!(asked[0].tool_name, "apply_patch");
    assert_eq!(asked[0].call_id.as_deref(), Some("call_fake_patch"));
    assert_eq!(asked[0].reason, Some(format!("apply a file change to {path}")));
    assert_eq!(replies, [recorded_out("04b-patch-turn", |m| m.get("result").is_some())]);
    assert_eq!(replies[0], json!({"id": 2, "result": {"decision": "accept"}}));

    assert_eq!(tool_results(&out), [("call_fake_patch", &json!(format!("applied: add {path}")), false)]);
    // turn/diff/updated (three of them) maps to nothing.
    assert!(steps.iter().filter(|s| s.msg["method"] == "turn/diff/updated").all(|s| s.out.is_empty()));
    assert_eq!(texts(&out).concat(), "Patched: PATCHED.md added.");
}

#[test]
fn a_real_reasoning_turn_streams_the_summary_as_reasoning_then_the_answer_as_text() {
    let mut a = CodexAdapter::new();
    let out = all(&replay(&mut a, "04c-reasoning-turn", no_reaction));
    assert_eq!(reasoning(&out).concat(), "Thinking about the fake question before answering.");
    assert_eq!(texts(&out).concat(), "Reasoned answer from the fake model.");
    // The turn/start had no collaborationMode: no mode event.
    assert!(events(&out, EV_MODE_CHANGED).is_empty());
    assert!(canonical_only(&out)
        .iter()
        .all(|o| matches!(o, Canonical::AssistantText { .. } | Canonical::Reasoning { .. })));
}

#[test]
fn a_real_interrupted_long_turn_yields_only_the_partial_assistant_text() {
    let mut a = CodexAdapter::new();
    let out = all(&replay(&mut a, "05-long-interrupt", no_reaction));
    assert!(canonical_only(&out).iter().all(|o| matches!(o, Canonical::AssistantText { .. })), "{out:?}");
    let said = texts(&out).concat();
    assert!(said.starts_with("word0 of the long answer word1 "), "{said}");
    // The partial agentMessage never completes; nothing is synthesized for it.
    assert_eq!(said, (0..5).map(|i| format!("word{i} of the long answer ")).collect::<String>());
}

#[test]
fn real_error_turns_map_to_nothing_canonical_and_never_panic() {
    for name in ["06-error-turn", "06b-error-stream-turn"] {
        let mut a = CodexAdapter::new();
        let steps = replay(&mut a, name, no_reaction);
        assert!(steps.iter().any(|s| s.msg["method"] == "error"), "{name} has an error notification");
        let out = all(&steps);
        assert!(canonical_only(&out).iter().all(|o| matches!(o, Canonical::AssistantText { .. })), "{name}: {out:?}");
    }
}

#[test]
fn a_real_stalled_turn_interrupted_maps_to_nothing() {
    let mut a = CodexAdapter::new();
    let out = all(&replay(&mut a, "06c-stall-interrupt", no_reaction));
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn a_real_restart_resume_reads_the_mode_from_the_resume_answer() {
    // The first process put the thread in plan mode (03), then back to default (04).
    let mut a = CodexAdapter::new();
    a.set_request_scope("p1");
    let start = transcript("02-thread-start").into_iter().find(|(i, m)| *i && m.get("result").is_some()).unwrap().1;
    assert!(a.ingest_thread_result(&start).is_empty(), "the thread/start answer has no collaborationMode");
    assert!(a.mode().is_none());

    // A new process: new scope, and the resume answer carries the mode.
    let mut b = CodexAdapter::new();
    b.set_request_scope("p2");
    let steps = replay(&mut b, "07-restart-resume", no_reaction);
    let resumed = steps.iter().find(|s| s.msg["id"] == 1 && s.msg.get("result").is_some()).unwrap();
    assert_eq!(last_mode(&resumed.out).unwrap().mode, OperatingMode::Default);
    assert_eq!(events(&resumed.out, EV_MODE_CHANGED).len(), 1);
    // Only the mode: the native event keeps the collaborationMode, not the whole history.
    let native = &events(&resumed.out, EV_PROVIDER_NATIVE)[0]["payload"];
    assert_eq!(native, &json!({"collaborationMode": resumed.msg["result"]["collaborationMode"]}));
    assert_eq!(canonical_only(&resumed.out).len(), 2, "mode event + projection: {:?}", resumed.out);
    // The bare result works too, and a repeat says nothing.
    assert!(b.ingest_thread_result(&resumed.msg["result"]).is_empty());
    assert_eq!(b.mode().unwrap().mode, OperatingMode::Default);

    let out = all(&steps);
    assert_eq!(texts(&out).concat(), "Hello from the fake model.");
    for name in ["deprecationNotice", "thread/goal/cleared", "configWarning", "remoteControl/status/changed"] {
        assert!(steps.iter().filter(|s| s.msg["method"] == name).all(|s| s.out.is_empty()), "{name}");
    }
}

#[test]
fn a_resume_answer_in_plan_mode_sets_plan_mode_through_the_provider_adapter() {
    use crate::providers::registry::Provider;
    let resume = transcript("07-restart-resume").into_iter().find(|(i, m)| *i && m["id"] == 1).unwrap().1;
    let mut plan = resume.clone();
    plan["result"]["collaborationMode"]["mode"] = json!("plan");
    let mut p = ProviderAdapter::for_provider(Provider::Codex);
    assert_eq!(last_mode(&p.ingest_thread_result(&plan)).unwrap().mode, OperatingMode::Plan);
    assert_eq!(last_mode(&p.ingest_thread_result(&resume)).unwrap().mode, OperatingMode::Default);
    for other in [Provider::Claude, Provider::Cursor] {
        assert!(ProviderAdapter::for_provider(other).ingest_thread_result(&plan).is_empty());
    }
}

// ---- ids, approvals, decisions ----

#[test]
fn server_request_ids_are_scoped_per_codex_process() {
    let ask = inbound("03-plan-turn", "item/tool/requestUserInput");
    let approve = inbound("04-implement-turn", "item/commandExecution/requestApproval");
    let resolved_of =
        |id: u64| json!({"method": "serverRequest/resolved", "params": {"threadId": "t", "requestId": id}});
    let mut ask0 = ask.clone();
    ask0["id"] = json!(0);

    let mut a = CodexAdapter::new();
    a.set_request_scope("a");
    assert_eq!(requested(&a.ingest(&ask0)).prompt_id, "codex-a-0");
    assert_eq!(approvals(&a.ingest(&approve))[0].approval_id, "codex-a-1");
    a.set_request_scope("b");
    let again = a.ingest(&ask0);
    assert_eq!(requested(&again).prompt_id, "codex-b-0", "same native id 0, distinct prompt id");
    assert_eq!(pending(&again).prompts.len(), 2);
    assert_eq!(approvals(&a.ingest(&approve))[0].approval_id, "codex-b-1");

    // serverRequest/resolved is looked up in the current scope (b): a's prompt stays pending.
    let r = resolved(&a.ingest(&resolved_of(0)));
    assert_eq!((r.prompt.prompt_id.as_str(), r.outcome), ("codex-b-0", PromptOutcome::Cancelled));
    assert!(canonical_only(&a.ingest(&resolved_of(0))).is_empty());
    assert_eq!(
        canonical_only(&a.ingest(&resolved_of(1))),
        [&Canonical::ApprovalWithdrawn { approval_id: "codex-b-1".into() }]
    );
    assert!(a.answer("codex-a-0", &[ans("scope", &["o1"], None)]).is_ok());
    assert_eq!(
        a.respond_approval("codex-a-1", ApprovalOutcome::AllowedOnce),
        Ok(json!({"id": 1, "result": {"decision": "accept"}}))
    );
    assert_eq!(a.respond_approval("codex-b-1", ApprovalOutcome::AllowedOnce), Err(AnswerError::NotPending));
}

#[test]
fn an_approval_resolved_by_codex_without_our_answer_is_withdrawn() {
    let approve = inbound("04-implement-turn", "item/commandExecution/requestApproval");
    let resolved = inbound("04-implement-turn", "serverRequest/resolved");
    let mut a = CodexAdapter::new();
    a.set_request_scope("p1");
    assert_eq!(approvals(&a.ingest(&approve))[0].approval_id, "codex-p1-1");
    let out = a.ingest(&resolved);
    assert_native_retained("codex", &resolved, &out);
    assert_eq!(canonical_only(&out), [&Canonical::ApprovalWithdrawn { approval_id: "codex-p1-1".into() }]);
    assert_eq!(a.respond_approval("codex-p1-1", ApprovalOutcome::AllowedOnce), Err(AnswerError::NotPending));
    assert!(a.ingest(&resolved).is_empty(), "a second resolution says nothing");
    assert_eq!(a.respond_approval("codex-p1-9", ApprovalOutcome::Rejected), Err(AnswerError::NotPending));
}

#[test]
fn approval_outcomes_map_to_the_decisions_codex_offers() {
    let command = inbound("04-implement-turn", "item/commandExecution/requestApproval");
    let patch = inbound("04b-patch-turn", "item/fileChange/requestApproval");
    let decide = |msg: &Value, outcome| {
        let mut a = CodexAdapter::new();
        let id = approvals(&a.ingest(msg))[0].approval_id.clone();
        a.respond_approval(&id, outcome).unwrap()["result"]["decision"].clone()
    };
    // The command request offers accept / an execpolicy amendment / cancel: no decline.
    assert_eq!(decide(&command, ApprovalOutcome::AllowedOnce), "accept");
    assert_eq!(decide(&command, ApprovalOutcome::Rejected), "cancel");
    assert_eq!(decide(&command, ApprovalOutcome::Cancelled), "cancel");
    assert_eq!(decide(&command, ApprovalOutcome::Unavailable), "cancel");
    // The file-change request gives no availableDecisions: every decision is open.
    assert_eq!(decide(&patch, ApprovalOutcome::AllowedOnce), "accept");
    assert_eq!(decide(&patch, ApprovalOutcome::Rejected), "decline");
    assert_eq!(decide(&patch, ApprovalOutcome::Cancelled), "cancel");
    let mut with_decline = command.clone();
    with_decline["params"]["availableDecisions"] = json!(["accept", "acceptForSession", "decline", "cancel"]);
    assert_eq!(decide(&with_decline, ApprovalOutcome::Rejected), "decline");
    assert_eq!(decide(&with_decline, ApprovalOutcome::AllowedOnce), "accept", "never more than once");

    // A file change approval without a seen item start: a generic reason; a given reason wins.
    let mut a = CodexAdapter::new();
    assert_eq!(approvals(&a.ingest(&patch))[0].reason.as_deref(), Some("apply a file change"));
    let mut reasoned = patch.clone();
    reasoned["params"]["reason"] = json!("needs to write outside the workspace");
    assert_eq!(approvals(&a.ingest(&reasoned))[0].reason.as_deref(), Some("needs to write outside the workspace"));
}

#[test]
fn declined_and_failed_commands_are_error_results() {
    let item = completed_item("04-implement-turn", "commandExecution");
    let completed =
        |item: Value| json!({"method": "item/completed", "params": {"threadId": "t", "turnId": "u", "item": item}});
    let mut a = CodexAdapter::new();
    let mut declined = item.clone();
    declined["status"] = json!("declined");
    declined["aggregatedOutput"] = Value::Null;
    declined["exitCode"] = Value::Null;
    // Never started (as far as we saw): the call comes first, then the result.
    let out = a.ingest(&completed(declined));
    assert_eq!(tool_calls(&out).len(), 1);
    assert_eq!(tool_results(&out), [("call_fake_impl_shell", &json!("command declined"), true)]);

    let mut failed = item.clone();
    failed["status"] = json!("failed");
    failed["aggregatedOutput"] = json!("");
    failed["exitCode"] = json!(2);
    assert_eq!(tool_results(&a.ingest(&completed(failed))), [("call_fake_impl_shell", &json!("exit code 2"), true)]);

    let mut nonzero = item.clone();
    nonzero["exitCode"] = json!(1);
    assert!(tool_results(&a.ingest(&completed(nonzero)))[0].2, "completed with a non-zero exit code");

    let mut patch = completed_item("04b-patch-turn", "fileChange");
    patch["status"] = json!("declined");
    let out = a.ingest(&completed(patch));
    let (_, content, is_error) = tool_results(&out)[0];
    assert!(is_error);
    assert!(content.as_str().unwrap().starts_with("declined: add /"), "{content}");
}

#[test]
fn thread_settings_updates_set_the_mode_on_change_only() {
    let settings = inbound("03-plan-turn", "thread/settings/updated");
    let mut a = CodexAdapter::new();
    let out = a.ingest(&settings);
    assert_native_retained("codex", &settings, &out);
    assert_eq!(last_mode(&out).unwrap().mode, OperatingMode::Plan);
    assert!(a.ingest(&settings).is_empty(), "unchanged");
    let back = inbound("04-implement-turn", "thread/settings/updated");
    assert_eq!(last_mode(&a.ingest(&back)).unwrap().mode, OperatingMode::Default);
    // Settings without a collaboration mode say nothing about the mode.
    assert!(a
        .ingest(&json!({"method": "thread/settings/updated", "params": {"threadSettings": {"cwd": "/w"}}}))
        .is_empty());
    // A collaboration mode without a mode is malformed.
    let bad = json!({"method": "thread/settings/updated", "params": {"threadSettings": {"collaborationMode": {}}}});
    assert_eq!(diagnostics(&a.ingest(&bad)).len(), 1);
}

// ---- everything ----

#[test]
fn no_real_codex_message_yields_a_diagnostic() {
    // Both processes through one adapter, a scope each; every message the client sent too.
    let mut a = CodexAdapter::new();
    let mut seen = 0;
    for name in TRANSCRIPTS {
        a.set_request_scope(if name.starts_with("07") { "p2" } else { "p1" });
        for (_, msg) in transcript(name) {
            seen += 1;
            let out = a.ingest(&msg);
            assert!(diagnostics(&out).is_empty(), "{name}: {msg} -> {out:?}");
            assert_native_retained("codex", &msg, &out);
            if msg.get("result").is_some() {
                assert!(diagnostics(&a.ingest_thread_result(&msg)).is_empty(), "{name}: {msg}");
            }
        }
    }
    assert!(seen > 200, "{seen} messages");
    // What was never answered through us was resolved by codex: nothing is left pending.
    assert_eq!(a.respond_approval("codex-p1-1", ApprovalOutcome::AllowedOnce), Err(AnswerError::NotPending));
    assert_eq!(a.answer("codex-p1-0", &[]), Err(AnswerError::NotPending));
}
