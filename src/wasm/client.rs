//! `HostClient` and `Session`: the JS classes. They only drive the core: the connection
//! controller and router (`core::client`) and the session state machines (`core::session`).
//!
//! Re-entrancy discipline: every entry point mutates the shared state inside one
//! `RefCell` borrow, queues what must reach JS (promise resolutions, listener calls), releases
//! the borrow, and only then calls into JS. Listeners run from a microtask, at most once per
//! microtask per object, so calling any method from a listener is safe.

use super::export::{result_js, ConnExport, SessionExport};
use super::js::{self, AbortController};
use super::transport::{self, Endpoint};
use crate::core::client::{Backoff, ConnCommand, Connection, Router, StreamKind};
use crate::core::session::{Call, Effect, OpId, Outcome, ReqId};
use crate::core::sse::{SseItem, SseParser};
use crate::core::wire::{self, parse_frame, ErrorCode, Frame, Json, PromptMode, RpcError, RpcResult};
use js_sys::{Function, Promise};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;

type Shared = Rc<RefCell<Inner>>;
type WeakShared = Weak<RefCell<Inner>>;

enum Waiter {
    /// `open()` / `loadOlder()`: resolves with `undefined`.
    Void(Function),
    /// Resolves with an `RpcResult`.
    Result(Function),
    /// `respond()`: resolves with a receipt.
    Receipt(Function),
}

#[derive(Default)]
struct Listeners {
    items: Vec<(u64, Function)>,
}

struct Inner {
    me: WeakShared,
    ep: Endpoint,
    conn: Connection,
    router: Router,
    closed: bool,
    rpc_prefix: String,
    next_id: u64,
    /// Abort controllers of the live connection generation (streams + describe).
    gen_aborts: Vec<AbortController>,
    /// Abort controllers of in-flight unary calls, by call id.
    unary_aborts: HashMap<u64, AbortController>,
    timer: Option<JsValue>,
    timer_at: Option<f64>,
    /// JS-owned callbacks (they hold only a weak reference, so a queued timer or microtask
    /// that fires after the client is gone is a no-op).
    timer_cb: Option<Function>,
    microtask_cb: Option<Function>,
    microtask_queued: bool,
    session_ops: HashMap<(String, OpId), Waiter>,
    host_ops: HashMap<u64, Function>,
    session_objs: HashMap<String, JsValue>,
    exports: HashMap<String, SessionExport>,
    conn_export: ConnExport,
    host_listeners: Listeners,
    session_listeners: HashMap<String, Listeners>,
    notify_host: bool,
    notify_sessions: BTreeSet<String>,
    /// JS calls to make once the borrow is released.
    deferred: Vec<(Function, JsValue)>,
    malformed_frames: u64,
    frames: u64,
}

/// Runs `f` on the shared state, then pumps effects, releases the borrow, and makes the
/// queued JS calls.
fn run<R>(shared: &Shared, f: impl FnOnce(&mut Inner) -> R) -> R {
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

fn run_weak(weak: &WeakShared, f: impl FnOnce(&mut Inner)) {
    if let Some(shared) = weak.upgrade() {
        run(&shared, f);
    }
}

impl Inner {
    fn mint_rpc(&mut self) -> String {
        self.next_id += 1;
        format!("{}{}", self.rpc_prefix, self.next_id)
    }

    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Drains the controller's commands and every session's effects until quiet, then
    /// re-arms the timer and schedules the listener microtask.
    fn pump(&mut self) {
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

    fn arm_timer(&mut self) {
        let want = if self.closed { None } else { self.conn.deadline() };
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

    fn on_conn_command(&mut self, cmd: ConnCommand) {
        match cmd {
            ConnCommand::Connect { gen } => self.connect(gen),
            ConnCommand::Abort { .. } => {
                for c in self.gen_aborts.drain(..) {
                    c.abort();
                }
            }
            ConnCommand::Established { gen, .. } => {
                for id in self.router.established(gen) {
                    self.notify_sessions.insert(id);
                }
            }
            ConnCommand::Lost { .. } => self.router.connection_lost(),
            ConnCommand::Changed => self.notify_host = true,
        }
    }

    fn connect(&mut self, gen: u64) {
        for kind in [StreamKind::Mux, StreamKind::Host] {
            let ctrl = AbortController::new();
            self.gen_aborts.push(ctrl.clone());
            let (weak, ep) = (self.me.clone(), self.ep.clone());
            spawn_local(async move { run_stream(weak, ep, gen, kind, ctrl).await });
        }
        let ctrl = AbortController::new();
        self.gen_aborts.push(ctrl.clone());
        let rpc = self.mint_rpc();
        let body = request_body(&rpc, wire::HOST_DESCRIBE, json!({}));
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        spawn_local(async move {
            let result = transport::unary(&ep, wire::HOST_DESCRIBE, body, rpc, ctrl).await;
            let result = result.and_then(|v| checked(wire::HOST_DESCRIBE, v));
            run_weak(&weak, |inner| match result {
                Ok(_) => inner.conn.described(gen),
                Err(e) => inner.conn.failed(gen, format!("host.describe failed: {}", e.message), js::now(), js::random()),
            });
        });
    }

    fn on_session_effect(&mut self, id: String, e: Effect) {
        match e {
            Effect::Send { req, call } => self.send_session_call(id, req, call),
            Effect::Settle { op, outcome } => {
                if let Some(w) = self.session_ops.remove(&(id, op)) {
                    self.deferred.push(settle_value(w, outcome));
                }
            }
            Effect::Changed => {
                self.exports.entry(id.clone()).or_default().changes += 1;
                self.notify_sessions.insert(id);
            }
        }
    }

    fn send_session_call(&mut self, id: String, req: ReqId, call: Call) {
        if self.closed {
            return;
        }
        let rpc = self.mint_rpc();
        let body = call.body(&id, &rpc);
        let expect = call.expected_rpc_id(&rpc).to_string();
        let path = call.path();
        let ctrl = AbortController::new();
        let call_id = self.next_id();
        self.unary_aborts.insert(call_id, ctrl.clone());
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        spawn_local(async move {
            let result = transport::unary(&ep, path, body, expect, ctrl).await;
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
    fn host_call(&mut self, method: &'static str, payload: Value) -> Promise {
        let (promise, resolve) = js::promise();
        let op = self.next_id();
        self.host_ops.insert(op, resolve);
        let rpc = self.mint_rpc();
        let body = request_body(&rpc, method, payload);
        let ctrl = AbortController::new();
        self.unary_aborts.insert(op, ctrl.clone());
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        spawn_local(async move {
            let result = transport::unary(&ep, method, body, rpc, ctrl).await;
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
    fn on_stream_items(&mut self, gen: u64, items: Vec<SseItem>) -> bool {
        if self.closed || !self.conn.is_current(gen) {
            return false;
        }
        for item in items {
            match item {
                SseItem::Comment(_) => {}
                SseItem::Oversize(_) => self.malformed_frames += 1,
                SseItem::Data(data) => match parse_frame(&data) {
                    Ok(inbound) => {
                        self.frames += 1;
                        if let Frame::StreamError(f) = &inbound.frame {
                            let msg = format!("stream/error: {}", f.error.text());
                            self.conn.failed(gen, msg, js::now(), js::random());
                            return false;
                        }
                        self.router.on_frame(inbound);
                    }
                    Err(_) => self.malformed_frames += 1,
                },
            }
        }
        true
    }

    fn close(&mut self) {
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
        let cancelled = RpcError::new(ErrorCode::Cancelled, "HostClient closed", json!({}));
        for (_, resolve) in self.host_ops.drain() {
            self.deferred.push((resolve, result_js(&Err(cancelled.clone()))));
        }
        self.pump();
        for c in self.gen_aborts.drain(..) {
            c.abort();
        }
        if let Some(t) = self.timer.take() {
            js::clear_timeout(&t);
        }
        self.timer_at = None;
        // Break the Inner → Session object → Inner cycle.
        self.session_objs.clear();
        self.notify_host = true;
    }
}

fn request_body(rpc: &str, method: &str, payload: Value) -> String {
    json!({"type": "client-request", "rpcId": rpc, "method": method, "payload": payload}).to_string()
}

fn checked(method: &str, v: Json) -> RpcResult<Json> {
    wire::validate_value(method, &v).map_err(|e| crate::core::session::io::schema_error(method, e))?;
    Ok(v)
}

fn settle_value(w: Waiter, outcome: Outcome) -> (Function, JsValue) {
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

async fn run_stream(weak: WeakShared, ep: Endpoint, gen: u64, kind: StreamKind, ctrl: AbortController) {
    let err = stream_body(&weak, &ep, gen, kind, &ctrl).await;
    if let Some(err) = err {
        run_weak(&weak, |inner| inner.conn.failed(gen, err, js::now(), js::random()));
    }
}

/// Reads one stream until it ends; returns why it ended (`None` when told to stop).
async fn stream_body(weak: &WeakShared, ep: &Endpoint, gen: u64, kind: StreamKind, ctrl: &AbortController) -> Option<String> {
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
        let _ = reader.cancel();
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
                    let _ = reader.cancel();
                    ctrl.abort();
                    return None;
                }
            }
        }
    }
}

// ---- options --------------------------------------------------------------------------

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

fn parse_options(opts: &JsValue) -> Result<(Endpoint, Backoff), JsValue> {
    if !(opts.is_undefined() || opts.is_null() || opts.is_object()) {
        return Err(js::bad_argument("HostClient options must be an object"));
    }
    let opts = if opts.is_object() { opts.clone() } else { js_sys::Object::new().into() };
    let base = js::get(&opts, "baseUrl");
    let base = if base.is_undefined() {
        js::get(&js::get(&js_sys::global().into(), "location"), "origin")
            .as_string()
            .ok_or_else(|| js::bad_argument("baseUrl is required outside a page (no location.origin)"))?
    } else {
        base.as_string().ok_or_else(|| js::bad_argument("baseUrl must be a string"))?
    };
    let base = base.trim_end_matches('/').to_string();
    let token = js::get(&opts, "token");
    let token = if token.is_undefined() || token.is_null() {
        None
    } else {
        Some(token.as_string().ok_or_else(|| js::bad_argument("token must be a string"))?)
    };
    let timeout_ms = positive(&opts, "requestTimeoutMs")?.unwrap_or(30_000.0);
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
    Ok((Endpoint { base, token, timeout_ms }, backoff))
}

fn make_unsubscribe(weak: WeakShared, session: Option<String>, id: u64) -> JsValue {
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

fn flush_listeners(weak: &WeakShared) {
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

// ---- HostClient -----------------------------------------------------------------------

/// The connection to one agent host (see `types/index.d.ts`).
#[wasm_bindgen]
pub struct HostClient {
    shared: Shared,
}

#[wasm_bindgen]
impl HostClient {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<HostClient, JsValue> {
        let (ep, backoff) = parse_options(&options)?;
        let timeout = ep.timeout_ms;
        let prefix = format!("c{:x}-", (js::random() * 4_294_967_296.0) as u64);
        let shared: Shared = Rc::new_cyclic(|me: &WeakShared| {
            RefCell::new(Inner {
                me: me.clone(),
                ep,
                conn: Connection::new(backoff, timeout),
                router: Router::new(),
                closed: false,
                rpc_prefix: prefix,
                next_id: 0,
                gen_aborts: Vec::new(),
                unary_aborts: HashMap::new(),
                timer: None,
                timer_at: None,
                timer_cb: None,
                microtask_cb: None,
                microtask_queued: false,
                session_ops: HashMap::new(),
                host_ops: HashMap::new(),
                session_objs: HashMap::new(),
                exports: HashMap::new(),
                conn_export: ConnExport::default(),
                host_listeners: Listeners::default(),
                session_listeners: HashMap::new(),
                notify_host: false,
                notify_sessions: BTreeSet::new(),
                deferred: Vec::new(),
                malformed_frames: 0,
                frames: 0,
            })
        });
        {
            let weak = Rc::downgrade(&shared);
            let mut g = shared.borrow_mut();
            let w = weak.clone();
            let timer = Closure::<dyn FnMut()>::new(move || {
                run_weak(&w, |inner| {
                    inner.timer = None;
                    inner.timer_at = None;
                    inner.conn.tick(js::now(), js::random());
                })
            });
            g.timer_cb = Some(timer.into_js_value().unchecked_into());
            let micro = Closure::<dyn FnMut()>::new(move || flush_listeners(&weak));
            g.microtask_cb = Some(micro.into_js_value().unchecked_into());
        }
        run(&shared, |inner| inner.conn.start(js::now()));
        Ok(HostClient { shared })
    }

    fn live(&self) -> Result<(), JsValue> {
        if self.shared.borrow().closed {
            Err(js::closed_error())
        } else {
            Ok(())
        }
    }

    #[wasm_bindgen(js_name = getSnapshot)]
    pub fn get_snapshot(&self) -> JsValue {
        let mut g = self.shared.borrow_mut();
        let Inner { conn, conn_export, .. } = &mut *g;
        conn_export.snapshot(conn)
    }

    pub fn subscribe(&self, listener: JsValue) -> Result<JsValue, JsValue> {
        let f = js::is_function(&listener).ok_or_else(|| js::bad_argument("listener must be a function"))?;
        let mut g = self.shared.borrow_mut();
        let id = g.next_id();
        if !g.closed {
            g.host_listeners.items.push((id, f));
        }
        Ok(make_unsubscribe(Rc::downgrade(&self.shared), None, id))
    }

    pub fn describe(&self) -> Result<Promise, JsValue> {
        self.live()?;
        Ok(run(&self.shared, |inner| inner.host_call(wire::HOST_DESCRIBE, json!({}))))
    }

    #[wasm_bindgen(js_name = listSessions)]
    pub fn list_sessions(&self) -> Result<Promise, JsValue> {
        self.live()?;
        Ok(run(&self.shared, |inner| inner.host_call(wire::SESSION_LIST, json!({}))))
    }

    #[wasm_bindgen(js_name = createSession)]
    pub fn create_session(&self, options: JsValue) -> Result<Promise, JsValue> {
        self.live()?;
        let mut payload = serde_json::Map::new();
        if !(options.is_undefined() || options.is_null()) {
            if !options.is_object() {
                return Err(js::bad_argument("createSession options must be an object"));
            }
            for key in ["cwd", "provider"] {
                let v = js::get(&options, key);
                if !v.is_undefined() {
                    let s = v.as_string().ok_or_else(|| js::bad_argument(&format!("{key} must be a string")))?;
                    payload.insert(key.into(), Value::String(s));
                }
            }
        }
        Ok(run(&self.shared, |inner| inner.host_call(wire::SESSION_CREATE, Value::Object(payload))))
    }

    /// The resident `Session` for `sessionId` (the same object for the same id).
    pub fn session(&self, session_id: JsValue) -> Result<JsValue, JsValue> {
        self.live()?;
        let id = session_id
            .as_string()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| js::bad_argument("sessionId must be a non-empty string"))?;
        let shared = self.shared.clone();
        Ok(run(&self.shared, move |inner| {
            inner.router.ensure(&id);
            inner
                .session_objs
                .entry(id.clone())
                .or_insert_with(|| JsValue::from(JsSession { shared, id }))
                .clone()
        }))
    }

    /// Counters for diagnostics and tests.
    pub fn diagnostics(&self) -> JsValue {
        let g = self.shared.borrow();
        js::frozen(&[
            ("frames", JsValue::from_f64(g.frames as f64)),
            ("malformedFrames", JsValue::from_f64(g.malformed_frames as f64)),
            ("unroutedFrames", JsValue::from_f64(g.router.unrouted as f64)),
            ("inflightRequests", JsValue::from_f64(g.unary_aborts.len() as f64)),
            ("timerArmed", JsValue::from_bool(g.timer.is_some())),
            ("hostListeners", JsValue::from_f64(g.host_listeners.items.len() as f64)),
            ("sessionListeners", JsValue::from_f64(g.session_listeners.values().map(|l| l.items.len()).sum::<usize>() as f64)),
        ])
    }

    pub fn close(&self) {
        run(&self.shared, |inner| inner.close());
    }
}

impl Drop for HostClient {
    fn drop(&mut self) {
        let deferred = match self.shared.try_borrow_mut() {
            Ok(mut g) if !g.closed => {
                g.close();
                std::mem::take(&mut g.deferred)
            }
            _ => Vec::new(),
        };
        for (func, arg) in deferred {
            let _ = func.call1(&JsValue::UNDEFINED, &arg);
        }
    }
}

// ---- Session --------------------------------------------------------------------------

/// One conversation of the host (see `types/index.d.ts`). Obtained with `host.session(id)`.
#[wasm_bindgen(js_name = Session)]
pub struct JsSession {
    shared: Shared,
    id: String,
}

fn parse_result_arg(v: &JsValue) -> Result<RpcResult<Json>, JsValue> {
    let json = js::js_json(v).ok_or_else(|| js::bad_argument("result must be an RpcResult object"))?;
    wire::result_from_text(json.text()).map_err(|e| js::bad_argument(&format!("result must be an RpcResult: {e}")))
}

/// The part of a content block the binding checks: it is an object with a `type`.
#[derive(serde::Deserialize)]
struct BlockShape {
    #[serde(rename = "type")]
    _kind: String,
}

#[wasm_bindgen(js_class = Session)]
impl JsSession {
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> String {
        self.id.clone()
    }

    fn live(&self) -> Result<(), JsValue> {
        if self.shared.borrow().closed {
            Err(js::closed_error())
        } else {
            Ok(())
        }
    }

    /// Runs a core operation that settles through `waiter`.
    fn op(&self, make: impl FnOnce(Function) -> Waiter, f: impl FnOnce(&mut Inner, &str) -> OpId) -> Result<Promise, JsValue> {
        self.live()?;
        let (promise, resolve) = js::promise();
        let waiter = make(resolve);
        run(&self.shared, |inner| {
            inner.router.ensure(&self.id);
            let op = f(inner, &self.id);
            inner.session_ops.insert((self.id.clone(), op), waiter);
        });
        Ok(promise)
    }

    pub fn open(&self) -> Result<Promise, JsValue> {
        self.op(Waiter::Void, |inner, id| {
            let live = inner.conn.live_generation();
            inner.router.open(id, live)
        })
    }

    pub fn resync(&self) -> Result<(), JsValue> {
        self.live()?;
        run(&self.shared, |inner| {
            if let Some(s) = inner.router.get_mut(&self.id) {
                s.resync();
            }
        });
        Ok(())
    }

    #[wasm_bindgen(js_name = loadOlder)]
    pub fn load_older(&self) -> Result<Promise, JsValue> {
        self.op(Waiter::Void, |inner, id| inner.router.get_mut(id).expect("ensured").load_older())
    }

    pub fn prompt(&self, content: JsValue, mode: JsValue) -> Result<Promise, JsValue> {
        if !js_sys::Array::is_array(&content) {
            return Err(js::bad_argument("content must be an array of content blocks"));
        }
        let blocks = match js::js_json(&content) {
            Some(j) if j.parse::<Vec<BlockShape>>().is_ok() => j,
            _ => return Err(js::bad_argument("content must be an array of content-block objects with a type")),
        };
        let mode = match mode.as_string().as_deref() {
            _ if mode.is_undefined() => PromptMode::Queue,
            Some("queue") => PromptMode::Queue,
            Some("steer") => PromptMode::Steer,
            _ => return Err(js::bad_argument("mode must be 'queue' or 'steer'")),
        };
        self.op(Waiter::Result, |inner, id| inner.router.get_mut(id).expect("ensured").prompt(blocks, mode))
    }

    pub fn cancel(&self) -> Result<Promise, JsValue> {
        self.op(Waiter::Result, |inner, id| inner.router.get_mut(id).expect("ensured").cancel())
    }

    #[wasm_bindgen(js_name = setPlanMode)]
    pub fn set_plan_mode(&self, active: JsValue) -> Result<Promise, JsValue> {
        let active = active.as_bool().ok_or_else(|| js::bad_argument("active must be a boolean"))?;
        self.op(Waiter::Result, |inner, id| inner.router.get_mut(id).expect("ensured").set_plan_mode(active))
    }

    pub fn respond(&self, key: JsValue, result: JsValue) -> Result<Promise, JsValue> {
        let key = key.as_string().ok_or_else(|| js::bad_argument("key must be a string"))?;
        let result = parse_result_arg(&result)?;
        self.op(Waiter::Receipt, |inner, id| inner.router.get_mut(id).expect("ensured").respond(&key, result))
    }

    /// Extension 2: submits answers to a pending structured user-input prompt. Resolves to
    /// `RpcResult<RpcReceipt>`.
    pub fn answer(&self, prompt_id: JsValue, answers: JsValue) -> Result<Promise, JsValue> {
        let prompt_id = prompt_id.as_string().ok_or_else(|| js::bad_argument("promptId must be a string"))?;
        if !js_sys::Array::is_array(&answers) {
            return Err(js::bad_argument("answers must be an array"));
        }
        let answers: Vec<crate::core::wire::interaction::Answer> = js::js_json(&answers)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| js::bad_argument("answers must be [{questionId, selectedOptionIds?, text?}]"))?;
        self.op(Waiter::Result, |inner, id| inner.router.get_mut(id).expect("ensured").answer(&prompt_id, answers))
    }

    #[wasm_bindgen(js_name = getSnapshot)]
    pub fn get_snapshot(&self) -> JsValue {
        let mut g = self.shared.borrow_mut();
        g.router.ensure(&self.id);
        let Inner { router, exports, .. } = &mut *g;
        let s = router.get(&self.id).expect("ensured");
        exports.entry(self.id.clone()).or_default().snapshot(s)
    }

    pub fn subscribe(&self, listener: JsValue) -> Result<JsValue, JsValue> {
        let f = js::is_function(&listener).ok_or_else(|| js::bad_argument("listener must be a function"))?;
        let mut g = self.shared.borrow_mut();
        let id = g.next_id();
        if !g.closed {
            g.session_listeners.entry(self.id.clone()).or_default().items.push((id, f));
        }
        Ok(make_unsubscribe(Rc::downgrade(&self.shared), Some(self.id.clone()), id))
    }

    /// The core's drop counters for this session (diagnostics and tests).
    pub fn diagnostics(&self) -> JsValue {
        let g = self.shared.borrow();
        let Some(s) = g.router.get(&self.id) else { return JsValue::NULL };
        let d = s.diagnostics();
        js::frozen(&[
            ("staleResponses", JsValue::from_f64(d.stale_responses as f64)),
            ("duplicateEvents", JsValue::from_f64(d.duplicate_events as f64)),
            ("rejectedPages", JsValue::from_f64(d.rejected_pages as f64)),
            ("repairs", JsValue::from_f64(d.repairs as f64)),
            ("planResponsesFenced", JsValue::from_f64(d.plan_responses_fenced as f64)),
            ("inFlight", JsValue::from_f64(s.in_flight() as f64)),
            ("openGeneration", JsValue::from_f64(s.generation().0 as f64)),
        ])
    }
}
