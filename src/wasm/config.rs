//! `HostClient` constructor options: where the host is (the [`Endpoint`] the I/O uses) and
//! the core's [`Config`]. Read once, at construction; the request timeout's and the body
//! bound's defaults are the core's ([`DEFAULT_TIMEOUT_MS`], [`DEFAULT_MAX_RESPONSE_BYTES`]).

use super::js;
use crate::core::client::hostclient::{DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS};
use crate::core::client::{Backoff, Carrier, Config, Retention, Transport};
use std::sync::atomic::{AtomicBool, Ordering};
use wasm_bindgen::prelude::*;

/// Where and how the fetch I/O reaches the host.
#[derive(Clone)]
pub(crate) struct Endpoint {
    /// The origin and path prefix, without a trailing slash.
    pub(crate) base: String,
    pub(crate) token: Option<String>,
    /// The client connects at construction: where there is a DOM (a page, jsdom, happy-dom).
    /// Without one (Node, a server render) it connects at its first `subscribe` or operation,
    /// so a render that only reads snapshots never connects.
    pub(crate) eager: bool,
    /// The entry's `__socket(path, url)`: makes each WebSocket downlink (the many-tabs layer
    /// lends one tab's sockets to the others); `new WebSocket(url)` without it.
    pub(crate) socket: Option<js_sys::Function>,
    /// The entry's `__store(session)`: called before the listeners of every session that
    /// changed whose `Session` object the page holds (the local cache composes through it: it
    /// reads the snapshot, paints a loading one with `__cache`, writes what the host confirmed).
    pub(crate) store: Option<js_sys::Function>,
    /// The entry's `__frames(text)`: handed each frame of a type the core does not read
    /// (`host.workspaces()` composes through it), before the listeners.
    pub(crate) frames: Option<js_sys::Function>,
}

impl Endpoint {
    /// `POST` / `GET` address of `/api/<path>`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}/api/{}", self.base, path)
    }
}

fn positive(opts: &JsValue, key: &str) -> Result<Option<f64>, JsValue> {
    let v = js::get(opts, key);
    if v.is_undefined() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
        _ => Err(js::bad_argument(&format!("{key} must be a non-negative finite number"))),
    }
}

/// Set by the Node entry (`node.js`) under jsdom or happy-dom: their WebSockets and events do
/// not work with Node's own `fetch` and `AbortSignal` (uncaught errors, then a late fallback).
/// Told by the entry that knows where it runs, so a browser's module carries no such check.
static SIMULATED_DOM: AtomicBool = AtomicBool::new(false);

/// The Node entry's word that the page is simulated (jsdom, happy-dom): `'auto'` takes SSE.
#[wasm_bindgen(js_name = __simulatedDom)]
pub fn simulated_dom() {
    SIMULATED_DOM.store(true, Ordering::Relaxed);
}

/// The `transport` option, checked, with what `'auto'` means where the client runs: SSE at
/// once where no WebSocket works (none at all, as in Node 20, or a simulated page's).
fn transport(option: &JsValue) -> Result<Transport, JsValue> {
    let global: JsValue = js_sys::global().into();
    let sockets = js::is_function(&js::get(&global, "WebSocket")).is_some();
    let simulated = SIMULATED_DOM.load(Ordering::Relaxed);
    let named = if option.is_undefined() {
        Some(Transport::Auto)
    } else {
        option.as_string().and_then(|t| Transport::parse(&t))
    };
    match named {
        Some(Transport::Auto) if !sockets || simulated => Ok(Transport::Only(Carrier::Sse)),
        // Without a WebSocket a forced one would be retried forever.
        Some(Transport::Only(Carrier::WebSocket)) if !sockets => {
            Err(js::bad_argument("transport 'websocket' needs a global WebSocket"))
        }
        Some(t) => Ok(t),
        None => Err(js::bad_argument("transport must be 'auto', 'websocket' or 'sse'")),
    }
}

/// The options object of `new HostClient(options)`, checked; a bad one is a `bad-argument` error.
pub(crate) fn parse_options(opts: &JsValue) -> Result<(Endpoint, Config), JsValue> {
    if !(opts.is_undefined() || opts.is_null() || opts.is_object()) {
        return Err(js::bad_argument("HostClient options must be an object"));
    }
    let opts = if opts.is_object() { opts.clone() } else { js_sys::Object::new().into() };
    let base = js::get(&opts, "baseUrl");
    let mut base = if base.is_undefined() {
        js::get(&js::get(&js_sys::global().into(), "location"), "origin")
            .as_string()
            .ok_or_else(|| js::bad_argument("baseUrl is required outside a page (no location.origin)"))?
    } else {
        base.as_string().ok_or_else(|| js::bad_argument("baseUrl must be a string"))?
    };
    // Trailing slashes go (paths are joined with `/api/`).
    while base.ends_with('/') {
        base.pop();
    }
    let token = js::get(&opts, "token");
    let token = if token.is_undefined() || token.is_null() {
        None
    } else {
        Some(token.as_string().ok_or_else(|| js::bad_argument("token must be a string"))?)
    };
    let timeout_ms = positive(&opts, "requestTimeoutMs")?.unwrap_or(DEFAULT_TIMEOUT_MS);
    // A fractional bound is the whole bytes below it (a body is over 1.5 bytes when over 1).
    let max_response_bytes = positive(&opts, "maxResponseBytes")?.map_or(DEFAULT_MAX_RESPONSE_BYTES, |n| n as u64);
    let mut backoff = Backoff::default();
    let b = js::get(&opts, "backoff");
    if !b.is_undefined() {
        if !b.is_object() {
            return Err(js::bad_argument("backoff must be an object"));
        }
        if let Some(v) = positive(&b, "baseMs")? {
            backoff.base_ms = v;
        }
        if let Some(v) = positive(&b, "maxMs")? {
            backoff.max_ms = v;
        }
    }
    let transport = transport(&js::get(&opts, "transport"))?;
    // The local cache is the entry's (`cache.js`): `cache` is on when truthy, and its bound,
    // when it is an object, is checked here with the other numbers.
    positive(&js::get(&opts, "cache"), "maxBytes")?;
    let mut retention = Retention::default();
    if let Some(n) = positive(&opts, "keepWarm")? {
        if n.fract() != 0.0 {
            return Err(js::bad_argument("keepWarm must be a non-negative integer"));
        }
        retention.keep_warm = n as usize;
    }
    if let Some(ms) = positive(&opts, "releaseAfterMs")? {
        retention.release_after_ms = ms;
    }
    let zone = js::get(&opts, "clientTimeZone");
    if !(zone.is_string() || zone.is_null() || zone.is_undefined()) {
        return Err(js::bad_argument("clientTimeZone must be a string or null"));
    }
    let seed = (js::random() * 4_294_967_296.0) as u64;
    let cfg = Config {
        transport,
        backoff,
        connect_timeout_ms: timeout_ms,
        request_timeout_ms: timeout_ms,
        max_response_bytes,
        authenticated: token.is_some(),
        rpc_prefix: format!("c{seed}-"),
        client_time_zone: zone.as_string(),
        seed: seed ^ ((js::random() * 4_294_967_296.0) as u64) << 32,
        retention,
    };
    let socket = js::is_function(&js::get(&opts, "__socket"));
    let store = js::is_function(&js::get(&opts, "__store"));
    let frames = js::is_function(&js::get(&opts, "__frames"));
    let eager = !js::get(&js_sys::global().into(), "document").is_undefined();
    Ok((Endpoint { base, token, eager, socket, store, frames }, cfg))
}
