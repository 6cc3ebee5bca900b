//! Failures: business and transport failures resolve and never throw, a unary body over
//! `maxResponseBytes`, and programmer errors thrown with stable codes.

use crate::support::*;
use agent_session::wasm::HostClient;

#[wasm_bindgen_test]
async fn business_and_transport_failures_resolve_never_throw() {
    let host = new_host();
    connected(&host).await;
    // Business failure: unknown session.
    let s = call(&host, "session", &["no-such-session".into()]);
    let r = wait(call(&s, "prompt", &[text_block("hi")])).await;
    assert_eq!(get(&r, "ok"), JsValue::FALSE);
    assert_eq!(path(&r, &["error", "code"]).as_string().unwrap(), "session-not-found");
    assert_eq!(path(&get(&snap(&s), "promptError"), &["op"]).as_string().unwrap(), "send");
    wait(call(&s, "open", &[])).await;
    let st = snap(&s);
    assert_eq!(get(&st, "openState").as_string().unwrap(), "error");
    assert_eq!(path(&st, &["openError", "code"]).as_string().unwrap(), "session-not-found");
    // A key that is not pending: refused, no throw.
    let rc = wait(call(&s, "respond", &["question:nope".into(), obj("{\"ok\":true,\"value\":{}}")])).await;
    assert_eq!(json(&rc), "{\"accepted\":false,\"reason\":\"not-pending\"}");
    call(&host, "close", &[]);
    // Transport failure: nothing listens there.
    let dead =
        JsValue::from(HostClient::new(obj("{\"baseUrl\":\"http://127.0.0.1:9\",\"requestTimeoutMs\":3000}")).unwrap());
    let r = wait(call(&dead, "call", &["host.describe".into(), "{}".into()])).await;
    assert_eq!(get(&r, "ok"), JsValue::FALSE);
    assert_eq!(path(&r, &["error", "code"]).as_string().unwrap(), "internal");
    let ds = call(&dead, "session", &["x".into()]);
    let r = wait(call(&ds, "setPlanMode", &[JsValue::TRUE])).await;
    assert_eq!(path(&r, &["error", "code"]).as_string().unwrap(), "internal");
    wait(call(&ds, "open", &[])).await;
    assert_eq!(get(&snap(&ds), "openState").as_string().unwrap(), "error");
    until("reconnecting", 5_000.0, || conn_state(&dead) == "reconnecting").await;
    let c = call(&dead, "getSnapshot", &[]);
    assert!(get(&c, "attempt").as_f64().unwrap() >= 1.0);
    assert!(get(&c, "retryAt").as_f64().is_some());
    assert!(get(&c, "lastError").as_string().is_some());
    call(&dead, "close", &[]);
}

/// Unary bodies were read whole whatever their size: past `maxResponseBytes` the read stops
/// and the call fails as a transport error that names the limit.
#[wasm_bindgen_test]
async fn a_unary_body_over_max_response_bytes_is_a_transport_error_naming_the_limit() {
    let small = host_with(",\"maxResponseBytes\":16");
    let r = wait(call(&small, "call", &["host.describe".into(), "{}".into()])).await;
    assert_eq!(get(&r, "ok"), JsValue::FALSE);
    let message = path(&r, &["error", "message"]).as_string().unwrap();
    assert!(message.contains("over the 16-byte limit (maxResponseBytes)"), "{message}");
    assert_eq!(path(&r, &["error", "details", "transport"]), JsValue::TRUE);
    call(&small, "close", &[]);
    let roomy = host_with(",\"maxResponseBytes\":4096");
    let r = wait(call(&roomy, "call", &["host.describe".into(), "{}".into()])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "a body within the limit is read");
    call(&roomy, "close", &[]);
    let e = HostClient::new(obj("{\"maxResponseBytes\":-1}")).err().expect("a negative limit throws");
    assert_eq!(err_code(&e), "bad-argument");
}

#[wasm_bindgen_test]
async fn programmer_errors_throw_errors_with_stable_codes() {
    for bad in [
        "5",
        "{\"baseUrl\":5}",
        "{\"token\":7}",
        "{\"backoff\":{\"baseMs\":\"x\"}}",
        "{\"requestTimeoutMs\":-1}",
        "{\"transport\":\"ws\"}",
        "{\"transport\":\"WebSocket\"}",
        "{\"transport\":5}",
        "{\"transport\":null}",
        "{\"clientTimeZone\":5}",
        "{\"clientTimeZone\":{}}",
    ] {
        let e = HostClient::new(obj(bad)).err().expect("bad options throw");
        assert_eq!(err_code(&e), "bad-argument", "options {bad}");
    }
    let host = new_host();
    let s = call(&host, "session", &["abc".into()]);
    for (name, args) in [
        ("setPlanMode", vec![JsValue::from_str("yes")]),
        ("prompt", vec![JsValue::from_str("hi")]),
        ("prompt", vec![text_block("hi"), JsValue::from_str("loud")]),
        ("respond", vec![JsValue::from_f64(1.0), obj("{\"ok\":true,\"value\":1}")]),
        ("respond", vec![JsValue::from_str("k"), obj("{\"value\":1}")]),
        ("subscribe", vec![JsValue::from_str("not a function")]),
    ] {
        let e = try_call(&s, name, &args).err().unwrap_or_else(|| panic!("{name} should throw"));
        assert_eq!(err_code(&e), "bad-argument", "{name}");
    }
    for args in [vec![JsValue::from_f64(5.0)], vec![JsValue::from_str("")]] {
        assert_eq!(err_code(&try_call(&host, "session", &args).unwrap_err()), "bad-argument");
    }
    // The wasm's `call` (index.js's `call` checks the name and writes the payload text).
    for args in
        [vec![JsValue::from_f64(1.0), JsValue::from_str("{}")], vec![JsValue::from_str("m"), JsValue::UNDEFINED]]
    {
        assert_eq!(err_code(&try_call(&host, "call", &args).unwrap_err()), "bad-argument");
    }
    call(&host, "close", &[]);
    for (target, name, args) in [
        (&host, "call", vec![JsValue::from_str("session.create"), JsValue::from_str("{}")]),
        (&host, "session", vec![JsValue::from_str("abc")]),
        (&s, "open", vec![]),
        (&s, "prompt", vec![text_block("x")]),
        (&s, "setPlanMode", vec![JsValue::TRUE]),
        (&s, "resync", vec![]),
    ] {
        let e = try_call(target, name, &args).err().unwrap_or_else(|| panic!("{name} after close should throw"));
        assert_eq!(err_code(&e), "closed", "{name} after close");
    }
    // Reading state after close stays safe.
    assert_eq!(conn_state(&host), "closed");
    assert!(snap(&s).is_object());
}
