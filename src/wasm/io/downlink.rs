//! WebSocket downlinks: one socket per stream class, each text message one complete frame
//! (the same document an SSE `data:` payload carries). Which carrier a generation uses, and
//! what a refusal means, is decided by the core (`core::client::carrier`); this file only
//! performs it and feeds every socket event to the core as an input.
//!
//! Lifetime: a socket's one event handler (`open`, `message`, `close`, `error`) is a closure
//! owned by its [`Socket`]. Shutting a socket first detaches the handler from the socket,
//! then closes the socket and drops the closure, so no event of an old generation, and none
//! after `close()`, reaches Rust. `WebSocket.close()` dispatches nothing synchronously, so it
//! is safe inside the state borrow.

use super::sink::Sink;
use crate::core::client::downlink::ws_url;
use crate::core::client::hostclient::MAX_MESSAGE_BYTES;
use crate::core::client::{Input, StreamId, StreamKind};
use crate::wasm::js::{self, WebSocket};
use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

const HANDLERS: [&str; 4] = ["onopen", "onmessage", "onclose", "onerror"];

/// One WebSocket downlink and the handler that feeds its events to the core.
pub(crate) struct Socket {
    ws: WebSocket,
    _handler: Closure<dyn FnMut(JsValue)>,
}

impl Socket {
    /// Detaches the handler, then closes the socket: nothing more reaches Rust.
    pub(crate) fn shut(self) {
        for h in HANDLERS {
            js::set(&self.ws, h, &JsValue::NULL);
        }
        self.ws.close();
    }
}

/// A socket event as the core's input, read out of the JS event before the state is borrowed:
/// the facts only (the text, or what kind of message was not copied; the close code). A text
/// message longer than the core reads is left in JS, not copied.
fn read_event(stream: StreamId, ev: &JsValue) -> Input {
    match js::get(ev, "type").as_string().as_deref() {
        Some("open") => Input::StreamOpened { stream },
        Some("message") => {
            let data = js::get(ev, "data");
            match data.dyn_ref::<JsString>() {
                Some(s) if (s.length() as usize) <= MAX_MESSAGE_BYTES => {
                    Input::StreamMessage { stream, text: s.as_string().unwrap_or_default() }
                }
                // Binary, or longer than the core reads: left in JS.
                _ => Input::StreamSkipped { stream },
            }
        }
        Some("close") => {
            let code = js::get(ev, "code").as_f64().unwrap_or(0.0) as u16;
            Input::StreamClosed { stream, code: Some(code) }
        }
        _ => Input::StreamClosed { stream, code: None },
    }
}

/// Opens the WebSocket downlink `kind` (presenting `ticket`) for the core's `stream`, through
/// `make(path, url)` when the entry gave one (an object with a socket's handlers and `close`).
pub(crate) fn connect(
    sink: impl Sink,
    base: &str,
    make: Option<&js_sys::Function>,
    kind: StreamKind,
    ticket: Option<&str>,
    stream: StreamId,
) -> Result<Socket, String> {
    let url = ws_url(base, kind.path(), ticket);
    let ws = match make {
        Some(f) => f.call2(&JsValue::UNDEFINED, &kind.path().into(), &url.into()).map(JsCast::unchecked_into),
        None => WebSocket::new(&url),
    }
    .map_err(|e| js::describe(&e))?;
    js::set(&ws, "binaryType", &"arraybuffer".into());
    let handler = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| sink.feed(read_event(stream, &ev)));
    for h in HANDLERS {
        js::set(&ws, h, handler.as_ref());
    }
    Ok(Socket { ws, _handler: handler })
}
