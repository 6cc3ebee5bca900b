//! Fetch-based transport: unary `POST /api/<path>` calls and streaming SSE bodies. What the
//! carrier saw goes to the core as it is (a body, a status, a failure); the core reads it.

use super::js::{self, AbortController, Reader, Response};
use crate::core::client::Reply;
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
pub async fn unary(ep: &Endpoint, path: &str, body: String, ctrl: AbortController) -> Reply {
    let timed_out = Rc::new(Cell::new(false));
    let timer = {
        let (flag, c) = (timed_out.clone(), ctrl.clone());
        let cb = Closure::once_into_js(move || {
            flag.set(true);
            c.abort();
        });
        js::set_timeout(cb.unchecked_ref(), ep.timeout_ms)
    };
    let reply = unary_inner(ep, path, &body, &ctrl).await;
    js::clear_timeout(&timer);
    match reply {
        Ok(r) => r,
        // Whole milliseconds: formatting an f64 would pull float printing into the module.
        Err(_) if timed_out.get() => Reply::Failed(format!("timed out after {} ms", ep.timeout_ms as u64)),
        Err(e) => Reply::Failed(e),
    }
}

async fn unary_inner(ep: &Endpoint, path: &str, body: &str, ctrl: &AbortController) -> Result<Reply, String> {
    let init = ep.init("POST", Some(body), &ctrl.signal(), false);
    let p = js::fetch(&ep.url(path), &init).map_err(|e| js::describe(&e))?;
    let resp: Response = JsFuture::from(p).await.map_err(|e| js::describe(&e))?.unchecked_into();
    if !resp.ok() {
        return Ok(Reply::Status(resp.status()));
    }
    // The bytes, not `text()`: a history page can be megabytes, and `text()` would decode it
    // to UTF-16 only for the call into wasm to encode it back to UTF-8. Invalid UTF-8 is
    // replaced, as `text()` does.
    let bytes = resp.array_buffer().map_err(|e| js::describe(&e))?;
    let bytes = JsFuture::from(bytes).await.map_err(|e| js::describe(&e))?;
    let bytes = Uint8Array::new(&bytes).to_vec();
    let body = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    Ok(Reply::Body(body))
}

/// Opens a stream. `Ok(reader)` once the host answered 2xx with a body.
pub async fn open_stream(ep: &Endpoint, path: &str, ctrl: &AbortController) -> Result<Reader, String> {
    let init = ep.init("GET", None, &ctrl.signal(), true);
    let p = js::fetch(&ep.url(path), &init).map_err(|e| js::describe(&e))?;
    let resp: Response = JsFuture::from(p).await.map_err(|e| js::describe(&e))?.unchecked_into();
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let body = resp.body().ok_or("no body")?;
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
