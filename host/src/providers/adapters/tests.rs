//! Adapter tests over the provider fixtures in `host/tests/fixtures/providers/`.

use super::acp::{self, AcpAdapter};
use super::claude::{self, ClaudeAdapter};
use super::codex::{self, CodexAdapter};
use super::{capabilities, AnswerError, Canonical, ProviderAdapter};
use agent_session_wire::interaction::{
    Answer, Capabilities, ModeState, OperatingMode, PendingPrompts, PlanSteps, PromptOutcome, PromptResolvedEvent,
    Provenance, StepStatus, UserInputPrompt, EV_MODE_CHANGED, EV_PLAN_PROPOSED, EV_PLAN_TEXT_DELTA, EV_PLAN_TEXT_DONE,
    EV_PROMPT_REQUESTED, EV_PROMPT_RESOLVED, EV_PROVIDER_NATIVE, PROJ_CAPABILITIES, PROJ_MODE, PROJ_PLAN_STEPS,
    PROJ_PROPOSED_PLAN, PROJ_USER_INPUT,
};
use agent_session_wire::ApprovalOutcome;
use serde_json::{json, Value};

// ---- helpers ----

fn fixture(provider: &str, name: &str) -> Vec<Value> {
    let path = format!("{}/tests/fixtures/providers/{provider}/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub(super) fn events<'a>(out: &'a [Canonical], kind: &str) -> Vec<&'a Value> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::Event { kind: k, data } if *k == kind => Some(data),
            _ => None,
        })
        .collect()
}

pub(super) fn projections<'a>(out: &'a [Canonical], key: &str) -> Vec<&'a Value> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::Projection { key: k, value } if *k == key => Some(value),
            _ => None,
        })
        .collect()
}

pub(super) fn diagnostics(out: &[Canonical]) -> Vec<&str> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::Diagnostic { message } => Some(message.as_str()),
            _ => None,
        })
        .collect()
}

pub(super) fn texts(out: &[Canonical]) -> Vec<&str> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::AssistantText { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

pub(super) fn reasoning(out: &[Canonical]) -> Vec<&str> {
    out.iter()
        .filter_map(|o| match o {
            Canonical::Reasoning { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

pub(super) fn last_mode(out: &[Canonical]) -> Option<ModeState> {
    projections(out, PROJ_MODE).last().map(|v| serde_json::from_value((*v).clone()).unwrap())
}

pub(super) fn pending(out: &[Canonical]) -> PendingPrompts {
    serde_json::from_value((*projections(out, PROJ_USER_INPUT).last().expect("userInput projection")).clone()).unwrap()
}

pub(super) fn requested(out: &[Canonical]) -> UserInputPrompt {
    serde_json::from_value(events(out, EV_PROMPT_REQUESTED)[0]["prompt"].clone()).unwrap()
}

pub(super) fn resolved(out: &[Canonical]) -> PromptResolvedEvent {
    serde_json::from_value(events(out, EV_PROMPT_RESOLVED)[0].clone()).unwrap()
}

pub(super) fn plan_steps(out: &[Canonical]) -> PlanSteps {
    serde_json::from_value((*projections(out, PROJ_PLAN_STEPS).last().expect("plan projection")).clone()).unwrap()
}

/// Every non-empty output list starts with the `provider/native` event of exactly the input,
/// unless it is diagnostics only.
pub(super) fn assert_native_retained(provider: &str, msg: &Value, out: &[Canonical]) {
    if out.is_empty() || out.iter().all(|o| matches!(o, Canonical::Diagnostic { .. })) {
        return;
    }
    match &out[0] {
        Canonical::Event { kind, data } if *kind == EV_PROVIDER_NATIVE => {
            assert_eq!(data["provider"], provider);
            assert!(data["kind"].is_string());
            assert_eq!(&data["payload"], msg, "native payload is the raw message");
        }
        other => panic!("first output is not provider/native: {other:?}"),
    }
    assert_eq!(events(out, EV_PROVIDER_NATIVE).len(), 1);
}

fn run_codex(a: &mut CodexAdapter, msgs: &[Value]) -> Vec<Vec<Canonical>> {
    msgs.iter()
        .map(|m| {
            let out = a.ingest(m);
            assert_native_retained("codex", m, &out);
            out
        })
        .collect()
}

fn run_claude(a: &mut ClaudeAdapter, msgs: &[Value]) -> Vec<Vec<Canonical>> {
    msgs.iter()
        .map(|m| {
            let out = a.ingest(m);
            assert_native_retained("claude", m, &out);
            out
        })
        .collect()
}

fn run_acp(a: &mut AcpAdapter, msgs: &[Value]) -> Vec<Vec<Canonical>> {
    msgs.iter()
        .map(|m| {
            let out = a.ingest(m);
            assert_native_retained("acp", m, &out);
            out
        })
        .collect()
}

fn only_diagnostic(out: &[Canonical]) -> bool {
    out.len() == 1 && matches!(out[0], Canonical::Diagnostic { .. })
}

pub(super) fn ans(q: &str, ids: &[&str], text: Option<&str>) -> Answer {
    Answer {
        question_id: q.into(),
        selected_option_ids: (!ids.is_empty()).then(|| ids.iter().map(|s| s.to_string()).collect()),
        text: text.map(Into::into),
    }
}

// ---- capabilities ----

#[test]
fn capability_sets_claim_only_what_each_provider_does_natively() {
    let c = capabilities::codex();
    assert_eq!(
        (c.supports_plan_mode, c.supports_ask_mode, c.supports_structured_plan_updates, c.supports_plan_text_streaming),
        (true, false, true, true)
    );
    assert_eq!(
        (c.supports_structured_user_input, c.supports_freeform_user_input, c.supports_exit_plan_mode),
        (true, true, false)
    );

    let c = capabilities::claude();
    assert_eq!(
        (c.supports_plan_mode, c.supports_ask_mode, c.supports_structured_plan_updates, c.supports_plan_text_streaming),
        (true, false, false, false)
    );
    assert_eq!(
        (c.supports_structured_user_input, c.supports_freeform_user_input, c.supports_exit_plan_mode),
        (true, true, true)
    );

    let c = capabilities::cursor();
    assert_eq!(c, Capabilities { supports_plan_mode: true, supports_ask_mode: true, ..Capabilities::default() });
}

#[test]
fn capability_projection_carries_the_seven_camel_case_flags() {
    let Canonical::Projection { key, value } = super::capabilities_projection(capabilities::claude()) else { panic!() };
    assert_eq!(key, PROJ_CAPABILITIES);
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 7);
    assert_eq!(value["supportsExitPlanMode"], true);
    assert_eq!(value["supportsStructuredPlanUpdates"], false);
}

#[test]
fn provider_adapter_is_picked_by_profile_name_with_its_capabilities() {
    use crate::providers::registry::Provider;
    assert_eq!(ProviderAdapter::for_provider(Provider::Codex).capabilities(), capabilities::codex());
    assert_eq!(ProviderAdapter::for_provider(Provider::Claude).capabilities(), capabilities::claude());
    assert_eq!(ProviderAdapter::for_provider(Provider::Cursor).capabilities(), capabilities::cursor());
    assert_eq!(Provider::parse(Some("default")), Ok(None));
    assert!(Provider::parse(Some("gemini")).is_err());
    let mut cursor = ProviderAdapter::for_provider(Provider::Cursor);
    assert_eq!(cursor.answer("acp-1", &[]), Err(AnswerError::NotPending), "ACP has no user-input prompts");
}

// ---- Codex ----

#[test]
fn codex_plan_turn_maps_mode_plan_text_structured_steps_and_a_synthesized_proposal() {
    let msgs = fixture("codex", "plan_turn");
    let mut a = CodexAdapter::new();
    let outs = run_codex(&mut a, &msgs);
    let all: Vec<Canonical> = outs.iter().flatten().cloned().collect();
    assert!(diagnostics(&all).is_empty(), "{:?}", diagnostics(&all));

    // turn/start collaborationMode plan
    assert_eq!(last_mode(&outs[0]), Some(ModeState { mode: OperatingMode::Plan, native: Some("plan".into()) }));
    assert_eq!(events(&outs[0], EV_MODE_CHANGED).len(), 1);
    // response, turn/started, item/started, item/completed agentMessage, turn/completed: nothing
    for i in [1, 2, 4, 11, 12] {
        assert!(outs[i].is_empty(), "message {i} yields nothing: {:?}", outs[i]);
    }
    assert_eq!(reasoning(&outs[3]), ["Looking at the module layout"]);

    let deltas = events(&all, EV_PLAN_TEXT_DELTA);
    assert_eq!(deltas.len(), 3);
    assert_eq!(deltas[1], &json!({"itemId": "plan_01", "text": "1. Move the lexer into `lexer.rs`\n"}));

    let steps = plan_steps(&outs[8]);
    assert_eq!(steps.explanation.as_deref(), Some("Splitting in two steps"));
    let st: Vec<_> = steps.steps.iter().map(|s| (s.text.as_str(), s.status, s.source)).collect();
    assert_eq!(
        st,
        [
            ("Move the lexer into lexer.rs", StepStatus::Completed, Provenance::Native),
            ("Keep the AST in ast.rs", StepStatus::InProgress, Provenance::Native),
            ("Run the tests", StepStatus::Pending, Provenance::Native),
        ]
    );

    let done = events(&outs[9], EV_PLAN_TEXT_DONE);
    let full = "# Split the parser\n\n1. Move the lexer into `lexer.rs`\n2. Keep the AST in `ast.rs`\n";
    assert_eq!(done, [&json!({"itemId": "plan_01", "text": full})]);
    let proposed = events(&outs[9], EV_PLAN_PROPOSED);
    assert_eq!(proposed, [&json!({"planId": "plan_01", "markdown": full, "source": "synthesized"})]);
    assert_eq!(projections(&outs[9], PROJ_PROPOSED_PLAN), [proposed[0]]);

    assert_eq!(texts(&outs[10]), ["The plan is ready."]);
    assert!(events(&outs[10], EV_PLAN_TEXT_DELTA).is_empty(), "agent text is not plan text");
}

#[test]
fn codex_request_user_input_becomes_a_prompt_with_stable_derived_ids() {
    let msgs = fixture("codex", "request_user_input");
    let mut a = CodexAdapter::new();
    let out = a.ingest(&msgs[0]);
    assert_native_retained("codex", &msgs[0], &out);
    let p = requested(&out);
    assert_eq!(p.prompt_id, "codex-12");
    assert_eq!(p.source, "codex:requestUserInput");
    assert_eq!(p.questions.len(), 2);
    let q = &p.questions[0];
    assert_eq!(
        (q.id.as_str(), q.header.as_deref(), q.label.as_str()),
        ("storage", Some("Storage"), "Where should sessions be stored?")
    );
    let opts: Vec<_> = q.options.iter().map(|o| (o.id.as_str(), o.label.as_str())).collect();
    assert_eq!(opts, [("o0", "SQLite (Recommended)"), ("o1", "JSON files")]);
    assert_eq!(q.options[0].description.as_deref(), Some("One file, durable, already a dependency"));
    assert_eq!(q.allow_freeform, Some(true), "isOther allows free text");
    assert_eq!(q.multi_select, None, "Codex questions are single-select");
    let q = &p.questions[1];
    assert!(q.options.is_empty());
    assert_eq!(q.allow_freeform, Some(true), "a question without options takes free text");
    assert_eq!(pending(&out).prompts, std::slice::from_ref(&p));

    // A re-delivery maps to the same prompt (ids are stable) and does not duplicate it.
    let again = a.ingest(&msgs[0]);
    assert_eq!(requested(&again), p);
    assert_eq!(pending(&again).prompts.len(), 1);
}

#[test]
fn codex_answer_maps_back_to_the_request_user_input_response_shape() {
    let msgs = fixture("codex", "request_user_input");
    let mut a = CodexAdapter::new();
    a.ingest(&msgs[0]);
    let answered = a
        .answer("codex-12", &[ans("storage", &["o0"], None), ans("name", &[], Some("parser-core"))])
        .expect("accepted");
    assert_eq!(answered.native_id, json!(12));
    assert_eq!(
        answered.result,
        json!({"answers": {"storage": {"answers": ["SQLite (Recommended)"]}, "name": {"answers": ["parser-core"]}}})
    );
    assert_eq!(
        codex::rpc_response(&answered.native_id, answered.result.clone()),
        json!({"id": 12, "result": answered.result})
    );
    assert_eq!(events(&answered.outputs, EV_PROVIDER_NATIVE)[0]["kind"], "answer");
    let r = resolved(&answered.outputs);
    assert_eq!(r.outcome, PromptOutcome::Answered);
    assert_eq!(r.answers.len(), 2);
    assert!(pending(&answered.outputs).prompts.is_empty());

    // Codex then reports the request resolved: already answered through us, so silent.
    assert!(a.ingest(&msgs[1]).is_empty());
    assert_eq!(a.answer("codex-12", &[]), Err(AnswerError::NotPending));
}

#[test]
fn codex_answer_with_other_text_lists_labels_then_text() {
    let msgs = fixture("codex", "request_user_input");
    let mut a = CodexAdapter::new();
    a.ingest(&msgs[0]);
    let answered = a.answer("codex-12", &[ans("storage", &["o1"], Some("  but gzip them "))]).unwrap();
    assert_eq!(answered.result, json!({"answers": {"storage": {"answers": ["JSON files", "but gzip them"]}}}));
}

#[test]
fn codex_answers_that_do_not_fit_the_prompt_are_bad_responses_and_keep_it_pending() {
    let msgs = fixture("codex", "request_user_input_cancelled");
    let mut a = CodexAdapter::new();
    a.ingest(&msgs[0]);
    let bad = |r: Result<_, AnswerError>| matches!(r, Err(AnswerError::BadResponse(_)));
    assert!(bad(a.answer("codex-13", &[ans("confirm", &[], Some("maybe"))])), "no free text without isOther");
    assert!(bad(a.answer("codex-13", &[ans("confirm", &["o7"], None)])), "unknown option");
    assert!(bad(a.answer("codex-13", &[ans("confirm", &["o0", "o1"], None)])), "single-select");
    assert!(bad(a.answer("codex-13", &[ans("other", &["o0"], None)])), "unknown question");
    assert_eq!(a.answer("codex-99", &[]), Err(AnswerError::NotPending));
    assert!(a.answer("codex-13", &[ans("confirm", &["o1"], None)]).is_ok(), "still pending after refusals");
}

#[test]
fn codex_server_request_resolved_without_our_answer_is_cancelled() {
    let msgs = fixture("codex", "request_user_input_cancelled");
    let mut a = CodexAdapter::new();
    let outs = run_codex(&mut a, &msgs);
    let r = resolved(&outs[1]);
    assert_eq!(r.outcome, PromptOutcome::Cancelled);
    assert_eq!(r.prompt.prompt_id, "codex-13");
    assert!(r.answers.is_empty());
    assert!(pending(&outs[1]).prompts.is_empty());
    // A second resolution of the same request says nothing.
    assert!(a.ingest(&msgs[1]).is_empty());
}

#[test]
fn codex_extra_fields_and_missing_optional_fields_are_tolerated() {
    let msgs = fixture("codex", "extra_fields");
    let mut a = CodexAdapter::new();
    let outs = run_codex(&mut a, &msgs);
    let steps = plan_steps(&outs[0]);
    assert_eq!(steps.explanation, None);
    assert_eq!(steps.steps[0].text, "Write the migration");
    // A plan item completed without text: the streamed text is the whole prose.
    assert_eq!(events(&outs[2], EV_PLAN_TEXT_DONE), [&json!({"itemId": "plan_03", "text": "Only streamed text"})]);
    // String request id, no header, no isOther, no options, isSecret (warned, still asked).
    let p = requested(&outs[3]);
    assert_eq!(p.prompt_id, "codex-req-abc");
    assert_eq!(p.questions[0].header, None);
    assert_eq!(p.questions[0].allow_freeform, Some(true));
    assert_eq!(diagnostics(&outs[3]).len(), 1);
    assert!(diagnostics(&outs[3])[0].contains("secret"));
    let answered = a.answer("codex-req-abc", &[ans("token", &[], Some("sk-123"))]).unwrap();
    assert_eq!(answered.native_id, json!("req-abc"));
    // turn/start without collaborationMode keeps the mode; an unknown mode reads as unknown.
    assert!(outs[4].is_empty());
    assert_eq!(
        last_mode(&outs[5]),
        Some(ModeState { mode: OperatingMode::Unknown, native: Some("pair_programming".into()) })
    );
    assert!(outs[6].is_empty(), "unmapped notifications yield nothing");
}

#[test]
fn codex_mode_is_logged_only_when_it_changes() {
    let mut a = CodexAdapter::new();
    let start = |mode: &str| json!({"id": 1, "method": "turn/start", "params": {"threadId": "t", "input": [], "collaborationMode": {"mode": mode, "settings": {}}}});
    assert_eq!(events(&a.ingest(&start("plan")), EV_MODE_CHANGED).len(), 1);
    assert!(a.ingest(&start("plan")).is_empty());
    assert_eq!(last_mode(&a.ingest(&start("default"))).unwrap().mode, OperatingMode::Default);
    assert_eq!(a.mode().unwrap().mode, OperatingMode::Default);
}

#[test]
fn codex_malformed_payloads_are_dropped_with_one_diagnostic_each() {
    let msgs = fixture("codex", "malformed");
    let mut a = CodexAdapter::new();
    for (i, m) in msgs.iter().enumerate() {
        let out = a.ingest(m);
        if m["method"] == "item/commandExecution/requestApproval" {
            // Once unmapped; an approval needs only its id (itemId and reason are optional).
            assert!(
                matches!(&out[..], [_, Canonical::Approval(r)] if r.approval_id == "codex-25" && r.reason.as_deref() == Some("needs network")),
                "{out:?}"
            );
            continue;
        }
        assert!(only_diagnostic(&out), "malformed message {i} -> {out:?}");
    }
    // Nothing was registered by the dropped requests.
    assert_eq!(a.answer("codex-20", &[]), Err(AnswerError::NotPending));
    assert_eq!(a.answer("codex-21", &[]), Err(AnswerError::NotPending));
}

// ---- Claude ----

#[test]
fn claude_plan_session_maps_mode_text_tools_prompt_and_exit_plan_mode() {
    let msgs = fixture("claude", "plan_session");
    let mut a = ClaudeAdapter::new();
    let outs = run_claude(&mut a, &msgs);
    let all: Vec<Canonical> = outs.iter().flatten().cloned().collect();
    assert!(diagnostics(&all).is_empty(), "{:?}", diagnostics(&all));
    assert!(
        events(&all, EV_PLAN_TEXT_DELTA).is_empty() && events(&all, EV_PLAN_TEXT_DONE).is_empty(),
        "Claude text is never plan text"
    );

    assert_eq!(last_mode(&outs[0]), Some(ModeState { mode: OperatingMode::Plan, native: Some("plan".into()) }));
    assert_eq!(events(&outs[0][..], EV_PROVIDER_NATIVE)[0]["kind"], "system/init");

    assert_eq!(reasoning(&outs[1]), ["I should look at the parser first."]);
    assert_eq!(texts(&outs[1]), ["Let me read the parser."]);
    assert!(outs[1].contains(&Canonical::ToolCall {
        call_id: "toolu_01Read".into(),
        name: "Read".into(),
        arguments: json!({"file_path": "/home/dev/project/src/parser.rs"}),
    }));
    assert!(outs[2].contains(&Canonical::ToolResult {
        call_id: "toolu_01Read".into(),
        content: json!("     1\tpub fn parse() {}\n"),
        is_error: false,
    }));

    let p = requested(&outs[3]);
    assert_eq!(p.prompt_id, "claude-toolu_01Ask");
    assert_eq!(p.source, "claude:AskUserQuestion");
    let qs: Vec<_> = p.questions.iter().map(|q| (q.id.as_str(), q.multi_select, q.allow_freeform)).collect();
    assert_eq!(qs, [("q0", Some(false), Some(true)), ("q1", Some(true), Some(true))]);
    assert_eq!(p.questions[1].options.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), ["o0", "o1", "o2"]);
    assert!(
        !outs[3].iter().any(|o| matches!(o, Canonical::ToolCall { .. })),
        "AskUserQuestion is a prompt, not a tool call"
    );

    // Answered in Claude Code's own UI: the text result is read back.
    let r = resolved(&outs[4]);
    assert_eq!(r.outcome, PromptOutcome::Answered);
    assert_eq!(r.answers, [ans("q0", &["o0"], None), ans("q1", &["o0", "o1"], None)]);
    assert!(pending(&outs[4]).prompts.is_empty());
    assert!(!outs[4].iter().any(|o| matches!(o, Canonical::ToolResult { .. })));

    assert_eq!(texts(&outs[5]), ["Here is my plan."]);
    let proposed = events(&outs[5], EV_PLAN_PROPOSED);
    assert_eq!(proposed[0]["planId"], "toolu_01Exit");
    assert_eq!(proposed[0]["source"], "native");
    assert!(proposed[0]["markdown"].as_str().unwrap().starts_with("## Split the parser"));
    assert_eq!(projections(&outs[5], PROJ_PROPOSED_PLAN), [proposed[0]]);
    let steps = plan_steps(&outs[5]);
    let st: Vec<_> = steps.steps.iter().map(|s| (s.text.as_str(), s.status, s.source)).collect();
    assert_eq!(
        st,
        [
            ("Move the lexer into `lexer.rs`", StepStatus::Pending, Provenance::Synthesized),
            ("Move the AST into `ast.rs`", StepStatus::Pending, Provenance::Synthesized),
            ("Run `cargo test`", StepStatus::Pending, Provenance::Synthesized),
        ]
    );

    // The plan's tool_result hands it off.
    assert_eq!(projections(&outs[6], PROJ_PROPOSED_PLAN), [&Value::Null]);
    assert!(!outs[6].iter().any(|o| matches!(o, Canonical::ToolResult { .. })));
    // A later status message with acceptEdits reads as execute; the result message is silent.
    assert_eq!(last_mode(&outs[7]).unwrap().mode, OperatingMode::Execute);
    assert!(outs[8].is_empty());
}

#[test]
fn claude_answer_maps_back_to_the_ask_user_question_answers_shape() {
    let msgs = fixture("claude", "ask_user_question");
    let mut a = ClaudeAdapter::new();
    a.ingest(&msgs[0]);
    let answered = a
        .answer("claude-toolu_02Ask", &[ans("q0", &["o1"], None), ans("q1", &["o0", "o2"], Some("leap seconds"))])
        .unwrap();
    assert_eq!(answered.native_id, json!("toolu_02Ask"));
    assert_eq!(
        answered.result,
        json!({"answers": {
            "Which date library should we use?": "dayjs",
            "Which features do you want?": "Time zones, Durations, leap seconds"
        }})
    );
    assert_eq!(resolved(&answered.outputs).outcome, PromptOutcome::Answered);
    // The SDK echoes the tool_result: answered through us already, so silent.
    assert!(a.ingest(&msgs[1]).is_empty());
}

#[test]
fn claude_tool_result_answered_elsewhere_is_read_back_to_option_ids_and_text() {
    let msgs = fixture("claude", "ask_user_question");
    let mut a = ClaudeAdapter::new();
    let outs = run_claude(&mut a, &msgs);
    let r = resolved(&outs[1]);
    assert_eq!(r.outcome, PromptOutcome::Answered);
    assert_eq!(r.answers, [ans("q0", &["o1"], None), ans("q1", &["o0", "o2"], Some("leap seconds"))]);
}

#[test]
fn claude_rejected_question_resolves_cancelled() {
    let msgs = fixture("claude", "ask_user_question_denied");
    let mut a = ClaudeAdapter::new();
    let outs = run_claude(&mut a, &msgs);
    let r = resolved(&outs[1]);
    assert_eq!(r.outcome, PromptOutcome::Cancelled);
    assert!(r.answers.is_empty());
    assert_eq!(a.answer("claude-toolu_03Ask", &[]), Err(AnswerError::NotPending));
}

#[test]
fn claude_answers_are_validated_against_the_prompt() {
    let msgs = fixture("claude", "ask_user_question");
    let mut a = ClaudeAdapter::new();
    a.ingest(&msgs[0]);
    assert!(matches!(
        a.answer("claude-toolu_02Ask", &[ans("q0", &["o0", "o1"], None)]),
        Err(AnswerError::BadResponse(_))
    ));
    assert!(matches!(a.answer("claude-toolu_02Ask", &[ans("q9", &["o0"], None)]), Err(AnswerError::BadResponse(_))));
    // Free text is always allowed (Claude offers "Other").
    let ok = a.answer("claude-toolu_02Ask", &[ans("q0", &[], Some("luxon"))]).unwrap();
    assert_eq!(ok.result, json!({"answers": {"Which date library should we use?": "luxon"}}));
}

#[test]
fn claude_permission_modes_map_to_canonical_modes_and_repeats_are_silent() {
    let msgs = fixture("claude", "permission_modes");
    let mut a = ClaudeAdapter::new();
    let outs = run_claude(&mut a, &msgs);
    let m = |i: usize| last_mode(&outs[i]).map(|m| (m.mode, m.native.unwrap()));
    assert_eq!(m(0), Some((OperatingMode::Default, "default".into())));
    assert!(outs[1].is_empty(), "same mode again");
    assert_eq!(m(2), Some((OperatingMode::Execute, "acceptEdits".into())));
    assert_eq!(m(3), Some((OperatingMode::Execute, "bypassPermissions".into())));
    assert_eq!(m(4), Some((OperatingMode::Plan, "plan".into())));
    assert_eq!(m(5), Some((OperatingMode::Unknown, "dontAsk".into())));
    assert!(outs[6].is_empty(), "system message without permissionMode");
}

#[test]
fn claude_malformed_payloads_are_dropped_with_one_diagnostic_each() {
    let msgs = fixture("claude", "malformed");
    let mut a = ClaudeAdapter::new();
    for (i, m) in msgs.iter().enumerate() {
        let out = a.ingest(m);
        assert!(only_diagnostic(&out), "malformed message {i} -> {out:?}");
    }
}

#[test]
fn claude_bad_block_is_dropped_but_the_rest_of_the_message_is_mapped() {
    let mut a = ClaudeAdapter::new();
    let msg = json!({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "text", "text": "Two things."},
        {"type": "tool_use", "id": "toolu_x", "name": "ExitPlanMode", "input": {"plan": 7}},
        {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}}
    ]}});
    let out = a.ingest(&msg);
    assert_native_retained("claude", &msg, &out);
    assert_eq!(texts(&out), ["Two things."]);
    assert_eq!(diagnostics(&out).len(), 2);
    assert!(events(&out, EV_PLAN_PROPOSED).is_empty());
}

#[test]
fn claude_exit_plan_mode_without_a_plan_file_proposes_nothing_and_its_result_is_no_tool_result() {
    // Claude Code sends `{}` when the model wrote no plan file.
    let mut a = ClaudeAdapter::new();
    let call = json!({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "tool_use", "id": "toolu_e", "name": "ExitPlanMode", "input": {}}
    ]}});
    assert!(a.ingest(&call).is_empty());
    let result = json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_e", "content": "User has approved exiting plan mode."}
    ]}});
    assert!(a.ingest(&result).is_empty());
}

#[test]
fn claude_markdown_steps_are_synthesized_only_from_top_level_list_items() {
    let md = "# Plan\n\n- [x] Read the code\n- [ ] Write the patch\n  - nested detail\n\n```sh\n- not a step\n1. nor this\n```\n* Ship it\n---\n";
    let steps = claude::steps_from_markdown(md);
    let st: Vec<_> = steps.iter().map(|s| (s.text.as_str(), s.status)).collect();
    assert_eq!(
        st,
        [
            ("Read the code", StepStatus::Completed),
            ("Write the patch", StepStatus::Pending),
            ("Ship it", StepStatus::Pending)
        ]
    );
    assert!(steps.iter().all(|s| s.source == Provenance::Synthesized && s.id.is_none()));
    assert!(claude::steps_from_markdown("Just prose, no list.").is_empty());
    // A numbered list wins over bullets (bullets are usually file lists or notes).
    let st: Vec<_> =
        claude::steps_from_markdown("1) First\n2) Second\n- file.rs\n").into_iter().map(|s| s.text).collect();
    assert_eq!(st, ["First", "Second"]);
}

#[test]
fn claude_exit_plan_mode_without_a_list_proposes_the_plan_without_steps() {
    let mut a = ClaudeAdapter::new();
    let msg = json!({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "tool_use", "id": "toolu_p", "name": "ExitPlanMode", "input": {"plan": "Rename `foo` to `bar` everywhere."}}
    ]}});
    let out = a.ingest(&msg);
    assert_eq!(events(&out, EV_PLAN_PROPOSED).len(), 1);
    assert!(projections(&out, PROJ_PLAN_STEPS).is_empty());
}

// ---- ACP (Cursor profile) ----

#[test]
fn acp_session_new_result_sets_mode_and_advertised_plan_and_ask_support() {
    let msgs = fixture("acp", "session_new_result");
    let mut a = AcpAdapter::cursor();
    let out = a.ingest_session_result(&msgs[0]);
    assert_native_retained("acp", &msgs[0], &out);
    assert_eq!(last_mode(&out), Some(ModeState { mode: OperatingMode::Default, native: Some("agent".into()) }));
    let caps: Capabilities = serde_json::from_value(projections(&out, PROJ_CAPABILITIES)[0].clone()).unwrap();
    assert_eq!(caps, capabilities::cursor());
    // The bare result works as well.
    let mut b = AcpAdapter::cursor();
    assert_eq!(last_mode(&b.ingest_session_result(&msgs[0]["result"])), last_mode(&out));
}

#[test]
fn acp_session_without_modes_claims_neither_plan_nor_ask_mode() {
    let msgs = fixture("acp", "session_new_no_modes");
    let mut a = AcpAdapter::cursor();
    let out = a.ingest_session_result(&msgs[0]);
    let caps: Capabilities = serde_json::from_value(projections(&out, PROJ_CAPABILITIES)[0].clone()).unwrap();
    assert_eq!(caps, Capabilities::default());
    assert_eq!(a.capabilities(), Capabilities::default());
    assert!(last_mode(&out).is_none());
}

#[test]
fn acp_cursor_turn_maps_modes_and_plain_text_but_never_plan_text() {
    let msgs = fixture("acp", "cursor_turn");
    let mut a = AcpAdapter::cursor();
    let outs = run_acp(&mut a, &msgs);
    let all: Vec<Canonical> = outs.iter().flatten().cloned().collect();
    assert!(diagnostics(&all).is_empty(), "{:?}", diagnostics(&all));
    assert!(events(&all, EV_PLAN_TEXT_DELTA).is_empty() && projections(&all, PROJ_PLAN_STEPS).is_empty());

    assert_eq!(last_mode(&outs[0]), Some(ModeState { mode: OperatingMode::Plan, native: Some("plan".into()) }));
    assert_eq!(events(&outs[0], EV_PROVIDER_NATIVE)[0]["kind"], "session/update:current_mode_update");
    assert!(outs[1].is_empty(), "user echo is logged by the host");
    assert_eq!(reasoning(&outs[2]), ["The lexer is self-contained."]);
    assert!(outs[3].contains(&Canonical::ToolCall {
        call_id: "call_001".into(),
        name: "Read src/parser.rs".into(),
        arguments: json!({"path": "/home/dev/project/src/parser.rs"}),
    }));
    assert!(outs[4].is_empty(), "in_progress says nothing yet");
    assert!(outs[5].contains(&Canonical::ToolResult {
        call_id: "call_001".into(),
        content: json!("pub fn parse() {}"),
        is_error: false
    }));
    assert_eq!(texts(&all), ["1. Move the lexer out.\n", "2. Keep the AST."]);
    assert!(outs[8].is_empty());
    assert_eq!(last_mode(&outs[9]), Some(ModeState { mode: OperatingMode::Default, native: Some("agent".into()) }));
    assert_eq!(last_mode(&outs[10]).unwrap().mode, OperatingMode::Ask);
}

#[test]
fn acp_plan_update_maps_to_native_steps_even_though_cursor_does_not_claim_it() {
    let msgs = fixture("acp", "plan_update");
    let mut a = AcpAdapter::cursor();
    let outs = run_acp(&mut a, &msgs);
    let steps = plan_steps(&outs[0]);
    let st: Vec<_> = steps.steps.iter().map(|s| (s.status, s.source)).collect();
    assert_eq!(
        st,
        [
            (StepStatus::Completed, Provenance::Native),
            (StepStatus::InProgress, Provenance::Native),
            (StepStatus::Pending, Provenance::Native),
        ]
    );
    assert!(!a.capabilities().supports_structured_plan_updates);
}

#[test]
fn acp_request_permission_is_an_approval_never_a_user_input_prompt() {
    let msgs = fixture("acp", "request_permission");
    let mut a = AcpAdapter::cursor();
    let outs = run_acp(&mut a, &msgs);
    assert!(events(&outs[0], EV_PROMPT_REQUESTED).is_empty() && projections(&outs[0], PROJ_USER_INPUT).is_empty());
    let Canonical::Approval(ap) = &outs[0][1] else { panic!("{:?}", outs[0]) };
    assert_eq!(
        (ap.approval_id.as_str(), ap.tool_name.as_str(), ap.call_id.as_deref()),
        ("acp-5", "Run cargo test", Some("call_002"))
    );
    let frame = ap.frame("s1");
    assert_eq!(frame.session_id, "s1");
    let Canonical::Approval(ap6) = &outs[1][1] else { panic!() };
    assert_eq!(ap6.tool_name, "tool");
}

#[test]
fn acp_approval_outcomes_map_back_to_permission_responses() {
    let msgs = fixture("acp", "request_permission");
    let mut a = AcpAdapter::cursor();
    run_acp(&mut a, &msgs);
    assert_eq!(
        a.respond_approval("acp-5", ApprovalOutcome::AllowedOnce).unwrap(),
        json!({"jsonrpc": "2.0", "id": 5, "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}}})
    );
    assert_eq!(a.respond_approval("acp-5", ApprovalOutcome::Rejected), Err(AnswerError::NotPending));
    // Only allow_always / reject_always offered: allowing once cannot be expressed.
    assert!(matches!(a.respond_approval("acp-6", ApprovalOutcome::AllowedOnce), Err(AnswerError::BadResponse(_))));
    assert_eq!(
        a.respond_approval("acp-6", ApprovalOutcome::Rejected).unwrap()["result"]["outcome"],
        json!({"outcome": "selected", "optionId": "never"})
    );
    let opts = vec![acp::PermissionOption { option_id: "x".into(), name: None, kind: "allow_once".into() }];
    assert_eq!(
        acp::permission_response(&json!(7), &opts, ApprovalOutcome::Cancelled).unwrap()["result"],
        json!({"outcome": {"outcome": "cancelled"}})
    );
}

#[test]
fn acp_malformed_payloads_are_dropped_with_one_diagnostic_each() {
    let msgs = fixture("acp", "malformed");
    let mut a = AcpAdapter::cursor();
    for (i, m) in msgs.iter().enumerate() {
        let out = a.ingest(m);
        assert!(only_diagnostic(&out), "malformed message {i} -> {out:?}");
    }
    let bad_modes =
        json!({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s", "modes": {"availableModes": "plan"}}});
    assert!(only_diagnostic(&a.ingest_session_result(&bad_modes)));
    assert_eq!(a.capabilities(), capabilities::cursor(), "a malformed result changes no claim");
}

#[test]
fn acp_mode_ids_map_with_agent_as_default() {
    let m = |id: &str| acp::mode_from_id(id).mode;
    assert_eq!(
        [m("agent"), m("plan"), m("ask"), m("default"), m("acceptEdits"), m("bypassPermissions"), m("debug")],
        [
            OperatingMode::Default,
            OperatingMode::Plan,
            OperatingMode::Ask,
            OperatingMode::Default,
            OperatingMode::Execute,
            OperatingMode::Execute,
            OperatingMode::Unknown
        ]
    );
}

// ---- all fixtures ----

#[test]
fn every_fixture_message_maps_without_panic_and_retains_its_native_payload() {
    let dir = format!("{}/tests/fixtures/providers", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for provider in ["codex", "claude", "acp"] {
        let mut names: Vec<String> = std::fs::read_dir(format!("{dir}/{provider}"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".json"))
            .collect();
        names.sort();
        for name in names {
            let msgs = fixture(provider, name.trim_end_matches(".json"));
            seen += msgs.len();
            match provider {
                "codex" => drop(run_codex(&mut CodexAdapter::new(), &msgs)),
                "claude" => drop(run_claude(&mut ClaudeAdapter::new(), &msgs)),
                _ => {
                    let mut a = AcpAdapter::cursor();
                    for m in &msgs {
                        let out = if m.get("result").is_some() { a.ingest_session_result(m) } else { a.ingest(m) };
                        assert_native_retained("acp", m, &out);
                    }
                }
            }
        }
    }
    assert!(seen > 60, "fixtures present ({seen} messages)");
}
