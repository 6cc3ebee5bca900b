//! What every browser test module shares: the hosts `scripts/test-browser.mjs` started
//! (their URLs passed at compile time), reaching the JS objects through their JS surface
//! (`Reflect` calls), waiting, the host's fault and control endpoints, the page guard, and
//! the clients, sessions and snapshots as a UI holds them.

use agent_session::wasm::HostClient;
pub use js_sys::{Array, Function, Object, Promise, Reflect};
pub use std::cell::{Cell, RefCell};
pub use std::rc::Rc;
pub use wasm_bindgen::prelude::*;
pub use wasm_bindgen::JsCast;
pub use wasm_bindgen_futures::JsFuture;
pub use wasm_bindgen_test::*;

pub const HOST: &str = match option_env!("AGENT_SESSION_HOST_URL") {
    Some(u) => u,
    None => "http://127.0.0.1:7878",
};
pub const TOKEN_HOST: &str = match option_env!("AGENT_SESSION_TOKEN_HOST_URL") {
    Some(u) => u,
    None => "http://127.0.0.1:7880",
};
pub const TOKEN: &str = match option_env!("AGENT_SESSION_TOKEN") {
    Some(t) => t,
    None => "browser-test-token",
};
pub const CONTROL: &str = match option_env!("AGENT_SESSION_CONTROL_URL") {
    Some(u) => u,
    None => "http://127.0.0.1:7879",
};
/// The downlink carrier of this pass: `scripts/test-browser.mjs` runs the suite once per carrier.
pub const TRANSPORT: &str = match option_env!("AGENT_SESSION_TRANSPORT") {
    Some(t) => t,
    None => "websocket",
};
/// Hosts started with `--downlinks ws` (426 on a plain GET) and `--downlinks sse`.
pub const WS_ONLY_HOST: &str = match option_env!("AGENT_SESSION_WS_ONLY_HOST_URL") {
    Some(u) => u,
    None => "http://127.0.0.1:7881",
};
pub const SSE_ONLY_HOST: &str = match option_env!("AGENT_SESSION_SSE_ONLY_HOST_URL") {
    Some(u) => u,
    None => "http://127.0.0.1:7882",
};
/// A host speaking the 2026-08 wire (`--wire 2026-08 --downlinks ws --faults`).
pub const UPSTREAM_HOST: &str = match option_env!("AGENT_SESSION_UPSTREAM_HOST_URL") {
    Some(u) => u,
    None => "http://127.0.0.1:7884",
};
/// A `--token` host whose upgrade tickets expire at once (`--ticket-ttl-ms 0`): every upgrade is refused.
pub const EXPIRED_TICKET_HOST: &str = match option_env!("AGENT_SESSION_EXPIRED_TICKET_HOST_URL") {
    Some(u) => u,
    None => "http://127.0.0.1:7883",
};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch)]
    pub fn fetch(url: &str, init: &JsValue) -> Promise;
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify)]
    pub fn stringify(v: &JsValue) -> String;
    #[wasm_bindgen(js_namespace = JSON, js_name = parse)]
    pub fn parse(s: &str) -> JsValue;
}

// ---- helpers ---------------------------------------------------------------------------

pub fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

pub fn path(v: &JsValue, keys: &[&str]) -> JsValue {
    keys.iter().fold(v.clone(), |acc, k| get(&acc, k))
}

pub fn try_call(obj: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = get(obj, name).dyn_into().unwrap_or_else(|_| panic!("no method {name}"));
    let a = Array::new();
    for x in args {
        a.push(x);
    }
    f.apply(obj, &a)
}

pub fn call(obj: &JsValue, name: &str, args: &[JsValue]) -> JsValue {
    try_call(obj, name, args).unwrap_or_else(|e| panic!("{name} threw: {e:?}"))
}

pub async fn wait(p: JsValue) -> JsValue {
    JsFuture::from(Promise::from(p)).await.expect("operation promises never reject")
}

pub async fn sleep(ms: f64) {
    let p = Promise::new(&mut |res, _| {
        let st: Function = get(&js_sys::global().into(), "setTimeout").unchecked_into();
        st.call2(&JsValue::UNDEFINED, &res, &JsValue::from_f64(ms)).unwrap();
    });
    let _ = JsFuture::from(p).await;
}

pub async fn until(what: &str, timeout_ms: f64, mut f: impl FnMut() -> bool) {
    let start = js_sys::Date::now();
    while !f() {
        if js_sys::Date::now() - start > timeout_ms {
            panic!("timed out waiting for: {what}");
        }
        sleep(15.0).await;
    }
}

pub fn json(v: &JsValue) -> String {
    stringify(v)
}

pub fn obj(s: &str) -> JsValue {
    parse(s)
}

pub async fn post(url: &str, body: &str) -> JsValue {
    let init = obj(&format!(
        "{{\"method\":\"POST\",\"headers\":{{\"content-type\":\"application/json\"}},\"body\":{}}}",
        serde_json::to_string(body).unwrap()
    ));
    let resp = JsFuture::from(fetch(url, &init)).await.expect("fetch");
    let text = JsFuture::from(call(&resp, "text", &[]).unchecked_into::<Promise>()).await.unwrap();
    parse(&text.as_string().unwrap_or_default())
}

pub async fn fault(cmd: &str) -> JsValue {
    post(&format!("{HOST}/admin/faults"), cmd).await
}

pub async fn control(action: &str) {
    post(&format!("{CONTROL}/{action}"), "{}").await;
}

/// Records what the page reports (uncaught errors, unhandled rejections, console errors)
/// into `globalThis.__pageErrors`; installed once, by the first client a test makes.
pub const PAGE_GUARD: &str = r#"
if (!globalThis.__pageErrors) {
  const seen = (globalThis.__pageErrors = [])
  addEventListener('unhandledrejection', (e) => seen.push('unhandledrejection: ' + ((e.reason && e.reason.stack) || String(e.reason))))
  addEventListener('error', (e) => seen.push('error: ' + e.message))
  const original = console.error
  console.error = function (...args) { seen.push('console.error: ' + args.map(String).join(' ')); return original.apply(this, args) }
}
"#;

pub fn page_errors() -> Vec<String> {
    Function::new_no_args(PAGE_GUARD).call0(&JsValue::UNDEFINED).expect("page guard");
    let seen = Array::from(&get(&js_sys::global().into(), "__pageErrors"));
    let out = seen.iter().map(|e| e.as_string().unwrap_or_default()).collect();
    seen.set_length(0);
    out
}

/// Fails on anything the page reported since the last check. Every client a test makes
/// checks first, so a rejection left by one test fails the next at the latest.
pub async fn assert_page_clean() {
    // Rejection events fire after the microtask checkpoint that left them unhandled.
    sleep(50.0).await;
    let errors = page_errors();
    assert!(errors.is_empty(), "the page reported errors no test expected: {errors:#?}");
}

/// A client of `base` on `transport` with a short backoff.
pub fn client_of(base: &str, transport: &str, extra: &str) -> JsValue {
    let errors = page_errors();
    assert!(errors.is_empty(), "an earlier test left page errors behind: {errors:#?}");
    let opts = format!(
        "{{\"baseUrl\":\"{base}\",\"transport\":\"{transport}\",\"backoff\":{{\"baseMs\":100,\"maxMs\":400}}{extra}}}"
    );
    JsValue::from(HostClient::new(obj(&opts)).expect("HostClient"))
}

pub fn host_with(extra: &str) -> JsValue {
    client_of(HOST, TRANSPORT, extra)
}

pub fn new_host() -> JsValue {
    host_with("")
}

pub fn conn_state(host: &JsValue) -> String {
    get(&call(host, "getSnapshot", &[]), "state").as_string().unwrap()
}

/// Waits for the connection to open, and checks it opened on this pass's carrier (and, on
/// WebSocket, holds exactly the two sockets of one generation).
pub async fn connected(host: &JsValue) {
    until("connection open", 10_000.0, || conn_state(host) == "open").await;
    assert_eq!(transport(host).as_deref(), Some(TRANSPORT), "the pass's carrier");
    let sockets = if TRANSPORT == "websocket" { 2.0 } else { 0.0 };
    assert_eq!(diag(host, "sockets"), sockets, "downlink sockets held");
}

pub fn transport(host: &JsValue) -> Option<String> {
    get(&call(host, "getSnapshot", &[]), "transport").as_string()
}

pub async fn create(host: &JsValue) -> String {
    // The wasm's `call` as index.js's `createSession` makes it.
    let r = wait(call(host, "call", &[JsValue::from_str("session.create"), JsValue::from_str("{}")])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "createSession: {}", json(&r));
    path(&r, &["value", "sessionId"]).as_string().unwrap()
}

pub fn snap(s: &JsValue) -> JsValue {
    call(s, "getSnapshot", &[])
}

pub fn nodes(s: &JsValue) -> Array {
    get(&snap(s), "nodes").unchecked_into()
}

pub fn node_types(s: &JsValue) -> Vec<String> {
    nodes(s).iter().map(|n| get(&n, "type").as_string().unwrap()).collect()
}

pub fn text_block(t: &str) -> JsValue {
    obj(&format!("[{{\"type\":\"text\",\"text\":{}}}]", serde_json::to_string(t).unwrap()))
}

/// Sends a prompt and waits for its turn to finish (a final assistant node, no partial).
pub async fn prompt_turn(s: &JsValue, text: &str) {
    let before = node_types(s).iter().filter(|t| *t == "assistant").count();
    let r = wait(call(s, "prompt", &[text_block(text)])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "prompt: {}", json(&r));
    until("turn finished", 20_000.0, || {
        let n = node_types(s).iter().filter(|t| *t == "assistant").count();
        n > before && get(&snap(s), "partial").is_null()
    })
    .await;
}

pub fn diag(s: &JsValue, key: &str) -> f64 {
    get(&call(s, "diagnostics", &[]), key).as_f64().unwrap()
}

pub fn err_code(e: &JsValue) -> String {
    assert!(e.is_instance_of::<js_sys::Error>(), "thrown value is an Error");
    get(e, "code").as_string().unwrap_or_default()
}

/// An independent view of the host's log: a fresh client's open.
pub async fn host_truth(id: &str) -> (f64, Vec<String>) {
    let h = new_host();
    let s = call(&h, "session", &[id.into()]);
    wait(call(&s, "open", &[])).await;
    let tail = get(&snap(&s), "tailSeq").as_f64().unwrap();
    let types = node_types(&s);
    call(&h, "close", &[]);
    (tail, types)
}

// ---- sessions as a UI holds them ----------------------------------------------------

/// Subscribes a listener that does nothing, as a UI showing the session does: a watched
/// session stays resident and is resynced by reconnects (docs/API.md, session lifecycle).
pub fn watch(s: &JsValue) {
    let listener: JsValue = Closure::<dyn FnMut()>::new(|| {}).into_js_value();
    call(s, "subscribe", &[listener]);
}

// ---- connections ---------------------------------------------------------------------

/// Waits until `host` is open and returns (generation, attempt) at that moment.
pub async fn opened(host: &JsValue) -> (f64, f64) {
    until("connection open", 10_000.0, || conn_state(host) == "open").await;
    let c = call(host, "getSnapshot", &[]);
    (get(&c, "generation").as_f64().unwrap(), get(&c, "attempt").as_f64().unwrap())
}

// ---- the live session list (host.getSessions) -----------------------------------------

pub fn list_items(host: &JsValue) -> Vec<JsValue> {
    let items: Array = get(&call(host, "getSessions", &[]), "items").unchecked_into();
    items.iter().collect()
}

pub fn list_item(host: &JsValue, id: &str) -> Option<JsValue> {
    list_items(host).into_iter().find(|i| get(i, "sessionId").as_string().as_deref() == Some(id))
}
