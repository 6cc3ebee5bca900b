//! Minimal JS bindings and conversions (hand-bound instead of web-sys to keep the wasm
//! small and the shell usable in windows and workers alike).

use crate::core::wire::{result_text, Json, RpcError};
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/wasm/shell.js")]
extern "C" {
    /// `old[..start] ++ middle ++ old[end..]`, frozen, in one call.
    #[wasm_bindgen(js_name = spliceFrozen)]
    pub fn splice_frozen(old: &JsValue, start: u32, end: u32, middle: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = parseFrozen)]
    fn parse_frozen(text: &str) -> JsValue;
    /// The arrays `parts` joined into one, frozen, in one call.
    #[wasm_bindgen(js_name = joinFrozen)]
    pub fn join_frozen(parts: Vec<JsValue>) -> JsValue;
    /// A readable message from a thrown JS value.
    pub fn describe(e: &JsValue) -> String;
    /// Calls `f` once `signal` aborts (at once if it has).
    #[wasm_bindgen(js_name = onAbort)]
    pub fn on_abort(signal: &JsValue, f: &JsValue);
}

#[wasm_bindgen]
extern "C" {
    /// `Object.freeze` of a whole array in one boundary crossing (the glue builds it from the
    /// handles).
    #[wasm_bindgen(js_namespace = Object, js_name = freeze)]
    fn freeze_array(items: Vec<JsValue>) -> JsValue;

    #[derive(Clone)]
    pub type AbortController;
    #[wasm_bindgen(constructor)]
    pub fn new() -> AbortController;
    #[wasm_bindgen(method)]
    pub fn abort(this: &AbortController);
    #[wasm_bindgen(method, getter)]
    pub fn signal(this: &AbortController) -> JsValue;

    /// Only what the downlinks use; handlers and `binaryType` are set through [`set`].
    #[wasm_bindgen(extends = Object)]
    pub type WebSocket;
    #[wasm_bindgen(constructor, catch)]
    pub fn new(url: &str) -> Result<WebSocket, JsValue>;
    #[wasm_bindgen(method)]
    pub fn close(this: &WebSocket);

    /// A reference that lets its target be collected (resident `Session` objects: the same
    /// object while a page holds it, and nothing kept once it does not).
    pub type WeakRef;
    #[wasm_bindgen(constructor)]
    pub fn new(target: &JsValue) -> WeakRef;
    #[wasm_bindgen(method)]
    pub fn deref(this: &WeakRef) -> JsValue;

    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;

    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(f: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(id: &JsValue);
    #[wasm_bindgen(js_name = queueMicrotask)]
    pub fn queue_microtask(f: &Function);

    #[wasm_bindgen(js_namespace = console, js_name = error)]
    pub fn console_error(v: &JsValue);

    #[wasm_bindgen(js_namespace = JSON, js_name = stringify, catch)]
    fn json_stringify(v: &JsValue) -> Result<JsValue, JsValue>;
}

/// The monotonic clock the core's instants are read from (a wall clock steps; this does not).
pub fn now() -> f64 {
    performance_now()
}

/// An instant of [`now`]'s clock as epoch milliseconds (`Date.now()`'s clock), for the values
/// a UI shows against the wall clock (`retryAt`).
pub fn wall_ms(instant_ms: f64) -> f64 {
    js_sys::Date::now() + (instant_ms - performance_now())
}

pub fn random() -> f64 {
    js_sys::Math::random()
}

/// A JS `Error` with a stable `code` property (programmer errors).
pub fn error(code: &str, message: &str) -> JsValue {
    let e = js_sys::Error::new(message);
    let _ = Reflect::set(&e, &"code".into(), &code.into());
    e.into()
}

pub fn bad_argument(message: &str) -> JsValue {
    error("bad-argument", message)
}

pub fn closed_error() -> JsValue {
    error("closed", "the HostClient was closed")
}

pub fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

pub fn set(obj: &Object, key: &str, v: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), v);
}

/// A frozen plain object from `(key, value)` pairs.
pub fn frozen(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        set(&o, k, v);
    }
    Object::freeze(&o).into()
}

pub fn frozen_array(items: impl Iterator<Item = JsValue>) -> JsValue {
    freeze_array(items.collect())
}

pub fn opt_str(s: Option<&str>) -> JsValue {
    s.map_or(JsValue::NULL, JsValue::from_str)
}

/// Raw JSON as a deeply frozen JS value: `JSON.parse` builds it (faster than any walk from
/// Rust), then one walk freezes every level (a `JSON.parse` reviver does the same, slower).
pub fn json_js(j: &Json) -> JsValue {
    parse_frozen(j.text())
}

/// Any serializable Rust value as a deeply frozen JS value.
pub fn ser_js<T: serde::Serialize>(v: &T) -> JsValue {
    json_js(&Json::from_serialize(v))
}

/// A JS value as raw JSON (through `JSON.stringify`); `None` when it has no JSON form.
pub fn js_json(v: &JsValue) -> Option<Json> {
    if v.is_undefined() {
        return None;
    }
    let s = json_stringify(v).ok()?.as_string()?;
    Json::from_text(&s).ok()
}

pub fn is_function(v: &JsValue) -> Option<Function> {
    v.dyn_ref::<Function>().cloned()
}

/// Creates a promise and hands back its `resolve`.
pub fn promise() -> (Promise, Function) {
    let mut resolve = None;
    let p = Promise::new(&mut |res, _rej| resolve = Some(res));
    // Cannot fail: the Promise executor runs synchronously.
    (p, resolve.unwrap())
}

/// An `RpcResult` as its wire object (not frozen-sensitive: a fresh object per call).
pub fn result_js(r: &Result<Json, RpcError>) -> JsValue {
    json_js(&Json::from_text(&result_text(r)).unwrap_or_default())
}
