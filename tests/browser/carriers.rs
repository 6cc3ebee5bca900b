//! Downlink carriers and tokens: the bearer header, `auto` picking WebSocket or SSE, a refused
//! upgrade falling back, and what a WebSocket drops or ends a generation on.

use crate::support::*;

#[wasm_bindgen_test]
async fn a_token_is_sent_as_a_bearer_header() {
    // A second host started with `--token`: only a client that sends the bearer header gets
    // through, for the streams and for unary calls alike. Over WebSocket the streams are
    // authorized by a ticket minted with the token, so reaching `open` proves that path.
    let client = |token: &str| client_of(TOKEN_HOST, TRANSPORT, token);
    let with = client(&format!(",\"token\":\"{TOKEN}\""));
    connected(&with).await;
    let r = wait(call(&with, "call", &["session.list".into(), "{}".into()])).await;
    assert_eq!(get(&r, "ok"), JsValue::TRUE, "{}", json(&r));
    call(&with, "close", &[]);
    for token in [String::new(), ",\"token\":\"wrong\"".to_string()] {
        let without = client(&token);
        let r = wait(call(&without, "call", &["session.list".into(), "{}".into()])).await;
        assert_eq!(get(&r, "ok"), JsValue::FALSE, "refused without the right token: {}", json(&r));
        assert_eq!(path(&r, &["error", "code"]).as_string().as_deref(), Some("internal"), "a 401 is a transport error");
        until("a failed connection attempt", 5_000.0, || conn_state(&without) == "reconnecting").await;
        call(&without, "close", &[]);
    }
}

#[wasm_bindgen_test]
async fn auto_picks_websocket_on_a_websocket_only_host_and_sse_on_an_sse_only_host() {
    for (base, want, sockets) in [(WS_ONLY_HOST, "websocket", 2.0), (SSE_ONLY_HOST, "sse", 0.0)] {
        let h = client_of(base, "auto", "");
        assert!(get(&call(&h, "getSnapshot", &[]), "transport").is_null(), "unknown before the first connection");
        let (generation, attempt) = opened(&h).await;
        assert_eq!(transport(&h).as_deref(), Some(want), "{base}");
        assert_eq!((generation, attempt), (1.0, 0.0), "{want}: the first attempt connected, no backoff");
        assert_eq!(diag(&h, "sockets"), sockets, "{want}: sockets held");
        // Live frames flow on the chosen carrier.
        let id = create(&h).await;
        let s = call(&h, "session", &[id.into()]);
        wait(call(&s, "open", &[])).await;
        prompt_turn(&s, &format!("streamed over {want}")).await;
        // A reconnect stays on the carrier that worked.
        post(&format!("{base}/admin/faults"), "{\"command\":\"drop-streams\"}").await;
        until("reconnected", 10_000.0, || {
            conn_state(&h) == "open" && get(&call(&h, "getSnapshot", &[]), "generation").as_f64() == Some(2.0)
        })
        .await;
        assert_eq!(transport(&h).as_deref(), Some(want), "{want}: kept after a reconnect");
        assert_eq!(diag(&h, "sockets"), sockets, "{want}: the old generation's sockets are gone");
        call(&h, "close", &[]);
        assert_eq!(diag(&h, "sockets"), 0.0);
    }
    // A forced carrier never falls back: SSE cannot reach the WebSocket-only host (426), nor a
    // WebSocket the SSE-only one.
    for (base, forced, error) in [(WS_ONLY_HOST, "sse", "HTTP 426"), (SSE_ONLY_HOST, "websocket", "websocket")] {
        let h = client_of(base, forced, "");
        until("a failed attempt", 5_000.0, || get(&call(&h, "getSnapshot", &[]), "attempt").as_f64() >= Some(1.0))
            .await;
        let c = call(&h, "getSnapshot", &[]);
        assert_ne!(get(&c, "state").as_string().as_deref(), Some("open"));
        assert!(get(&c, "transport").is_null(), "{forced}: nothing established");
        let last = get(&c, "lastError").as_string().unwrap_or_default();
        assert!(last.contains(error), "{forced} on {base}: lastError {last:?}");
        call(&h, "close", &[]);
    }
}

#[wasm_bindgen_test]
async fn a_refused_upgrade_with_a_token_falls_back_to_sse_under_auto_only() {
    // The client mints a ticket per socket; this host refuses every upgrade (its tickets are
    // expired on arrival), while the bearer header still opens SSE streams and unary calls.
    let token = format!(",\"token\":\"{TOKEN}\"");
    let h = client_of(EXPIRED_TICKET_HOST, "auto", &token);
    let (generation, attempt) = opened(&h).await;
    assert_eq!(transport(&h).as_deref(), Some("sse"));
    assert_eq!((generation, attempt), (1.0, 0.0), "fell back within the first attempt");
    assert_eq!(diag(&h, "sockets"), 0.0, "the refused sockets were released");
    call(&h, "close", &[]);
    let h = client_of(EXPIRED_TICKET_HOST, "websocket", &token);
    until("a failed attempt", 5_000.0, || get(&call(&h, "getSnapshot", &[]), "attempt").as_f64() >= Some(1.0)).await;
    let last = get(&call(&h, "getSnapshot", &[]), "lastError").as_string().unwrap_or_default();
    assert!(last.contains("websocket") || last.contains("host.describe"), "lastError {last:?}");
    assert!(transport(&h).is_none());
    call(&h, "close", &[]);
}

/// Wraps the page's `WebSocket` (once) so a test can reach the mux socket the client opened
/// and dispatch messages on it as if the host had sent them.
const MUX_SOCKET_SPY: &str = r#"
if (!globalThis.__muxSockets) {
  const Real = WebSocket
  globalThis.__muxSockets = []
  globalThis.WebSocket = class extends Real {
    constructor(url, protocols) {
      super(url, protocols)
      if (String(url).includes('/api/events.mux')) globalThis.__muxSockets.push(this)
    }
  }
}
"#;

fn last_mux_socket() -> JsValue {
    let all = Array::from(&get(&js_sys::global().into(), "__muxSockets"));
    all.get(all.length().saturating_sub(1))
}

fn dispatch_message(socket: &JsValue, data: &JsValue) {
    let f = Function::new_with_args("s, data", "s.dispatchEvent(new MessageEvent('message', { data }))");
    f.call2(&JsValue::UNDEFINED, socket, data).expect("dispatch");
}

#[wasm_bindgen_test]
async fn websocket_binary_malformed_and_oversize_messages_are_dropped_and_stream_error_ends_the_generation() {
    Function::new_no_args(MUX_SOCKET_SPY).call0(&JsValue::UNDEFINED).expect("spy");
    let h = client_of(HOST, "websocket", "");
    opened(&h).await;
    let socket = last_mux_socket();
    let (frames, malformed) = (diag(&h, "frames"), diag(&h, "malformedFrames"));
    dispatch_message(&socket, &js_sys::ArrayBuffer::new(8).into());
    dispatch_message(&socket, &"not a frame".into());
    let big = Function::new_no_args("return 'x'.repeat(8 * 1024 * 1024 + 1)").call0(&JsValue::UNDEFINED).unwrap();
    dispatch_message(&socket, &big);
    assert_eq!(diag(&h, "malformedFrames"), malformed + 3.0, "binary, unparsable and oversize messages counted");
    assert_eq!(diag(&h, "frames"), frames);
    assert_eq!(conn_state(&h), "open", "dropped messages do not end the generation");
    // A `stream/error` message ends the generation like any stream end: the client closes
    // both sockets itself and reconnects with new ones.
    let stream_error = r#"{"type":"server-request","rpcId":"t-err","method":"stream/error","payload":{"type":"stream/error","error":{"code":"internal","message":"injected","details":{}}}}"#;
    dispatch_message(&socket, &stream_error.into());
    let c = call(&h, "getSnapshot", &[]);
    assert_eq!(get(&c, "state").as_string().as_deref(), Some("reconnecting"));
    assert!(get(&c, "lastError").as_string().unwrap_or_default().contains("injected"));
    assert_eq!(diag(&h, "sockets"), 0.0, "the generation's sockets are released at once");
    assert!(get(&socket, "readyState").as_f64().unwrap() >= 2.0, "the old mux socket is closing or closed");
    until("reconnected", 10_000.0, || conn_state(&h) == "open").await;
    assert_eq!(get(&call(&h, "getSnapshot", &[]), "generation").as_f64(), Some(2.0));
    assert_eq!(diag(&h, "sockets"), 2.0);
    assert!(!last_mux_socket().loose_eq(&socket), "a new mux socket");
    call(&h, "close", &[]);
    assert!(get(&last_mux_socket(), "readyState").as_f64().unwrap() >= 2.0, "close() closes the sockets");
}
