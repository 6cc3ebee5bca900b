//! Provider profiles (Extension 2): one plan-mode turn per profile, a pending structured prompt
//! across a reconnect, and answers when the host is gone or restarted.

use crate::support::*;

async fn create_with(host: &JsValue, provider: &str) -> String {
    let payload = JsValue::from_str(&format!("{{\"provider\":\"{provider}\"}}"));
    let r = wait(call(host, "call", &[JsValue::from_str("session.create"), payload])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "createSession {provider}: {}", json(&r));
    path(&r, &["value", "sessionId"]).as_string().unwrap()
}

fn inter(s: &JsValue) -> JsValue {
    get(&snap(s), "interaction")
}

fn prompts(s: &JsValue) -> Array {
    get(&inter(s), "userInput").unchecked_into()
}

fn cap(s: &JsValue, name: &str) -> JsValue {
    path(&inter(s), &["capabilities", name])
}

fn running(s: &JsValue) -> bool {
    get(&snap(s), "running") == JsValue::TRUE
}

/// A provider session with plan mode selected, opened, one prompt sent.
async fn plan_turn(host: &JsValue, provider: &str) -> (String, JsValue) {
    let id = create_with(host, provider).await;
    let s = call(host, "session", &[id.clone().into()]);
    watch(&s);
    wait(call(&s, "open", &[])).await;
    until("capabilities known", 5_000.0, || !get(&inter(&s), "capabilities").is_null()).await;
    assert_eq!(
        path(&inter(&s), &["mode", "mode"]).as_string().as_deref(),
        Some("default"),
        "{provider}: mode before the turn"
    );
    let r = wait(call(&s, "setPlanMode", &[JsValue::TRUE])).await;
    assert_eq!(json(&r), "{\"ok\":true,\"value\":{\"active\":false,\"pending\":true}}");
    let r = wait(call(&s, "prompt", &[text_block("Add a --verbose flag to the CLI.")])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "prompt: {}", json(&r));
    (id, s)
}

/// A codex plan turn that has asked its structured prompt: the session and the prompt.
async fn codex_prompt(host: &JsValue) -> (JsValue, JsValue) {
    let (_, s) = plan_turn(host, "codex").await;
    until("prompt requested", 15_000.0, || prompts(&s).length() == 1).await;
    let prompt = prompts(&s).get(0);
    (s, prompt)
}

/// Answers every question of `prompt` with its first option.
fn first_options(prompt: &JsValue) -> JsValue {
    let qs: Array = get(prompt, "questions").unchecked_into();
    let out = Array::new();
    for q in qs.iter() {
        let first = get(&Array::from(&get(&q, "options")).get(0), "id");
        out.push(&obj(&format!(
            "{{\"questionId\":{},\"selectedOptionIds\":[{}]}}",
            json(&get(&q, "id")),
            json(&first)
        )));
    }
    out.into()
}

fn count(s: &JsValue, ty: &str) -> usize {
    node_types(s).iter().filter(|t| *t == ty).count()
}

#[wasm_bindgen_test]
async fn codex_profile_steps_then_a_prompt_answered_then_a_proposed_plan() {
    let host = new_host();
    connected(&host).await;
    let (_, s) = plan_turn(&host, "codex").await;
    assert_eq!(cap(&s, "supportsStructuredPlanUpdates"), JsValue::TRUE);
    assert_eq!(cap(&s, "supportsStructuredUserInput"), JsValue::TRUE);
    assert_eq!(cap(&s, "supportsPlanTextStreaming"), JsValue::TRUE);
    until("prompt requested", 15_000.0, || prompts(&s).length() == 1).await;
    let it = inter(&s);
    assert_eq!(path(&it, &["mode", "mode"]).as_string().unwrap(), "plan");
    let steps: Array = path(&it, &["planSteps", "steps"]).unchecked_into();
    assert_eq!(steps.length(), 3, "native steps: {}", json(&it));
    let statuses: Vec<String> = steps.iter().map(|x| get(&x, "status").as_string().unwrap()).collect();
    assert_eq!(statuses, ["completed", "inProgress", "pending"]);
    assert!(steps.iter().all(|x| get(&x, "source").as_string().as_deref() == Some("native")));
    assert!(get(&it, "proposedPlan").is_null(), "no plan while the question waits");
    assert!(running(&s), "the turn waits on the prompt");
    let prompt = prompts(&s).get(0);
    let pid = get(&prompt, "promptId");
    assert!(pid.as_string().unwrap().starts_with("codex-"), "{}", json(&prompt));
    assert_eq!(Array::from(&get(&prompt, "questions")).length(), 2);
    // Answers that do not fit the prompt: refused by the host, the prompt stays.
    let bad = obj("[{\"questionId\":\"scope\",\"selectedOptionIds\":[\"nope\"]}]");
    let r = wait(call(&s, "answer", &[pid.clone(), bad])).await;
    assert_eq!(json(&r), "{\"ok\":true,\"value\":{\"accepted\":false,\"reason\":\"bad-response\"}}");
    assert_eq!(prompts(&s).length(), 1);
    // The answer, and a duplicate while it is in flight (refused without a second request).
    let answers = first_options(&prompt);
    let first = call(&s, "answer", &[pid.clone(), answers.clone()]);
    let dup = wait(call(&s, "answer", &[pid.clone(), answers.clone()])).await;
    assert_eq!(get(&dup, "ok"), JsValue::FALSE, "duplicate while in flight: {}", json(&dup));
    assert_eq!(path(&dup, &["error", "code"]).as_string().unwrap(), "bad-request");
    let r = wait(first).await;
    assert_eq!(json(&r), "{\"ok\":true,\"value\":{\"accepted\":true}}");
    until("prompt resolved", 10_000.0, || prompts(&s).length() == 0 && count(&s, "interaction") == 1).await;
    let node = nodes(&s).iter().find(|n| get(n, "type").as_string().as_deref() == Some("interaction")).unwrap();
    assert_eq!(get(&node, "outcome").as_string().unwrap(), "answered");
    assert_eq!(path(&node, &["prompt", "promptId"]), pid);
    assert_eq!(json(&get(&node, "answers")), json(&answers));
    // The turn continues: plan prose, then the proposed plan, all steps completed.
    until("proposed plan", 20_000.0, || !get(&inter(&s), "proposedPlan").is_null() && !running(&s)).await;
    let it = inter(&s);
    assert_eq!(path(&it, &["proposedPlan", "source"]).as_string().unwrap(), "synthesized");
    let md = path(&it, &["proposedPlan", "markdown"]).as_string().unwrap();
    assert!(md.starts_with("# Plan") && md.contains("scope: Minimal"), "{md}");
    assert_eq!(path(&it, &["planText", "done"]), JsValue::TRUE);
    assert_eq!(path(&it, &["planText", "text"]).as_string().unwrap(), md, "the finished prose is the plan");
    let steps: Array = path(&it, &["planSteps", "steps"]).unchecked_into();
    assert!(steps.iter().all(|x| get(&x, "status").as_string().as_deref() == Some("completed")));
    assert_eq!(count(&s, "proposed-plan"), 1);
    // Answering again: refused locally, the prompt is no longer pending.
    let again = wait(call(&s, "answer", &[pid, answers])).await;
    assert_eq!(json(&again), "{\"ok\":true,\"value\":{\"accepted\":false,\"reason\":\"not-pending\"}}");
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn claude_profile_a_question_then_a_native_proposed_plan() {
    let host = new_host();
    connected(&host).await;
    let (_, s) = plan_turn(&host, "claude").await;
    assert_eq!(cap(&s, "supportsStructuredPlanUpdates"), JsValue::FALSE, "no native plan updates");
    assert_eq!(cap(&s, "supportsStructuredUserInput"), JsValue::TRUE);
    assert_eq!(cap(&s, "supportsExitPlanMode"), JsValue::TRUE);
    until("question requested", 15_000.0, || prompts(&s).length() == 1).await;
    let it = inter(&s);
    assert_eq!(path(&it, &["mode", "mode"]).as_string().unwrap(), "plan");
    assert!(get(&it, "planSteps").is_null(), "no steps before the plan: {}", json(&it));
    assert!(get(&it, "proposedPlan").is_null());
    assert!(get(&it, "planText").is_null());
    let prompt = prompts(&s).get(0);
    let pid = get(&prompt, "promptId");
    assert!(pid.as_string().unwrap().starts_with("claude-"), "{}", json(&prompt));
    assert_eq!(count(&s, "tool"), 1, "the Read call");
    let r = wait(call(&s, "answer", &[pid.clone(), first_options(&prompt)])).await;
    assert_eq!(json(&r), "{\"ok\":true,\"value\":{\"accepted\":true}}");
    until("proposed plan", 20_000.0, || !get(&inter(&s), "proposedPlan").is_null() && !running(&s)).await;
    let it = inter(&s);
    assert_eq!(prompts(&s).length(), 0);
    assert_eq!(path(&it, &["proposedPlan", "source"]).as_string().unwrap(), "native", "ExitPlanMode");
    assert!(path(&it, &["proposedPlan", "markdown"]).as_string().unwrap().contains("Small change"));
    // Steps derived from the markdown may appear, but never as a native claim.
    let steps = path(&it, &["planSteps", "steps"]);
    if !steps.is_undefined() {
        assert!(
            Array::from(&steps).iter().all(|x| get(&x, "source").as_string().as_deref() == Some("synthesized")),
            "{}",
            json(&steps)
        );
    }
    assert_eq!(cap(&s, "supportsStructuredPlanUpdates"), JsValue::FALSE);
    assert_eq!(count(&s, "interaction"), 1);
    assert_eq!(count(&s, "proposed-plan"), 1);
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn cursor_profile_mode_plan_and_plain_text_only() {
    let host = new_host();
    connected(&host).await;
    let (_, s) = plan_turn(&host, "cursor").await;
    assert_eq!(cap(&s, "supportsStructuredUserInput"), JsValue::FALSE);
    assert_eq!(cap(&s, "supportsStructuredPlanUpdates"), JsValue::FALSE);
    until("turn finished", 15_000.0, || {
        !running(&s) && count(&s, "assistant") >= 1 && get(&snap(&s), "partial").is_null()
    })
    .await;
    let it = inter(&s);
    assert_eq!(path(&it, &["mode", "mode"]).as_string().unwrap(), "plan");
    assert!(get(&it, "planSteps").is_null(), "{}", json(&it));
    assert!(get(&it, "planText").is_null());
    assert!(get(&it, "proposedPlan").is_null());
    assert_eq!(prompts(&s).length(), 0);
    let reply = nodes(&s).iter().rev().find(|n| get(n, "type").as_string().as_deref() == Some("assistant")).unwrap();
    assert!(json(&get(&reply, "content")).contains("# Plan"), "the plan is plain text: {}", json(&reply));
    assert_eq!(count(&s, "interaction"), 0);
    assert_eq!(count(&s, "proposed-plan"), 0);
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn a_pending_prompt_survives_a_reconnect() {
    let host = new_host();
    connected(&host).await;
    let (s, prompt) = codex_prompt(&host).await;
    let gen = diag(&s, "openGeneration");
    fault("{\"command\":\"drop-streams\"}").await;
    until("reconnecting", 5_000.0, || conn_state(&host) != "open").await;
    assert_eq!(prompts(&s).length(), 1, "visible while reconnecting");
    connected(&host).await;
    until("resynced", 10_000.0, || diag(&s, "openGeneration") > gen).await;
    sleep(200.0).await;
    assert_eq!(prompts(&s).length(), 1, "still pending after the reconnect");
    assert_eq!(json(&prompts(&s).get(0)), json(&prompt));
    let r = wait(call(&s, "answer", &[get(&prompt, "promptId"), first_options(&prompt)])).await;
    assert_eq!(json(&r), "{\"ok\":true,\"value\":{\"accepted\":true}}");
    until("plan proposed", 20_000.0, || !get(&inter(&s), "proposedPlan").is_null() && !running(&s)).await;
    assert_eq!(count(&s, "interaction"), 1);
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn answer_and_respond_report_a_transport_failure_and_a_restart_cancels_the_prompt() {
    let host = new_host();
    connected(&host).await;
    // A structured prompt (codex) and a legacy question (default agent), both pending.
    let (s, prompt) = codex_prompt(&host).await;
    let pid = get(&prompt, "promptId");
    let qid = create(&host).await;
    let q = call(&host, "session", &[qid.into()]);
    watch(&q);
    wait(call(&q, "open", &[])).await;
    wait(call(&q, "prompt", &[text_block("please [question] me")])).await;
    until("question pending", 10_000.0, || Array::from(&get(&snap(&q), "pending")).length() == 1).await;
    let key = get(&Array::from(&get(&snap(&q), "pending")).get(0), "key");
    let reply = obj("{\"ok\":true,\"value\":{\"answers\":{\"q1\":\"blue\"}}}");
    control("kill").await;
    until("reconnecting", 5_000.0, || conn_state(&host) == "reconnecting").await;
    // The host is gone: both resolve (never throw) with the transport failure.
    let r = wait(call(&s, "answer", &[pid.clone(), first_options(&prompt)])).await;
    assert_eq!(get(&r, "ok"), JsValue::FALSE, "{}", json(&r));
    assert_eq!(path(&r, &["error", "code"]).as_string().unwrap(), "internal");
    let rc = wait(call(&q, "respond", &[key.clone(), reply.clone()])).await;
    assert_eq!(get(&rc, "accepted"), JsValue::FALSE, "{}", json(&rc));
    assert_eq!(get(&rc, "reason").as_string().unwrap(), "transport");
    assert_eq!(prompts(&s).length(), 1, "the prompt stays visible while disconnected");
    // A restarted host resolves the orphaned prompt as cancelled; answering it is refused.
    control("start").await;
    connected(&host).await;
    until("prompt cancelled", 10_000.0, || prompts(&s).length() == 0 && count(&s, "interaction") == 1 && !running(&s))
        .await;
    let node = nodes(&s).iter().find(|n| get(n, "type").as_string().as_deref() == Some("interaction")).unwrap();
    assert_eq!(get(&node, "outcome").as_string().unwrap(), "cancelled");
    let again = wait(call(&s, "answer", &[pid, first_options(&prompt)])).await;
    assert_eq!(json(&again), "{\"ok\":true,\"value\":{\"accepted\":false,\"reason\":\"not-pending\"}}");
    // The restarted host no longer holds the question: answering it is refused.
    let rc = wait(call(&q, "respond", &[key, reply])).await;
    assert_eq!(json(&rc), "{\"accepted\":false,\"reason\":\"not-pending\"}");
    call(&host, "close", &[]);
}
