//! The shared state behind `HostClient` and `Session`: the driver that runs the core's
//! connection controller, router and sessions, performs their effects, and batches what
//! must reach JS.
//!
//! Re-entrancy discipline: every entry point mutates the shared state inside one
//! `RefCell` borrow, queues what must reach JS (promise resolutions, listener calls), releases
//! the borrow, and only then calls into JS. Listeners run from a microtask, at most once per
//! microtask per object, so calling any method from a listener is safe.

use super::downlink::Downlink;
use super::export::{result_js, ConnExport, SessionExport};
use super::js::{self, AbortController};
use super::transport::{self, Endpoint};
use crate::core::client::{Carrier, Carriers, ConnCommand, Connection, Router, StreamKind};
use crate::core::session::{Call, Effect, OpId, Outcome, ReqId, WakeToken};
use crate::core::sse::{SseItem, SseParser};
use crate::core::vecmap::VecMap;
use crate::core::wire::{self, parse_frame, ErrorCode, Frame, Json, ResponseForm, RpcError, RpcResult};
use js_sys::{Function, Promise};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

pub(super) type Shared = Rc<RefCell<Inner>>;
pub(super) type WeakShared = Weak<RefCell<Inner>>;
pub(super) type ConnCallback = Box<dyn FnOnce(&mut Inner, RpcResult<Json>)>;

pub(super) enum Waiter {
    /// `open()` / `loadOlder()`: resolves with `undefined`.
    Void(Function),
    /// Resolves with an `RpcResult`.
    Result(Function),
    /// `respond()`: resolves with a receipt.
    Receipt(Function),
}

#[derive(Default)]
pub(super) struct Listeners {
    pub(super) items: Vec<(u64, Function)>,
}

pub(super) struct Inner {
    pub(super) me: WeakShared,
    pub(super) ep: Endpoint,
    pub(super) conn: Connection,
    pub(super) carriers: Carriers,
    pub(super) router: Router,
    pub(super) closed: bool,
    pub(super) rpc_prefix: String,
    pub(super) next_id: u64,
    /// Abort controllers of the live connection generation (SSE streams + describe).
    pub(super) gen_aborts: Vec<AbortController>,
    /// The live generation's WebSocket downlinks.
    pub(super) downlinks: Vec<Downlink>,
    /// Abort controllers of in-flight unary calls, by call id.
    pub(super) unary_aborts: VecMap<u64, AbortController>,
    pub(super) timer: Option<JsValue>,
    pub(super) timer_at: Option<f64>,
    /// Wake-ups sessions asked for: (session, token, due epoch ms). They share the one timer.
    pub(super) session_wakes: Vec<(String, WakeToken, f64)>,
    /// JS-owned callbacks (they hold only a weak reference, so a queued timer or microtask
    /// that fires after the client is gone is a no-op).
    pub(super) timer_cb: Option<Function>,
    pub(super) microtask_cb: Option<Function>,
    pub(super) microtask_queued: bool,
    pub(super) session_ops: VecMap<(String, OpId), Waiter>,
    pub(super) host_ops: VecMap<u64, Function>,
    pub(super) session_objs: VecMap<String, JsValue>,
    pub(super) exports: VecMap<String, SessionExport>,
    pub(super) conn_export: ConnExport,
    pub(super) host_listeners: Listeners,
    pub(super) session_listeners: VecMap<String, Listeners>,
    pub(super) notify_host: bool,
    pub(super) notify_sessions: Vec<String>,
    /// JS calls to make once the borrow is released.
    pub(super) deferred: Vec<(Function, JsValue)>,
    pub(super) malformed_frames: u64,
    pub(super) frames: u64,
    /// The live session list (`getSessions()`) and its export cache.
    pub(super) sessions: crate::core::client::SessionList,
    pub(super) sessions_export: super::sessions::ListExport,
}

/// Runs `f` on the shared state, then pumps effects, releases the borrow, and makes the
/// queued JS calls.
pub(super) fn run<R>(shared: &Shared, f: impl FnOnce(&mut Inner) -> R) -> R {
    let (r, deferred) = {
        let mut g = shared.borrow_mut();
        let r = f(&mut g);
        g.pump();
        (r, std::mem::take(&mut g.deferred))
    };
    for (func, arg) in deferred {
        let _ = func.call1(&JsValue::UNDEFINED, &arg);
    }
    r
}

pub(super) fn run_weak(weak: &WeakShared, f: impl FnOnce(&mut Inner)) {
    if let Some(shared) = weak.upgrade() {
        run(&shared, f);
    }
}

impl Inner {
    pub(super) fn mint_rpc(&mut self) -> String {
        self.next_id += 1;
        format!("{}{}", self.rpc_prefix, self.next_id)
    }

    pub(super) fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Drains the controller's commands and every session's effects until quiet, then
    /// re-arms the timer and schedules the listener microtask.
    pub(super) fn pump(&mut self) {
        loop {
            let mut progressed = false;
            while let Some(cmd) = self.conn.poll_command() {
                progressed = true;
                self.on_conn_command(cmd);
            }
            let mut effects = Vec::new();
            for (id, s) in self.router.sessions_mut() {
                while let Some(e) = s.poll_effect() {
                    effects.push((id.clone(), e));
                }
            }
            for (id, e) in effects {
                progressed = true;
                self.on_session_effect(id, e);
            }
            if !progressed {
                break;
            }
        }
        self.arm_timer();
        if (self.notify_host || !self.notify_sessions.is_empty()) && !self.microtask_queued {
            if let Some(cb) = &self.microtask_cb {
                self.microtask_queued = true;
                js::queue_microtask(cb);
            }
        }
    }

    /// The timer fired: hands every due wake-up back to its session.
    pub(super) fn fire_wakes(&mut self, now: f64) {
        let (due, later) = std::mem::take(&mut self.session_wakes).into_iter().partition(|w| w.2 <= now);
        self.session_wakes = later;
        for (id, token, _) in due {
            if let Some(s) = self.router.get_mut(&id) {
                s.on_wake(token);
            }
        }
    }

    pub(super) fn arm_timer(&mut self) {
        let wake = self.session_wakes.iter().map(|w| w.2).reduce(f64::min);
        let want = if self.closed {
            None
        } else {
            match (self.conn.deadline(), wake) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        };
        if want == self.timer_at && (want.is_none() || self.timer.is_some()) {
            return;
        }
        if let Some(t) = self.timer.take() {
            js::clear_timeout(&t);
        }
        self.timer_at = want;
        if let (Some(at), Some(cb)) = (want, &self.timer_cb) {
            let ms = (at - js::now()).max(0.0);
            self.timer = Some(js::set_timeout(cb, ms + 1.0));
        }
    }

    pub(super) fn on_conn_command(&mut self, cmd: ConnCommand) {
        match cmd {
            ConnCommand::Connect { gen } => {
                self.sessions.begin(gen);
                self.connect(gen)
            }
            ConnCommand::Abort { .. } => {
                for c in self.gen_aborts.drain(..) {
                    c.abort();
                }
                self.shut_downlinks();
            }
            ConnCommand::Established { gen, .. } => {
                self.carriers.established(gen);
                self.seed_sessions(gen);
                for id in self.router.established(gen) {
                    self.notify_session(id);
                }
            }
            ConnCommand::Lost { gen } => {
                self.carriers.ended(gen);
                self.router.connection_lost()
            }
            ConnCommand::Changed => self.notify_host = true,
        }
    }

    /// Starts generation `gen`: both streams on the carrier the core picks, and `describe`.
    pub(super) fn connect(&mut self, gen: u64) {
        match self.carriers.start(gen) {
            Carrier::WebSocket => self.open_websockets(gen),
            Carrier::Sse => self.open_sse_streams(gen),
        }
        let ctrl = AbortController::new();
        self.gen_aborts.push(ctrl.clone());
        self.conn_call(
            wire::HOST_DESCRIBE,
            ctrl,
            Box::new(move |inner, result| match result.and_then(|v| checked(wire::HOST_DESCRIBE, v)) {
                Ok(_) => inner.conn.described(gen),
                Err(e) => {
                    inner.conn.failed(gen, format!("host.describe failed: {}", e.message), js::now(), js::random())
                }
            }),
        );
    }

    /// A connection-level unary call (`host.describe`, `stream.ticket`; payload `{}`) whose
    /// result goes to `then` on the shared state. One call site for both keeps one copy of the
    /// call's future in the wasm.
    pub(super) fn conn_call(&mut self, method: &'static str, ctrl: AbortController, then: ConnCallback) {
        let rpc = self.mint_rpc();
        let body = request_body(&rpc, method, &Json::empty_object());
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        spawn_local(async move {
            let result = transport::unary(&ep, method, body, ResponseForm::Envelope { rpc_id: rpc }, ctrl).await;
            run_weak(&weak, |inner| then(inner, result));
        });
    }

    pub(super) fn open_sse_streams(&mut self, gen: u64) {
        for kind in [StreamKind::Mux, StreamKind::Host] {
            let ctrl = AbortController::new();
            self.gen_aborts.push(ctrl.clone());
            let (weak, ep) = (self.me.clone(), self.ep.clone());
            spawn_local(async move { run_stream(weak, ep, gen, kind, ctrl).await });
        }
    }

    pub(super) fn on_session_effect(&mut self, id: String, e: Effect) {
        match e {
            Effect::Send { req, call } => self.send_session_call(id, req, call),
            Effect::Settle { op, outcome } => {
                if let Some(w) = self.session_ops.remove(&(id, op)) {
                    self.deferred.push(settle_value(w, outcome));
                }
            }
            Effect::Changed => {
                self.exports.get_or_insert_with(id.as_str(), SessionExport::default).changes += 1;
                self.notify_session(id);
            }
            Effect::Wake { token, after_ms } => self.session_wakes.push((id, token, js::now() + f64::from(after_ms))),
        }
    }

    /// Marks a session's listeners for the next microtask (once per session).
    pub(super) fn notify_session(&mut self, id: String) {
        if !self.notify_sessions.contains(&id) {
            self.notify_sessions.push(id);
        }
    }

    pub(super) fn send_session_call(&mut self, id: String, req: ReqId, call: Call) {
        if self.closed {
            return;
        }
        let rpc = self.mint_rpc();
        let body = call.body(&id, &rpc);
        let form = call.response_form(&rpc);
        let path = call.path();
        let ctrl = AbortController::new();
        let call_id = self.next_id();
        self.unary_aborts.insert(call_id, ctrl.clone());
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        spawn_local(async move {
            let result = transport::unary(&ep, path, body, form, ctrl).await;
            run_weak(&weak, |inner| {
                inner.unary_aborts.remove(&call_id);
                if inner.closed {
                    return;
                }
                if let Some(s) = inner.router.get_mut(&id) {
                    s.on_response(req, result);
                }
            });
        });
    }

    /// A host-level unary call (`describe`, `list`, `create`) resolving an `RpcResult`.
    pub(super) fn host_call(&mut self, method: &'static str, payload: Json) -> Promise {
        let (promise, resolve) = js::promise();
        let op = self.next_id();
        self.host_ops.insert(op, resolve);
        let rpc = self.mint_rpc();
        let body = request_body(&rpc, method, &payload);
        let ctrl = AbortController::new();
        self.unary_aborts.insert(op, ctrl.clone());
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        spawn_local(async move {
            let result = transport::unary(&ep, method, body, ResponseForm::Envelope { rpc_id: rpc }, ctrl).await;
            let result = result.and_then(|v| checked(method, v));
            run_weak(&weak, |inner| {
                inner.unary_aborts.remove(&op);
                if let Some(resolve) = inner.host_ops.remove(&op) {
                    inner.deferred.push((resolve, result_js(&result)));
                }
            });
        });
        promise
    }

    /// Frames of one network chunk. Returns false when the stream must stop reading.
    pub(super) fn on_stream_items(&mut self, gen: u64, items: Vec<SseItem>) -> bool {
        if self.closed || !self.conn.is_current(gen) {
            return false;
        }
        for item in items {
            match item {
                SseItem::Comment(_) => {}
                SseItem::Oversize(_) => self.malformed_frames += 1,
                SseItem::Data(data) => {
                    if !self.on_frame_data(gen, &data) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// One frame document of generation `gen`, from either carrier. Returns false when it
    /// ended the generation (`stream/error`).
    pub(super) fn on_frame_data(&mut self, gen: u64, data: &str) -> bool {
        match parse_frame(data) {
            Ok(inbound) => {
                self.frames += 1;
                if let Frame::StreamError(f) = &inbound.frame {
                    let msg = format!("stream/error: {}", f.error.text());
                    self.conn.failed(gen, msg, js::now(), js::random());
                    return false;
                }
                self.notify_host |= self.sessions.on_frame(&inbound.frame);
                self.router.on_frame(inbound);
            }
            Err(_) => self.malformed_frames += 1,
        }
        true
    }

    pub(super) fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.conn.close();
        for (_, c) in self.unary_aborts.drain() {
            c.abort();
        }
        for (_, s) in self.router.sessions_mut() {
            s.close();
        }
        let cancelled = RpcError::with_details(ErrorCode::Cancelled, "HostClient closed", Json::empty_object());
        for (_, resolve) in self.host_ops.drain() {
            self.deferred.push((resolve, result_js(&Err(cancelled.clone()))));
        }
        self.pump();
        for c in self.gen_aborts.drain(..) {
            c.abort();
        }
        self.shut_downlinks();
        if let Some(t) = self.timer.take() {
            js::clear_timeout(&t);
        }
        self.timer_at = None;
        self.session_wakes.clear();
        // Break the Inner → Session object → Inner cycle.
        self.session_objs.clear();
        self.notify_host = true;
    }
}

pub(super) fn request_body(rpc: &str, method: &str, payload: &Json) -> String {
    wire::client_request_text(rpc, method, payload)
}

pub(super) fn checked(method: &str, v: Json) -> RpcResult<Json> {
    wire::validate_value(method, &v).map_err(|e| crate::core::session::io::schema_error(method, e))?;
    Ok(v)
}

pub(super) fn settle_value(w: Waiter, outcome: Outcome) -> (Function, JsValue) {
    match (w, outcome) {
        (Waiter::Void(f), _) => (f, JsValue::UNDEFINED),
        (Waiter::Result(f), Outcome::Result(r)) => (f, result_js(&r)),
        (Waiter::Result(f), Outcome::Done) => (f, result_js(&Ok(Json::null()))),
        (Waiter::Receipt(f), Outcome::Result(Ok(v))) => (f, js::json_js(&v)),
        (Waiter::Receipt(f), Outcome::Result(Err(e))) => {
            let error = Json::from_serialize(&e);
            let receipt = format!(r#"{{"accepted":false,"reason":"transport","error":{}}}"#, error.text());
            (f, js::json_js(&Json::from_text(&receipt).unwrap_or_default()))
        }
        (Waiter::Receipt(f), Outcome::Done) => {
            (f, js::json_js(&Json::from_text(r#"{"accepted":false,"reason":"transport"}"#).unwrap_or_default()))
        }
    }
}

pub(super) async fn run_stream(weak: WeakShared, ep: Endpoint, gen: u64, kind: StreamKind, ctrl: AbortController) {
    let err = stream_body(&weak, &ep, gen, kind, &ctrl).await;
    if let Some(err) = err {
        run_weak(&weak, |inner| inner.conn.failed(gen, err, js::now(), js::random()));
    }
}

/// Reads one stream until it ends; returns why it ended (`None` when told to stop).
pub(super) async fn stream_body(
    weak: &WeakShared,
    ep: &Endpoint,
    gen: u64,
    kind: StreamKind,
    ctrl: &AbortController,
) -> Option<String> {
    let reader = match transport::open_stream(ep, kind.path(), ctrl).await {
        Ok(r) => r,
        Err(e) => return Some(e),
    };
    let mut alive = false;
    run_weak(weak, |inner| {
        alive = !inner.closed && inner.conn.is_current(gen);
        if alive {
            inner.conn.stream_opened(gen, kind);
        }
    });
    if !alive {
        reader.cancel();
        return None;
    }
    let mut parser = SseParser::default();
    loop {
        match transport::read_chunk(&reader).await {
            Err(e) => return Some(format!("{}: {e}", kind.path())),
            Ok(None) => return Some(format!("{}: stream ended", kind.path())),
            Ok(Some(bytes)) => {
                let mut items = Vec::new();
                parser.push(&bytes, &mut items);
                if items.is_empty() {
                    continue;
                }
                let mut keep = false;
                run_weak(weak, |inner| keep = inner.on_stream_items(gen, items));
                if !keep {
                    reader.cancel();
                    ctrl.abort();
                    return None;
                }
            }
        }
    }
}

pub(super) fn make_unsubscribe(weak: WeakShared, session: Option<String>, id: u64) -> JsValue {
    let cb = Closure::<dyn FnMut()>::new(move || {
        if let Some(shared) = weak.upgrade() {
            let mut g = shared.borrow_mut();
            let list = match &session {
                None => Some(&mut g.host_listeners),
                Some(s) => g.session_listeners.get_mut(s),
            };
            if let Some(l) = list {
                l.items.retain(|(i, _)| *i != id);
            }
        }
    });
    cb.into_js_value()
}

pub(super) fn flush_listeners(weak: &WeakShared) {
    let Some(shared) = weak.upgrade() else { return };
    let calls: Vec<Function> = {
        let mut g = shared.borrow_mut();
        g.microtask_queued = false;
        let mut calls = Vec::new();
        if std::mem::take(&mut g.notify_host) {
            calls.extend(g.host_listeners.items.iter().map(|(_, f)| f.clone()));
        }
        for id in std::mem::take(&mut g.notify_sessions) {
            if let Some(l) = g.session_listeners.get(&id) {
                calls.extend(l.items.iter().map(|(_, f)| f.clone()));
            }
        }
        if g.closed {
            // The final notification is out: release every listener.
            g.host_listeners.items.clear();
            g.session_listeners.clear();
        }
        calls
    };
    for f in calls {
        if let Err(e) = f.call0(&JsValue::UNDEFINED) {
            js::console_error(&e);
        }
    }
}
