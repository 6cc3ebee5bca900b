//! Fetch-based transport: unary `POST /api/<method>` calls and streaming SSE bodies.
//! Every carrier failure (non-2xx, rpcId mismatch, unparsable body, timeout, network) is
//! folded into `RpcError::transport(..)` (code `internal`).

use super::js::{self, AbortController, Reader, Response};
use crate::core::wire::{parse_unary_response, Json, ResponseForm, RpcError, RpcResult};
use js_sys::{Object, Uint8Array};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

#[derive(Clone)]
pub struct Endpoint {
    pub base: String,
    pub token: Option<String>,
    pub timeout_ms: f64,
}

impl Endpoint {
    pub fn url(&self, path: &str) -> String {
        format!("{}/api/{}", self.base, path)
    }

    fn init(&self, method: &str, body: Option<&str>, signal: &JsValue, sse: bool) -> Object {
        let init = Object::new();
        js::set(&init, "method", &method.into());
        let headers = Object::new();
        if let Some(body) = body {
            js::set(&init, "body", &body.into());
            js::set(&headers, "content-type", &"application/json".into());
        }
        if sse {
            js::set(&headers, "accept", &"text/event-stream".into());
        }
        if let Some(t) = &self.token {
            js::set(&headers, "authorization", &format!("Bearer {t}").into());
        }
        js::set(&init, "headers", &headers);
        js::set(&init, "signal", signal);
        js::set(&init, "cache", &"no-store".into());
        init
    }
}

/// One unary call. `ctrl` aborts it (close, generation end); the timeout aborts it too.
pub async fn unary(
    ep: &Endpoint,
    path: &str,
    body: String,
    form: ResponseForm,
    ctrl: AbortController,
) -> RpcResult<Json> {
    let timed_out = Rc::new(Cell::new(false));
    let timer = {
        let (flag, c) = (timed_out.clone(), ctrl.clone());
        let cb = Closure::once_into_js(move || {
            flag.set(true);
            c.abort();
        });
        js::set_timeout(cb.unchecked_ref(), ep.timeout_ms)
    };
    let result = unary_inner(ep, path, &body, &form, &ctrl).await;
    js::clear_timeout(&timer);
    match result {
        Ok(r) => r,
        Err(e) => {
            let msg = if timed_out.get() {
                // Whole milliseconds: formatting an f64 would pull float printing into the module.
                format!("{path}: timed out after {} ms", ep.timeout_ms as u64)
            } else {
                format!("{path}: {e}")
            };
            Err(RpcError::transport(msg))
        }
    }
}

async fn unary_inner(
    ep: &Endpoint,
    path: &str,
    body: &str,
    form: &ResponseForm,
    ctrl: &AbortController,
) -> Result<RpcResult<Json>, String> {
    let init = ep.init("POST", Some(body), &ctrl.signal(), false);
    let p = js::fetch(&ep.url(path), &init).map_err(|e| js::describe(&e))?;
    let resp: Response = JsFuture::from(p).await.map_err(|e| js::describe(&e))?.unchecked_into();
    if !resp.ok() {
        // Kept typed: the core tells host generations apart by it (404 for a removed method).
        let status = resp.status();
        return Ok(Err(RpcError::carrier_status(status, format!("{path}: HTTP {status}"))));
    }
    let text = resp.text().map_err(|e| js::describe(&e))?;
    let text = JsFuture::from(text).await.map_err(|e| js::describe(&e))?;
    let text = text.as_string().ok_or("body is not text")?;
    Ok(parse_unary_response(&text, form)?)
}

/// Opens a stream. `Ok(reader)` once the host answered 2xx with a body.
pub async fn open_stream(ep: &Endpoint, path: &str, ctrl: &AbortController) -> Result<Reader, String> {
    let init = ep.init("GET", None, &ctrl.signal(), true);
    let p = js::fetch(&ep.url(path), &init).map_err(|e| js::describe(&e))?;
    let resp: Response = JsFuture::from(p).await.map_err(|e| js::describe(&e))?.unchecked_into();
    if !resp.ok() {
        return Err(format!("{path}: HTTP {}", resp.status()));
    }
    let body = resp.body().ok_or_else(|| format!("{path}: no body"))?;
    body.get_reader().map_err(|e| js::describe(&e))
}

/// The next chunk of a stream; `Ok(None)` at its end.
pub async fn read_chunk(reader: &Reader) -> Result<Option<Vec<u8>>, String> {
    let chunk = JsFuture::from(reader.read()).await.map_err(|e| js::describe(&e))?;
    if js::get(&chunk, "done").as_bool().unwrap_or(false) {
        return Ok(None);
    }
    let value: Uint8Array = js::get(&chunk, "value").unchecked_into();
    Ok(Some(value.to_vec()))
}
