//! Recovery: a gap repaired from history, dropped streams, a question across a reconnect, a host
//! killed and restarted, a host that lost its log, a stream error, and a wall clock set back
//! while reconnecting.

use crate::support::*;

#[wasm_bindgen_test]
async fn a_gap_in_live_events_is_repaired_from_history() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    watch(&s);
    wait(call(&s, "open", &[])).await;
    prompt_turn(&s, "warm up").await;
    fault("{\"command\":\"skip-mux-event\",\"count\":3}").await;
    prompt_turn(&s, "these first events never reach the mux").await;
    let (tail, truth) = host_truth(&id).await;
    until("repaired to the host tail", 10_000.0, || get(&snap(&s), "tailSeq").as_f64() == Some(tail)).await;
    assert_eq!(node_types(&s), truth);
    assert!(diag(&s, "repairs") >= 1.0, "a repair was sent");
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn dropped_streams_reconnect_and_resync_every_open_session() {
    let host = new_host();
    let gen0 = get(&call(&host, "getSnapshot", &[]), "generation").as_f64().unwrap();
    // Opened before the first generation is established: opened on it, not resynced by it.
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    watch(&s);
    wait(call(&s, "open", &[])).await;
    connected(&host).await;
    sleep(100.0).await;
    assert_eq!(diag(&s, "openGeneration"), 1.0, "not resynced by the generation it was opened on");
    let cold = call(&host, "session", &[create(&host).await.into()]);
    let states = Rc::new(RefCell::new(Vec::<String>::new()));
    let (st2, h2) = (states.clone(), host.clone());
    let listener: JsValue = Closure::<dyn FnMut()>::new(move || st2.borrow_mut().push(conn_state(&h2))).into_js_value();
    call(&host, "subscribe", std::slice::from_ref(&listener));
    fault("{\"command\":\"drop-streams\"}").await;
    until("reconnecting seen", 5_000.0, || states.borrow().iter().any(|s| s == "reconnecting")).await;
    connected(&host).await;
    let c = call(&host, "getSnapshot", &[]);
    assert!(get(&c, "generation").as_f64().unwrap() > gen0 + 1.0 - 1e-9);
    assert_eq!(get(&c, "attempt").as_f64().unwrap(), 0.0, "attempt resets once established");
    assert!(get(&c, "retryAt").is_null());
    assert_eq!(get(&c, "transport").as_string().as_deref(), Some(TRANSPORT), "the carrier is kept");
    until("resynced", 5_000.0, || diag(&s, "openGeneration") == 2.0).await;
    assert_eq!(get(&snap(&cold), "openState").as_string().unwrap(), "cold", "cold sessions are not resynced");
    assert_eq!(diag(&cold, "openGeneration"), 0.0);
    // Live events flow on the new generation.
    prompt_turn(&s, "after the reconnect").await;
    let (tail, truth) = host_truth(&id).await;
    until("caught up", 5_000.0, || get(&snap(&s), "tailSeq").as_f64() == Some(tail)).await;
    assert_eq!(node_types(&s), truth);
    // A session opened on the established generation is not resynced by it...
    let s3 = call(&host, "session", &[create(&host).await.into()]);
    watch(&s3);
    wait(call(&s3, "open", &[])).await;
    sleep(100.0).await;
    assert_eq!(diag(&s3, "openGeneration"), 1.0);
    // ...but the next generation resyncs it.
    fault("{\"command\":\"drop-streams\"}").await;
    until("s3 resynced", 10_000.0, || diag(&s3, "openGeneration") == 2.0).await;
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn a_question_round_trip_survives_a_reconnect() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    watch(&s);
    wait(call(&s, "open", &[])).await;
    let r = wait(call(&s, "prompt", &[text_block("please [question] me")])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE);
    until("question pending", 10_000.0, || Array::from(&get(&snap(&s), "pending")).length() == 1).await;
    let p = Array::from(&get(&snap(&s), "pending")).get(0);
    assert_eq!(get(&p, "kind").as_string().unwrap(), "question");
    assert!(Array::from(&get(&p, "questions")).length() >= 1);
    // The host replays pending questions on every mux open: pending survives a reconnect.
    fault("{\"command\":\"drop-streams\"}").await;
    until("reconnecting", 5_000.0, || conn_state(&host) != "open").await;
    connected(&host).await;
    sleep(200.0).await;
    assert_eq!(Array::from(&get(&snap(&s), "pending")).length(), 1, "pending survives reconnects");
    let key = get(&Array::from(&get(&snap(&s), "pending")).get(0), "key");
    // The host answers `/api/respond` with a bare receipt: a value the question cannot take
    // is refused as `bad-response`, and the question stays pending.
    let bad = wait(call(&s, "respond", &[key.clone(), obj("{\"ok\":true,\"value\":\"blue\"}")])).await;
    assert_eq!(json(&bad), "{\"accepted\":false,\"reason\":\"bad-response\"}");
    assert_eq!(Array::from(&get(&snap(&s), "pending")).length(), 1, "a refused answer leaves the card");
    let answer = obj("{\"ok\":true,\"value\":{\"answers\":{\"q1\":\"blue\"}}}");
    let receipt = wait(call(&s, "respond", &[key.clone(), answer.clone()])).await;
    assert_eq!(json(&receipt), "{\"accepted\":true}");
    until("question resolved", 10_000.0, || Array::from(&get(&snap(&s), "pending")).length() == 0).await;
    let again = wait(call(&s, "respond", &[key, answer])).await;
    assert_eq!(get(&again, "accepted"), JsValue::FALSE);
    assert_eq!(get(&again, "reason").as_string().unwrap(), "not-pending");
    until("turn finished", 20_000.0, || {
        get(&snap(&s), "partial").is_null() && node_types(&s).last().map(String::as_str) == Some("assistant")
    })
    .await;
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn a_host_restart_by_kill_9_is_survived_with_a_resync() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    watch(&s);
    wait(call(&s, "open", &[])).await;
    prompt_turn(&s, "before the crash").await;
    let before = node_types(&s);
    let gen_before = diag(&s, "openGeneration");
    control("kill").await;
    until("reconnecting", 5_000.0, || conn_state(&host) == "reconnecting").await;
    // While the host is down: operations resolve with transport errors.
    let r = wait(call(&s, "setPlanMode", &[JsValue::TRUE])).await;
    assert_eq!(path(&r, &["error", "code"]).as_string().unwrap(), "internal");
    assert_eq!(node_types(&s), before, "the window stays visible while disconnected");
    control("start").await;
    connected(&host).await;
    until("resynced", 10_000.0, || diag(&s, "openGeneration") > gen_before).await;
    let (tail, truth) = host_truth(&id).await;
    until("caught up", 5_000.0, || get(&snap(&s), "tailSeq").as_f64() == Some(tail)).await;
    assert_eq!(node_types(&s), truth);
    prompt_turn(&s, "after the restart").await;
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn a_host_that_lost_its_log_is_rebuilt_from_its_truth() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    watch(&s);
    wait(call(&s, "open", &[])).await;
    prompt_turn(&s, "soon forgotten").await;
    assert!(get(&snap(&s), "tailSeq").as_f64().unwrap() > 0.0);
    fault("{\"command\":\"reset-store\",\"keepSessions\":true}").await;
    until("rebuilt empty", 10_000.0, || get(&snap(&s), "tailSeq").as_f64() == Some(-1.0)).await;
    assert_eq!(nodes(&s).length(), 0);
    prompt_turn(&s, "a fresh start").await;
    let (tail, truth) = host_truth(&id).await;
    until("caught up", 5_000.0, || get(&snap(&s), "tailSeq").as_f64() == Some(tail)).await;
    assert_eq!(node_types(&s), truth);
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn a_stream_error_ends_the_generation_without_an_unhandled_rejection() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    watch(&s);
    wait(call(&s, "open", &[])).await;
    let generation = || get(&call(&host, "getSnapshot", &[]), "generation").as_f64().unwrap();
    let before = generation();
    fault("{\"command\":\"stream-error\"}").await;
    until("the next generation is established", 10_000.0, || generation() > before && conn_state(&host) == "open")
        .await;
    let last_error = get(&call(&host, "getSnapshot", &[]), "lastError");
    assert!(
        last_error.is_null() || last_error.as_string().is_some_and(|e| e.contains("stream/error")),
        "{last_error:?}"
    );
    // Both streams of the ended generation were cancelled: nothing may reject unseen.
    assert_page_clean().await;
    prompt_turn(&s, "still live after the stream error").await;
    call(&host, "close", &[]);
    assert_page_clean().await;
}

#[wasm_bindgen_test]
async fn a_wall_clock_set_back_an_hour_does_not_delay_the_reconnect() {
    let host = new_host();
    connected(&host).await;
    let gen = get(&call(&host, "getSnapshot", &[]), "generation").as_f64().unwrap();
    fault("{\"command\":\"drop-streams\"}").await;
    until("reconnecting", 5_000.0, || conn_state(&host) == "reconnecting").await;
    // The retry is scheduled; now the wall clock steps back an hour (a user, NTP, a laptop
    // waking). On a wall-clock timer the retry would wait that hour.
    js_sys::eval("globalThis.__realDateNow = Date.now; Date.now = () => globalThis.__realDateNow() - 3600000").unwrap();
    let ok = until_ok(5_000.0, || {
        conn_state(&host) == "open" && get(&call(&host, "getSnapshot", &[]), "generation").as_f64().unwrap() > gen
    })
    .await;
    js_sys::eval("Date.now = globalThis.__realDateNow").unwrap();
    assert!(ok, "reconnected within the backoff, not an hour later");
    call(&host, "close", &[]);
}

/// Whether `f` holds within `timeout_ms` of the monotonic clock (the wall clock may be faked).
async fn until_ok(timeout_ms: f64, mut f: impl FnMut() -> bool) -> bool {
    let now = || js_sys::eval("performance.now()").unwrap().as_f64().unwrap();
    let start = now();
    while !f() {
        if now() - start > timeout_ms {
            return false;
        }
        sleep(15.0).await;
    }
    true
}
