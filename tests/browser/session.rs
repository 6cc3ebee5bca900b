//! Opening a session (concurrent opens share one request, the window stitched from the tail
//! page), live streaming into the partial, snapshot identity, and listener batching.

use crate::support::*;

#[wasm_bindgen_test]
async fn open_and_stitch_a_session_with_history() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    assert!(Object::is(&s, &call(&host, "session", &[id.clone().into()])), "resident: same object for the same id");
    assert_eq!(get(&s, "sessionId").as_string().unwrap(), id);
    assert_eq!(get(&snap(&s), "openState").as_string().unwrap(), "cold");
    // Concurrent opens share one history request and both resolve.
    let p1 = call(&s, "open", &[]);
    let p2 = call(&s, "open", &[]);
    assert_eq!(get(&snap(&s), "openState").as_string().unwrap(), "loading");
    wait(p1).await;
    wait(p2).await;
    assert_eq!(get(&snap(&s), "openState").as_string().unwrap(), "open");
    prompt_turn(&s, "hello there").await;
    let types = node_types(&s);
    assert_eq!(types.first().map(String::as_str), Some("user"));
    assert_eq!(types.last().map(String::as_str), Some("assistant"));
    // A second client opens the same history: the same nodes, stitched from the tail page.
    let (tail, truth) = host_truth(&id).await;
    assert_eq!(get(&snap(&s), "tailSeq").as_f64().unwrap(), tail);
    assert_eq!(truth, types);
    // Live events after open append on top of the window.
    prompt_turn(&s, "second").await;
    let (tail2, truth2) = host_truth(&id).await;
    assert!(tail2 > tail);
    assert_eq!(node_types(&s), truth2);
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn live_streaming_fills_the_partial_then_finalizes_it() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    wait(call(&s, "open", &[])).await;
    let r = wait(call(&s, "prompt", &[text_block("stream a fairly long reply please with many words in it")])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE);
    let texts = Rc::new(RefCell::new(Vec::<String>::new()));
    let t2 = texts.clone();
    let s2 = s.clone();
    let listener: JsValue = Closure::<dyn FnMut()>::new(move || {
        let p = get(&snap(&s2), "partial");
        if !p.is_null() {
            t2.borrow_mut().push(get(&p, "text").as_string().unwrap());
        }
    })
    .into_js_value();
    let unsub = call(&s, "subscribe", std::slice::from_ref(&listener));
    until("turn finished", 20_000.0, || {
        node_types(&s).last().map(String::as_str) == Some("assistant") && get(&snap(&s), "partial").is_null()
    })
    .await;
    let seen = texts.borrow().clone();
    assert!(seen.len() >= 2, "partial observed growing: {seen:?}");
    assert!(seen.windows(2).all(|w| w[1].starts_with(&w[0]) || w[1].len() >= w[0].len()), "partial text only grows");
    unsub.unchecked_ref::<Function>().call0(&JsValue::UNDEFINED).unwrap();
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn snapshots_keep_identity_until_something_changes() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    wait(call(&s, "open", &[])).await;
    prompt_turn(&s, "first").await;
    sleep(100.0).await;
    let a = snap(&s);
    let b = snap(&s);
    assert!(Object::is(&a, &b), "getSnapshot returns the identical object while nothing changes");
    assert!(Object::is_frozen(a.unchecked_ref::<Object>()), "snapshot frozen");
    let nodes_a: Array = get(&a, "nodes").unchecked_into();
    assert!(Object::is_frozen(nodes_a.unchecked_ref::<Object>()), "nodes frozen");
    assert!(Object::is_frozen(nodes_a.get(0).unchecked_ref::<Object>()), "node frozen");
    // Deeply frozen: content inside a node too.
    let content = get(&nodes_a.get(0), "content");
    if content.is_object() {
        assert!(Object::is_frozen(content.unchecked_ref::<Object>()));
    }
    prompt_turn(&s, "second").await;
    let c = snap(&s);
    assert!(!Object::is(&a, &c));
    let nodes_c: Array = get(&c, "nodes").unchecked_into();
    assert!(nodes_c.length() > nodes_a.length());
    for i in 0..nodes_a.length() {
        assert!(Object::is(&nodes_a.get(i), &nodes_c.get(i)), "unchanged node {i} keeps identity");
    }
    // Unchanged sub-arrays keep identity too.
    assert!(Object::is(&get(&a, "pending"), &get(&c, "pending")), "pending array kept");
    assert!(Object::is(&get(&a, "runningCalls"), &get(&c, "runningCalls")), "runningCalls array kept");
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn listeners_are_batched_per_microtask_and_may_reenter() {
    let host = new_host();
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.into()]);
    let calls = Rc::new(Cell::new(0u32));
    let in_sync_code = Rc::new(Cell::new(true));
    let called_during_sync = Rc::new(Cell::new(false));
    let reentered = Rc::new(Cell::new(false));
    let (c2, sync2, during2, re2, s2) =
        (calls.clone(), in_sync_code.clone(), called_during_sync.clone(), reentered.clone(), s.clone());
    let listener: JsValue = Closure::<dyn FnMut()>::new(move || {
        c2.set(c2.get() + 1);
        if sync2.get() {
            during2.set(true);
        }
        // Re-entrancy: calling back into the session from a listener is safe.
        let snap = call(&s2, "getSnapshot", &[]);
        assert!(snap.is_object());
        if !re2.get() {
            re2.set(true);
            call(&s2, "resync", &[]);
            let _ = call(&s2, "setPlanMode", &[JsValue::FALSE]);
            let _ = call(&s2, "loadOlder", &[]);
        }
    })
    .into_js_value();
    let unsub = call(&s, "subscribe", std::slice::from_ref(&listener));
    // Several mutations in one synchronous block...
    let p = call(&s, "open", &[]);
    call(&s, "resync", &[]);
    call(&s, "resync", &[]);
    let _ = call(&s, "cancel", &[]);
    assert_eq!(calls.get(), 0, "listeners never run inside a method call");
    in_sync_code.set(false);
    // ...reach the listener once, in a microtask.
    let micro = Promise::resolve(&JsValue::UNDEFINED);
    JsFuture::from(micro).await.unwrap();
    sleep(0.0).await;
    assert!(!called_during_sync.get());
    assert!(calls.get() >= 1);
    let after_first_batch = calls.get();
    assert!(
        after_first_batch <= 2,
        "one call for the sync batch (+1 for the re-entrant batch), got {after_first_batch}"
    );
    wait(p).await;
    until("open", 5_000.0, || get(&snap(&s), "openState").as_string().unwrap() == "open").await;
    assert!(reentered.get());
    // A burst of frames (a whole turn) is far fewer notifications than frames.
    let before = calls.get();
    let frames_before = get(&call(&host, "diagnostics", &[]), "frames").as_f64().unwrap();
    prompt_turn(&s, "a burst of words to stream out as many chunks").await;
    let frames = get(&call(&host, "diagnostics", &[]), "frames").as_f64().unwrap() - frames_before;
    // The prompt's echo notifies twice with no frame of its own (shown at once; accepted by
    // the host's answer); every other notification batches frames.
    let notified = (calls.get() - before) as f64;
    assert!(notified <= frames + 2.0, "no more notifications than frames (+2 for the echo): {notified} for {frames}");
    unsub.unchecked_ref::<Function>().call0(&JsValue::UNDEFINED).unwrap();
    let n = calls.get();
    call(&s, "resync", &[]);
    sleep(50.0).await;
    assert_eq!(calls.get(), n, "unsubscribed listener is not called");
    call(&host, "close", &[]);
}
