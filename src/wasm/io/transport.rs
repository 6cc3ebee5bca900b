//! Fetch-based transport: unary `POST /api/<path>` calls and streaming SSE bodies, performed
//! by `shell.js` (two small async JS functions) and reported here as the core's inputs. What the
//! carrier saw goes to the core as it is (a body, a status, a failure); the core reads it.

use super::sink::Sink;
use crate::core::client::{CallId, Input, Reply, StreamId};
use crate::wasm::config::Endpoint;
use crate::wasm::js::AbortController;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/wasm/shell.js")]
extern "C" {
    #[wasm_bindgen(js_name = unary)]
    fn js_unary(url: &str, body: &str, token: Option<String>, ms: f64, max: f64, ctrl: &AbortController, done: JsValue);
    #[wasm_bindgen(js_name = readSse)]
    fn js_read_sse(url: &str, token: Option<String>, ctrl: &AbortController, feed: JsValue);
}

/// Bytes of a body handed to the core at a time.
const PIECE: u32 = 64 * 1024;

/// Starts one unary call; its outcome is fed to the core as the response to `call`.
/// `ctrl` aborts it (close, generation end); the timeout aborts it too.
pub(crate) fn unary(ep: &Endpoint, sink: impl Sink, call: CallId, path: &str, body: &str, ctrl: &AbortController) {
    let done = Closure::once_into_js(move |status: u32, bytes: JsValue, why: Option<String>| {
        let reply = match why {
            Some(why) => Reply::Failed(why),
            None if status != 0 => Reply::Status(status as u16),
            None => {
                // Bytes, not `text()` (a history page can be megabytes: `text()` would
                // decode it to UTF-16 only to be encoded back), handed over in pieces:
                // the core reads a page as it comes and never holds the whole body, so
                // wasm memory (which never shrinks) is not grown by the body's size.
                let bytes: Uint8Array = bytes.unchecked_into();
                let len = bytes.length();
                let mut at = 0;
                while at < len {
                    let end = len.min(at + PIECE);
                    sink.feed(Input::ResponseBytes { call, bytes: bytes.subarray(at, end).to_vec() });
                    at = end;
                }
                Reply::Body(String::new())
            }
        };
        sink.feed(Input::Response { call, reply });
    });
    js_unary(&ep.url(path), body, ep.token.clone(), ep.timeout_ms, ep.max_response_bytes, ctrl, done);
}

/// Starts reading the SSE body at `path` for the core's `stream` until it ends or the core
/// closes the stream, feeding its opening, every chunk and its end to the core.
pub(crate) fn read_sse(ep: &Endpoint, sink: impl Sink, stream: StreamId, path: &str, ctrl: &AbortController) {
    let feed = Closure::<dyn FnMut(u32, JsValue, Option<String>) -> bool>::new(
        move |what: u32, chunk: JsValue, why: Option<String>| {
            let input = match what {
                0 => Input::StreamOpened { stream },
                1 => Input::StreamBytes { stream, bytes: chunk.unchecked_into::<Uint8Array>().to_vec() },
                _ => Input::StreamEnded { stream, why: why.unwrap_or_default() },
            };
            sink.feed(input);
            sink.reads(stream)
        },
    );
    js_read_sse(&ep.url(path), ep.token.clone(), ctrl, feed.into_js_value());
}
