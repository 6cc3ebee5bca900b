//! Retention: a session nobody watches is released to cold; a reconnect resyncs the watched
//! sessions and an unwatched one once watched again.

use crate::support::*;

#[wasm_bindgen_test]
async fn a_session_nobody_watches_is_released_to_cold_and_open_rebuilds_it() {
    let host = host_with(r#","keepWarm":0"#);
    connected(&host).await;
    let id = create(&host).await;
    let s = call(&host, "session", &[id.clone().into()]);
    let listener: JsValue = Closure::<dyn FnMut()>::new(|| {}).into_js_value();
    let unsubscribe: js_sys::Function = call(&s, "subscribe", &[listener]).unchecked_into();
    wait(call(&s, "open", &[])).await;
    prompt_turn(&s, "hello").await;
    let before = node_types(&s);
    assert!(!before.is_empty());
    unsubscribe.call0(&JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&snap(&s), "openState").as_string().unwrap(), "open", "not in the same task");
    until("released", 2_000.0, || get(&snap(&s), "openState").as_string().unwrap() == "cold").await;
    let cold = snap(&s);
    assert_eq!(js_sys::Array::from(&get(&cold, "nodes")).length(), 0);
    assert_eq!(get(&cold, "tailSeq").as_f64(), Some(-1.0));
    assert_eq!(diag(&s, "releases"), 1.0);
    assert!(Object::is(&s, &call(&host, "session", &[id.clone().into()])), "the same object");
    wait(call(&s, "open", &[])).await;
    assert_eq!(get(&snap(&s), "openState").as_string().unwrap(), "open");
    assert_eq!(node_types(&s), before, "rebuilt from the host's log");
    call(&host, "close", &[]);
}

#[wasm_bindgen_test]
async fn a_reconnect_resyncs_watched_sessions_and_the_unwatched_one_when_watched_again() {
    let host = new_host();
    connected(&host).await;
    let watched = call(&host, "session", &[create(&host).await.into()]);
    watch(&watched);
    wait(call(&watched, "open", &[])).await;
    let warm = call(&host, "session", &[create(&host).await.into()]);
    wait(call(&warm, "open", &[])).await; // opened, then nobody watches it (warm)
    assert_eq!(diag(&watched, "openGeneration"), 1.0);
    assert_eq!(diag(&warm, "openGeneration"), 1.0);
    fault("{\"command\":\"drop-streams\"}").await;
    until("reconnected and resynced", 10_000.0, || diag(&watched, "openGeneration") == 2.0).await;
    connected(&host).await;
    sleep(200.0).await;
    assert_eq!(diag(&warm, "openGeneration"), 1.0, "a reconnect leaves the unwatched session alone");
    assert_eq!(get(&snap(&warm), "openState").as_string().unwrap(), "open", "warm: its window stays");
    watch(&warm);
    until("resynced once watched", 5_000.0, || diag(&warm, "openGeneration") == 2.0).await;
    call(&host, "close", &[]);
}
