//! WebSocket downlinks: one socket per stream class, each text message one complete frame
//! (the same document an SSE `data:` payload carries). Which carrier a generation uses, and
//! what a refusal means, is decided by the core ([`Carriers`]); this file only performs it.
//!
//! Lifetime: a socket's one event handler (`open`, `message`, `close`, `error`) is a closure
//! owned by its [`Downlink`]. Shutting a downlink first detaches the handler from the socket,
//! then closes the socket and drops the closure, so no event of an old generation, and none
//! after `close()`, reaches Rust. `WebSocket.close()` dispatches nothing synchronously, so it
//! is safe inside the state borrow.

use super::inner::{run_weak, Inner, WeakShared};
use super::js::{self, AbortController, WebSocket};
use crate::core::client::downlink::{read_ticket, ws_url, STREAM_TICKET};
use crate::core::client::{Carrier, StreamKind};
use crate::core::sse::DEFAULT_MAX_FRAME;
use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

const HANDLERS: [&str; 4] = ["onopen", "onmessage", "onclose", "onerror"];

/// One WebSocket stream of the live generation: waiting for its ticket, or a socket.
pub(super) struct Downlink {
    id: u64,
    kind: StreamKind,
    opened: bool,
    ticket: Option<AbortController>,
    socket: Option<Socket>,
}

struct Socket {
    ws: WebSocket,
    _handler: Closure<dyn FnMut(JsValue)>,
}

impl Downlink {
    fn shut(self) {
        if let Some(c) = self.ticket {
            c.abort();
        }
        if let Some(s) = self.socket {
            for h in HANDLERS {
                js::set(&s.ws, h, &JsValue::NULL);
            }
            s.ws.close();
        }
    }
}

/// What a socket reported, read out of the JS event before the state is borrowed.
enum SocketEvent {
    Open,
    Text(String),
    /// A binary or oversize message: dropped and counted like a malformed frame.
    Dropped,
    Ended(String),
}

fn read_event(ev: &JsValue) -> SocketEvent {
    match js::get(ev, "type").as_string().as_deref() {
        Some("open") => SocketEvent::Open,
        Some("message") => {
            let data = js::get(ev, "data");
            match data.dyn_ref::<JsString>() {
                Some(s) if (s.length() as usize) <= DEFAULT_MAX_FRAME => match s.as_string() {
                    Some(text) if text.len() <= DEFAULT_MAX_FRAME => SocketEvent::Text(text),
                    _ => SocketEvent::Dropped,
                },
                _ => SocketEvent::Dropped,
            }
        }
        Some("close") => SocketEvent::Ended(format!("closed ({})", js::get(ev, "code").as_f64().unwrap_or(0.0) as u16)),
        _ => SocketEvent::Ended("error".into()),
    }
}

fn connect_socket(weak: WeakShared, url: &str, gen: u64, id: u64) -> Result<Socket, String> {
    let ws = WebSocket::new(url).map_err(|e| js::describe(&e))?;
    js::set(&ws, "binaryType", &"arraybuffer".into());
    let handler = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
        let event = read_event(&ev);
        run_weak(&weak, |inner| inner.on_socket_event(gen, id, event));
    });
    for h in HANDLERS {
        js::set(&ws, h, handler.as_ref());
    }
    Ok(Socket { ws, _handler: handler })
}

impl Inner {
    /// Opens both streams of `gen` as WebSockets (minting a ticket first when there is a token).
    pub(super) fn open_websockets(&mut self, gen: u64) {
        let mut refused = None;
        for kind in [StreamKind::Mux, StreamKind::Host] {
            let id = self.next_id();
            let mut d = Downlink { id, kind, opened: false, ticket: None, socket: None };
            if self.ep.token.is_some() {
                let ctrl = AbortController::new();
                d.ticket = Some(ctrl.clone());
                self.conn_call(
                    STREAM_TICKET,
                    ctrl,
                    Box::new(move |inner, minted| {
                        inner.ticket_minted(gen, id, minted.map_err(|e| e.message).and_then(|v| read_ticket(&v)))
                    }),
                );
            } else {
                match connect_socket(self.me.clone(), &ws_url(&self.ep.base, kind.path(), None), gen, id) {
                    Ok(s) => d.socket = Some(s),
                    Err(e) => refused = Some(format!("{}: {e}", kind.path())),
                }
            }
            self.downlinks.push(d);
        }
        if let Some(e) = refused {
            self.downlink_refused(gen, e);
        }
    }

    fn ticket_minted(&mut self, gen: u64, id: u64, ticket: Result<String, String>) {
        let Some(i) = self.downlinks.iter().position(|d| d.id == id) else { return };
        self.downlinks[i].ticket = None;
        if self.closed || !self.conn.is_current(gen) {
            return;
        }
        let path = self.downlinks[i].kind.path();
        let socket =
            ticket.and_then(|t| connect_socket(self.me.clone(), &ws_url(&self.ep.base, path, Some(&t)), gen, id));
        match socket {
            Ok(s) => self.downlinks[i].socket = Some(s),
            Err(e) => self.downlink_refused(gen, format!("{path}: {e}")),
        }
    }

    fn on_socket_event(&mut self, gen: u64, id: u64, event: SocketEvent) {
        let Some(i) = self.downlinks.iter().position(|d| d.id == id) else { return };
        if self.closed || !self.conn.is_current(gen) {
            return;
        }
        let (kind, opened) = (self.downlinks[i].kind, self.downlinks[i].opened);
        match event {
            SocketEvent::Open => {
                self.downlinks[i].opened = true;
                self.conn.stream_opened(gen, kind);
            }
            SocketEvent::Text(text) => {
                // A `stream/error` frame fails the generation, whose Abort shuts this socket.
                self.on_frame_data(gen, &text);
            }
            SocketEvent::Dropped => self.malformed_frames += 1,
            SocketEvent::Ended(why) if opened => {
                self.conn.failed(gen, format!("{}: websocket {why}", kind.path()), js::now(), js::random())
            }
            SocketEvent::Ended(why) => {
                self.downlink_refused(gen, format!("{}: websocket {why} before open", kind.path()))
            }
        }
    }

    /// A WebSocket of `gen` was refused (closed before it opened, or no ticket): the core says
    /// whether to reopen both streams over SSE in the same generation or to fail it.
    fn downlink_refused(&mut self, gen: u64, error: String) {
        match self.carriers.refused(gen) {
            Some(Carrier::Sse) => {
                self.shut_downlinks();
                self.conn.streams_restarted(gen);
                self.open_sse_streams(gen);
            }
            _ => self.conn.failed(gen, error, js::now(), js::random()),
        }
    }

    pub(super) fn shut_downlinks(&mut self) {
        for d in self.downlinks.drain(..) {
            d.shut();
        }
    }
}
