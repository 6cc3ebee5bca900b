//! Plan mode: the open does not wait for the plan query, a failed query is asked again, only
//! host-confirmed state is shown, and overlapping selections settle on the newest.

use crate::support::*;

#[wasm_bindgen_test]
async fn open_resolves_before_the_plan_query_completes() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    // The history and the plan query are both answered 1.5 s late.
    fault("{\"command\":\"delay\",\"count\":2,\"ms\":1500}").await;
    let t0 = js_sys::Date::now();
    wait(call(&s, "open", &[])).await;
    let opened_after = js_sys::Date::now() - t0;
    let st = snap(&s);
    assert_eq!(get(&st, "openState").as_string().unwrap(), "open");
    assert!(get(&st, "planMode").is_null(), "plan state not known yet when open() resolves");
    assert!(diag(&s, "inFlight") >= 1.0, "plan query still in flight");
    until("plan state known", 5_000.0, || !get(&snap(&s), "planMode").is_null()).await;
    assert!(js_sys::Date::now() - t0 > opened_after + 500.0, "the plan query finished well after open()");
    fault("{\"command\":\"clear\"}").await;
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn a_failed_plan_query_on_an_idle_session_is_asked_again_by_itself() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    // The open's plan query fails (a 503 from the carrier); nothing else happens on the session.
    fault("{\"command\":\"fail\",\"count\":1,\"method\":\"session.planMode\"}").await;
    wait(call(&s, "open", &[])).await;
    until("the query failed", 3_000.0, || diag(&s, "inFlight") == 0.0).await;
    assert!(get(&snap(&s), "planMode").is_null(), "unknown while the query fails");
    let t0 = js_sys::Date::now();
    until("asked again after the backoff", 5_000.0, || !get(&snap(&s), "planMode").is_null()).await;
    assert!(js_sys::Date::now() - t0 >= 500.0, "not asked again at once");
    assert_eq!(json(&get(&snap(&s), "planMode")), "{\"active\":false}");
    fault("{\"command\":\"clear\"}").await;
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn the_plan_mode_sequence_shows_only_host_confirmed_state() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    wait(call(&s, "open", &[])).await;
    until("plan known", 5_000.0, || !get(&snap(&s), "planMode").is_null()).await;
    assert_eq!(json(&get(&snap(&s), "planMode")), "{\"active\":false}");
    // A selection is not shown before the host answers it.
    fault("{\"command\":\"delay\",\"count\":1,\"ms\":600}").await;
    let p = call(&s, "setPlanMode", &[JsValue::TRUE]);
    sleep(300.0).await;
    assert_eq!(json(&get(&snap(&s), "planMode")), "{\"active\":false}", "no speculative plan state");
    let r = wait(p).await;
    assert_eq!(json(&r), "{\"ok\":true,\"value\":{\"active\":false,\"pending\":true}}");
    assert_eq!(json(&get(&snap(&s), "planMode")), "{\"active\":false,\"pending\":true}");
    // The next prompt commits it: plan/mode in the log, then the plan-mode divider.
    prompt_turn(&s, "make a plan").await;
    until("committed", 5_000.0, || json(&get(&snap(&s), "planMode")) == "{\"active\":true}").await;
    assert!(node_types(&s).iter().any(|t| t == "plan-mode"));
    // And back.
    let r = wait(call(&s, "setPlanMode", &[JsValue::FALSE])).await;
    assert_eq!(json(&get(&r, "value")), "{\"active\":true,\"pending\":false}");
    prompt_turn(&s, "now do it").await;
    until("committed off", 5_000.0, || json(&get(&snap(&s), "planMode")) == "{\"active\":false}").await;
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn overlapping_plan_selections_answered_out_of_order_settle_on_the_newest() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    wait(call(&s, "open", &[])).await;
    until("plan known", 5_000.0, || !get(&snap(&s), "planMode").is_null()).await;
    // The first selection's answer is held back 800 ms; the second is answered at once.
    fault("{\"command\":\"delay\",\"count\":1,\"ms\":800}").await;
    let first = call(&s, "setPlanMode", &[JsValue::TRUE]);
    sleep(100.0).await;
    let second = call(&s, "setPlanMode", &[JsValue::FALSE]);
    let r2 = wait(second).await;
    let shown_after_second = json(&get(&snap(&s), "planMode"));
    let r1 = wait(first).await;
    assert_eq!(get(&r1, "ok"), JsValue::TRUE);
    assert_eq!(get(&r2, "ok"), JsValue::TRUE);
    sleep(50.0).await;
    // The late answer of the older selection does not overwrite the newer one.
    assert_eq!(json(&get(&snap(&s), "planMode")), shown_after_second);
    assert_eq!(json(&get(&snap(&s), "planMode")), json(&get(&r2, "value")));
    assert!(diag(&s, "planResponsesFenced") >= 1.0);
    // The host agrees.
    let h2 = new_host();
    let s2 = call(&h2, "session", &[id.into()]);
    wait(call(&s2, "open", &[])).await;
    until("plan known", 5_000.0, || !get(&snap(&s2), "planMode").is_null()).await;
    assert_eq!(json(&get(&snap(&s2), "planMode")), json(&get(&snap(&s), "planMode")));
    call(&h2, "close", &[]);
    call(&host, "close", &[]);
}
