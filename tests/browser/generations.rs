//! Both wire generations: one scenario through the JS API against the seed host and a
//! 2026-08 host, folding into the same nodes.

use crate::support::*;

fn plan_json(s: &JsValue) -> String {
    json(&get(&snap(s), "planMode"))
}

/// One scenario through the JS API only: open, a question answered with `respond`, plan
/// mode on through the API (host-confirmed pending, then active at the next turn), a streamed
/// turn, a reconnect, a plan-review question approved with `respond`, plan mode on and off
/// through the API. Returns the node types it ended with.
async fn generation_scenario(base: &str) -> Vec<String> {
    let host = client_of(base, "auto", "");
    until("connection open", 10_000.0, || conn_state(&host) == "open").await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    watch(&s);
    wait(call(&s, "open", &[])).await;
    until("plan state known", 10_000.0, || plan_json(&s) == r#"{"active":false}"#).await;
    // A question, answered.
    let r = wait(call(&s, "prompt", &[text_block("please [question] me")])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "{}", json(&r));
    until("question pending", 10_000.0, || Array::from(&get(&snap(&s), "pending")).length() == 1).await;
    let key = get(&Array::from(&get(&snap(&s), "pending")).get(0), "key");
    let answer = obj(r#"{"ok":true,"value":{"answers":{"q1":"blue"}}}"#);
    assert_eq!(json(&wait(call(&s, "respond", &[key, answer])).await), r#"{"accepted":true}"#);
    until("question resolved, turn done", 20_000.0, || {
        Array::from(&get(&snap(&s), "pending")).length() == 0 && !get(&snap(&s), "running").is_truthy()
    })
    .await;
    // Plan mode on: the seed keeps it pending until the next turn starts; the 2026-08 host commits
    // a selection made while idle at once. Either way the result is the host-confirmed state
    // the snapshot shows when it resolves.
    let r = wait(call(&s, "setPlanMode", &[JsValue::TRUE])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "{}", json(&r));
    assert_eq!(json(&get(&r, "value")), plan_json(&s), "setPlanMode resolves with the committed state");
    let on = [r#"{"active":false,"pending":true}"#, r#"{"active":true}"#];
    assert!(on.contains(&plan_json(&s).as_str()), "{}", plan_json(&s));
    prompt_turn(&s, "plan a hello world script").await;
    until("plan mode active", 10_000.0, || plan_json(&s) == r#"{"active":true}"#).await;
    // A reconnect: the generation moves on, the session resyncs, nothing is lost or doubled.
    let gen = get(&call(&host, "getSnapshot", &[]), "generation").as_f64().unwrap();
    post(&format!("{base}/admin/faults"), r#"{"command":"drop-streams"}"#).await;
    until("reconnected", 10_000.0, || {
        conn_state(&host) == "open" && get(&call(&host, "getSnapshot", &[]), "generation").as_f64().unwrap() > gen
    })
    .await;
    prompt_turn(&s, "after the reconnect").await;
    assert_eq!(plan_json(&s), r#"{"active":true}"#, "plan state survives the reconnect");
    // A plan-review question (its intent says which option approves), approved with
    // `respond`: plan mode ends inside the turn.
    let r = wait(call(&s, "prompt", &[text_block("present the plan [plan-review]")])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "{}", json(&r));
    until("plan review pending", 10_000.0, || Array::from(&get(&snap(&s), "pending")).length() == 1).await;
    let pending = Array::from(&get(&snap(&s), "pending")).get(0);
    let question = Array::from(&get(&pending, "questions")).get(0);
    let intent = get(&question, "intent");
    assert_eq!(
        (get(&intent, "kind").as_string(), get(&intent, "approve").as_string()),
        (Some("plan-review".into()), Some("Approve".into()))
    );
    let approve = obj(&format!(
        r#"{{"ok":true,"value":{{"sessionId":"{id}","answer":{{"answers":[{{"id":"plan-review","selected":["Approve"]}}]}}}}}}"#
    ));
    assert_eq!(json(&wait(call(&s, "respond", &[get(&pending, "key"), approve])).await), r#"{"accepted":true}"#);
    until("approved: plan mode off", 10_000.0, || plan_json(&s) == r#"{"active":false}"#).await;
    until("review turn done", 20_000.0, || !get(&snap(&s), "running").is_truthy()).await;
    // Plan mode on again and off through the API.
    let r = wait(call(&s, "setPlanMode", &[JsValue::TRUE])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "{}", json(&r));
    assert_eq!(json(&get(&r, "value")), plan_json(&s), "the result is the snapshot's state");
    prompt_turn(&s, "plan once more").await;
    until("plan mode active again", 10_000.0, || plan_json(&s) == r#"{"active":true}"#).await;
    // Plan mode off through the API.
    let r = wait(call(&s, "setPlanMode", &[JsValue::FALSE])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "{}", json(&r));
    assert_eq!(json(&get(&r, "value")), plan_json(&s), "the result is the snapshot's state");
    let off = [r#"{"active":true,"pending":false}"#, r#"{"active":false}"#];
    assert!(off.contains(&plan_json(&s).as_str()), "{}", plan_json(&s));
    prompt_turn(&s, "implement it").await;
    until("plan mode off", 10_000.0, || plan_json(&s) == r#"{"active":false}"#).await;
    // The live session list names it (a session/title frame, or the 2026-08 title projection).
    until("the list names the session", 5_000.0, || {
        list_item(&host, &id).is_some_and(|i| get(&i, "title").as_string().is_some_and(|t| !t.is_empty()))
    })
    .await;
    // A fresh client sees the same log, and its list names the session from the seed alone
    // (the 2026-08 host sends no title frame on open: the title is in the item's projections).
    let fresh = client_of(base, "auto", "");
    until("the fresh list names the session", 10_000.0, || {
        list_item(&fresh, &id).is_some_and(|i| get(&i, "title").as_string().is_some_and(|t| !t.is_empty()))
    })
    .await;
    let again = call(&fresh, "session", &[id.into()]);
    wait(call(&again, "open", &[])).await;
    let types = node_types(&s);
    until("the fresh client caught up", 5_000.0, || node_types(&again) == types).await;
    call(&fresh, "close", &[]);
    call(&host, "close", &[]);
    assert_page_clean().await;
    types
}

#[wasm_bindgen_test]
async fn the_same_scenario_passes_against_the_seed_and_the_2026_08_wire() {
    let seed = generation_scenario(HOST).await;
    let perf = get(&js_sys::global().into(), "performance");
    call(&perf, "setResourceTimingBufferSize", &[JsValue::from_f64(100_000.0)]);
    call(&perf, "clearResourceTimings", &[]);
    let wire_2026_08 = generation_scenario(UPSTREAM_HOST).await;
    assert_eq!(seed, wire_2026_08, "both generations fold into the same nodes");
    assert!(seed.iter().filter(|t| *t == "assistant").count() >= 4, "{seed:?}");
    // Nothing against the 2026-08 host failed (no `session.planMode` 404 probe).
    assert_eq!(failed_requests(UPSTREAM_HOST), Vec::<String>::new());
}

/// Requests to `base` the browser saw fail with a 4xx/5xx status (Resource Timing).
fn failed_requests(base: &str) -> Vec<String> {
    let perf = get(&js_sys::global().into(), "performance");
    let entries: Array = call(&perf, "getEntriesByType", &["resource".into()]).unchecked_into();
    let prefix = format!("{base}/api/");
    let ours: Vec<JsValue> =
        entries.iter().filter(|e| get(e, "name").as_string().is_some_and(|n| n.starts_with(&prefix))).collect();
    let answered = ours.iter().filter(|e| get(e, "responseStatus").as_f64().is_some_and(|s| s == 200.0)).count();
    assert!(answered > 10, "resource timing records the scenario's requests ({answered} of {})", ours.len());
    ours.into_iter()
        .filter(|e| get(e, "responseStatus").as_f64().is_some_and(|s| s >= 400.0))
        .map(|e| format!("{} {}", get(&e, "name").as_string().unwrap_or_default(), json(&get(&e, "responseStatus"))))
        .collect()
}
