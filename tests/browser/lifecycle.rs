//! Closing: `close()` releases streams, timers and listeners and settles what is in flight; many
//! open / resync / close cycles leave nothing running.

use crate::support::*;

#[wasm_bindgen_test]
async fn close_releases_streams_timers_listeners_and_settles_operations() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    wait(call(&s, "open", &[])).await;
    let notified = Rc::new(Cell::new(0u32));
    let n2 = notified.clone();
    let listener: JsValue = Closure::<dyn FnMut()>::new(move || n2.set(n2.get() + 1)).into_js_value();
    call(&host, "subscribe", std::slice::from_ref(&listener));
    call(&s, "subscribe", std::slice::from_ref(&listener));
    until("plan known", 5_000.0, || !get(&snap(&s), "planMode").is_null()).await;
    // An operation in flight when close() happens still settles.
    fault("{\"command\":\"withhold\",\"count\":2}").await;
    let pending = call(&s, "setPlanMode", &[JsValue::TRUE]);
    let desc = call(&host, "call", &["host.describe".into(), "{}".into()]);
    sleep(100.0).await;
    call(&host, "close", &[]);
    call(&host, "close", &[]); // idempotent
    let r = wait(pending).await;
    assert_eq!(get(&r, "ok"), JsValue::FALSE);
    let d = wait(desc).await;
    assert_eq!(get(&d, "ok"), JsValue::FALSE);
    assert_eq!(conn_state(&host), "closed");
    sleep(50.0).await;
    let dg = call(&host, "diagnostics", &[]);
    assert_eq!(get(&dg, "inflightRequests").as_f64().unwrap(), 0.0);
    assert_eq!(get(&dg, "sockets").as_f64().unwrap(), 0.0, "downlink sockets closed");
    assert_eq!(get(&dg, "timerArmed"), JsValue::FALSE);
    assert_eq!(get(&dg, "hostListeners").as_f64().unwrap(), 0.0);
    assert_eq!(get(&dg, "sessionListeners").as_f64().unwrap(), 0.0);
    let frames = get(&dg, "frames").as_f64().unwrap();
    let n = notified.get();
    fault("{\"command\":\"release\"}").await;
    sleep(300.0).await;
    assert_eq!(get(&call(&host, "diagnostics", &[]), "frames").as_f64().unwrap(), frames, "no frames after close");
    assert_eq!(notified.get(), n, "no notifications after close");
    fault("{\"command\":\"clear\"}").await;
    // A HostClient object that goes away (freed here; collected, in a page) while a Session
    // of it is still held: the session keeps working, and the last handle closes the client.
    let h2 = new_host();
    connected(&h2).await;
    let s2 = call(&h2, "session", &[create(&h2).await.into()]);
    call(&h2, "free", &[]);
    wait(call(&s2, "open", &[])).await;
    assert_eq!(get(&snap(&s2), "openState").as_string().unwrap(), "open", "the session outlives its host object");
    let r = wait(call(&s2, "prompt", &[obj(r#"[{"type":"text","text":"still here"}]"#)])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE);
    call(&s2, "free", &[]);
}

#[wasm_bindgen_test]
async fn many_open_resync_close_cycles_leave_nothing_running() {
    // ADVERSARIAL 22: a session reused after resync and across many client lifetimes;
    // every cycle ends with no request, timer or listener left behind.
    let host0 = new_host();
    connected(&host0).await;
    let id = create(&host0).await;
    call(&host0, "close", &[]);
    for cycle in 0..12 {
        let host = new_host();
        connected(&host).await;
        let s = call(&host, "session", &[id.clone().into()]);
        let listener: JsValue = Closure::<dyn FnMut()>::new(|| {}).into_js_value();
        call(&s, "subscribe", &[listener]);
        wait(call(&s, "open", &[])).await;
        let gen = diag(&s, "openGeneration");
        call(&s, "resync", &[]);
        until("resynced", 5_000.0, || diag(&s, "openGeneration") > gen && diag(&s, "inFlight") == 0.0).await;
        assert_eq!(get(&snap(&s), "openState").as_string().as_deref(), Some("open"), "cycle {cycle}");
        call(&host, "close", &[]);
        // Aborted fetches report back, and listeners are released after their final
        // notification, on a later tick.
        until("everything released", 2_000.0, || {
            let dg = call(&host, "diagnostics", &[]);
            get(&dg, "inflightRequests").as_f64() == Some(0.0) && get(&dg, "sessionListeners").as_f64() == Some(0.0)
        })
        .await;
        assert_eq!(get(&call(&host, "diagnostics", &[]), "timerArmed"), JsValue::FALSE, "cycle {cycle}");
        assert_eq!(diag(&host, "sockets"), 0.0, "cycle {cycle}");
        assert_eq!(err_code(&try_call(&s, "open", &[]).unwrap_err()), "closed", "cycle {cycle}");
    }
}
