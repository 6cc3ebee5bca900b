//! Fetch-based transport: unary `POST /api/<path>` calls and streaming SSE bodies, performed
//! by `shell.js` (one small async JS function) and reported here as the core's inputs. What the
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
    #[wasm_bindgen(js_name = request)]
    fn js_request(url: &str, body: Option<String>, token: Option<String>, ctrl: &AbortController, feed: JsValue);
}

/// Bytes of a body handed to the core at a time: a fetch chunk can be megabytes, and the
/// core reads a page as it comes, so wasm memory (which never shrinks) is never grown by
/// more than this for a body.
const PIECE: u32 = 64 * 1024;

/// How `shell.js`'s `request` reports: `(0)` a 2xx answer, `(1, chunk)` a piece of its body,
/// `(2, status, why)` the end; the answer says whether reading goes on.
type Feed = dyn FnMut(u32, JsValue, Option<String>) -> bool;

/// Starts one request; `feed` gets what it reports. `ctrl` aborts it (the core's `Abort` or
/// `CloseStream`: a close, a generation's end, a call's deadline or body bound).
fn request(url: &str, body: Option<String>, ep: &Endpoint, ctrl: &AbortController, feed: Box<Feed>) {
    js_request(url, body, ep.token.clone(), ctrl, Closure::wrap(feed).into_js_value());
}

/// The status `request` reported at the end (0: none).
fn status(arg: &JsValue) -> u16 {
    arg.as_f64().unwrap_or(0.0) as u16
}

/// Each `PIECE` of a fetched chunk, copied into wasm memory (a chunk of one piece, as a
/// streamed frame's usually is, without a view made of it).
fn pieces(chunk: JsValue, mut each: impl FnMut(Vec<u8>)) {
    let bytes: Uint8Array = chunk.unchecked_into();
    let len = bytes.length();
    if len <= PIECE {
        return each(bytes.to_vec());
    }
    let mut at = 0;
    while at < len {
        let end = len.min(at + PIECE);
        each(bytes.subarray(at, end).to_vec());
        at = end;
    }
}

/// Starts one unary call; its body is fed to the core as it arrives, then its outcome as the
/// response to `call`. `ctrl` aborts it when the core gives it up (its deadline and its body
/// bound are the core's: nothing here counts or times).
pub(crate) fn unary(ep: &Endpoint, sink: impl Sink, call: CallId, path: &str, body: &str, ctrl: &AbortController) {
    let feed = move |what: u32, arg: JsValue, why: Option<String>| {
        match (what, why) {
            (0, _) => {}
            (1, _) => pieces(arg, |bytes| sink.feed(Input::ResponseBytes { call, bytes })),
            (_, why) => {
                let reply = match (why, status(&arg)) {
                    (Some(why), _) => Reply::Failed(why),
                    (None, 0) => Reply::Body(String::new()),
                    (None, status) => Reply::Status(status),
                };
                sink.feed(Input::Response { call, reply });
            }
        }
        true
    };
    request(&ep.url(path), Some(body.to_owned()), ep, ctrl, Box::new(feed));
}

/// Starts reading the SSE body at `path` for the core's `stream` until it ends or the core
/// closes the stream, feeding its opening, every chunk and its end to the core.
pub(crate) fn read_sse(ep: &Endpoint, sink: impl Sink, stream: StreamId, path: &str, ctrl: &AbortController) {
    let feed = move |what: u32, arg: JsValue, why: Option<String>| {
        match what {
            0 => sink.feed(Input::StreamOpened { stream }),
            1 => pieces(arg, |bytes| sink.feed(Input::StreamBytes { stream, bytes })),
            _ => {
                let why = match (why, status(&arg)) {
                    (Some(why), _) => why,
                    (None, 0) => "stream ended".to_owned(),
                    // As a `u32`: the `u16` formatter would be code of its own in the module.
                    (None, status) => format!("HTTP {}", u32::from(status)),
                };
                sink.feed(Input::StreamEnded { stream, why })
            }
        }
        sink.reads(stream)
    };
    request(&ep.url(path), None, ep, ctrl, Box::new(feed));
}
