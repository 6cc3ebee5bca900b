//! The live session list (`host.getSessions`): a second client sees a new session, its title and
//! running state; a reconnect reseeds it.

use crate::support::*;

#[wasm_bindgen_test]
async fn session_list_a_second_client_sees_a_new_session_its_title_and_running_state_live() {
    let (a, b) = (new_host(), new_host());
    connected(&a).await;
    connected(&b).await;
    until("b's list seeded", 10_000.0, || get(&call(&b, "getSessions", &[]), "state").as_string().unwrap() == "ready")
        .await;
    let notified = Rc::new(Cell::new(0u32));
    let n2 = notified.clone();
    let listener: JsValue = Closure::<dyn FnMut()>::new(move || n2.set(n2.get() + 1)).into_js_value();
    call(&b, "subscribe", &[listener]);
    // A session created by client A appears in B's list, first, untitled and idle.
    let id = create(&a).await;
    until("B sees the new session", 5_000.0, || list_item(&b, &id).is_some()).await;
    assert_eq!(get(&list_items(&b)[0], "sessionId").as_string().as_deref(), Some(id.as_str()), "newest first");
    let item = list_item(&b, &id).unwrap();
    assert!(get(&item, "title").is_null());
    assert_eq!(get(&item, "running"), JsValue::FALSE);
    assert!(notified.get() > 0, "host listeners hear list changes");
    // Identity: unchanged snapshot → same object; an unrelated change keeps other items.
    let s1 = call(&b, "getSessions", &[]);
    assert!(Object::is(&s1, &call(&b, "getSessions", &[])));
    assert!(Object::is_frozen(s1.unchecked_ref::<Object>()) && Object::is_frozen(item.unchecked_ref::<Object>()));
    let other = create(&a).await;
    until("B sees the second session", 5_000.0, || list_item(&b, &other).is_some()).await;
    assert!(Object::is(&item, &list_item(&b, &id).unwrap()), "an unchanged item keeps its object");
    // A prompt through A: B sees running (then waiting on the question), and the title.
    let s = call(&a, "session", &[id.clone().into()]);
    wait(call(&s, "open", &[])).await;
    let r = wait(call(&s, "prompt", &[text_block("Rename the config loader [question]")])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE);
    until("B sees it running", 5_000.0, || list_item(&b, &id).is_some_and(|i| get(&i, "running") == JsValue::TRUE))
        .await;
    until("B sees the title", 5_000.0, || {
        list_item(&b, &id)
            .is_some_and(|i| get(&i, "title").as_string().is_some_and(|t| t.starts_with("Rename the config")))
    })
    .await;
    until("B sees it waiting on the question", 5_000.0, || {
        list_item(&b, &id).is_some_and(|i| get(&i, "waiting") == JsValue::TRUE)
    })
    .await;
    assert_eq!(get(&list_items(&b)[0], "sessionId").as_string().as_deref(), Some(id.as_str()), "activity moves it up");
    until("the question reaches A", 5_000.0, || js_sys::Array::from(&get(&snap(&s), "pending")).length() == 1).await;
    let q = js_sys::Array::from(&get(&snap(&s), "pending")).get(0);
    let answer = obj("{\"ok\":true,\"value\":{\"answers\":{\"approach\":\"Refactor\"}}}");
    let receipt = wait(call(&s, "respond", &[get(&q, "key"), answer])).await;
    assert_eq!(get(&receipt, "accepted"), JsValue::TRUE, "{}", json(&receipt));
    until("B sees it idle", 10_000.0, || {
        list_item(&b, &id).is_some_and(|i| get(&i, "running") == JsValue::FALSE && get(&i, "waiting") == JsValue::FALSE)
    })
    .await;
    // A third client, started now, gets the title from the mux open and the seed.
    let c = new_host();
    until("C's list has the title", 10_000.0, || {
        list_item(&c, &id).is_some_and(|i| get(&i, "title").as_string().is_some_and(|t| t.starts_with("Rename")))
    })
    .await;
    for h in [&a, &b, &c] {
        call(h, "close", &[]);
    }
    assert_page_clean().await;
}

#[wasm_bindgen_test]
async fn session_list_is_reseeded_after_a_reconnect_and_drops_what_the_host_lost() {
    let host = new_host();
    let id = create(&host).await;
    until("seeded with the session", 10_000.0, || list_item(&host, &id).is_some()).await;
    let before = call(&host, "getSessions", &[]);
    // The host loses every session (and ends the streams): the next generation's seed drops it.
    fault("{\"command\":\"reset-store\"}").await;
    let state = |h: &JsValue| get(&call(h, "getSessions", &[]), "state").as_string().unwrap_or_default();
    until("the lost session is gone", 10_000.0, || list_item(&host, &id).is_none()).await;
    assert!(!Object::is(&before, &call(&host, "getSessions", &[])));
    // The next generation re-seeds (the old generation's answer, if late, is ignored).
    until("re-seeded", 10_000.0, || state(&host) == "ready").await;
    assert!(list_item(&host, &id).is_none(), "the seed does not bring back a session the host lost");
    let again = create(&host).await;
    until("a new session appears", 5_000.0, || list_item(&host, &again).is_some()).await;
    call(&host, "close", &[]);
    assert_page_clean().await;
}
