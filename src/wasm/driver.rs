//! The driver: the shared state behind `HostClient` and `Session`: the core [`client::HostClient`] and
//! the I/O it asks for (fetches, streams, the one timer), plus what must reach JS (promise
//! resolutions, listeners, the export cache). No protocol decision is made here: every
//! input goes to the core, every output is performed as told.
//!
//! Re-entrancy discipline: every entry point mutates the shared state inside one
//! `RefCell` borrow, queues what must reach JS (promise resolutions, listener calls), releases
//! the borrow, and only then calls into JS. Listeners run from a microtask, at most once per
//! microtask per object, so calling any method from a listener is safe.

use super::config::Endpoint;
use super::export::{ConnExport, ListExport, Paint, SessionExport};
use super::io::{self, Sink, Socket};
use super::js::{self, result_js, AbortController};
use crate::core::client::{
    self, CallId, Carrier, Config, Input, Instant, OpHandle, Output, Settlement, StreamId, StreamKind,
};
use crate::core::session::OpenState;
use crate::core::vecmap::VecMap;
use js_sys::{Function, Promise};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub(crate) type Shared = Rc<RefCell<Inner>>;
/// The start of an I/O operation, made once the state borrow is released.
pub(crate) type Start = Box<dyn FnOnce()>;
pub(crate) type WeakShared = Weak<RefCell<Inner>>;

#[derive(Default)]
pub(crate) struct Listeners {
    pub(crate) items: Vec<(u64, Function)>,
}

/// The unread frames held for the frame hook between two microtasks, at most.
const MAX_UNREAD: usize = 256;

/// What the shell holds for one session.
#[derive(Default)]
pub(crate) struct SessionJs {
    /// The `Session` object, held weakly: `host.session(id)` returns this one while a page
    /// holds it (each `Session` keeps the client alive; the client must not keep it).
    pub(crate) obj: Option<js::WeakRef>,
    pub(crate) export: SessionExport,
    pub(crate) listeners: Listeners,
    /// The window the local cache painted while the session loads.
    pub(crate) paint: Option<Paint>,
}

/// A downlink being performed: an SSE body read (aborted through its controller) or a socket.
pub(crate) enum StreamIo {
    Sse(AbortController),
    WebSocket(Socket),
}

pub(crate) struct Inner {
    me: WeakShared,
    ep: Endpoint,
    pub(crate) core: client::HostClient,
    /// Abort controllers of the unary calls in flight.
    pub(crate) calls: VecMap<CallId, AbortController>,
    streams: VecMap<StreamId, StreamIo>,
    pub(crate) timer: Option<JsValue>,
    timer_at: Option<f64>,
    /// JS-owned callbacks (they hold only a weak reference, so a queued timer or microtask
    /// that fires after the client is gone is a no-op).
    timer_cb: Option<Function>,
    microtask_cb: Option<Function>,
    microtask_queued: bool,
    /// The `resolve` of every operation's promise, by the handle the core settles.
    waiters: VecMap<OpHandle, Function>,
    next_id: u64,
    /// Per session id: its JS object, export cache and listeners.
    pub(crate) per_session: VecMap<String, SessionJs>,
    pub(crate) conn_export: ConnExport,
    pub(crate) host_listeners: Listeners,
    notify_host: bool,
    pub(crate) notify_sessions: Vec<String>,
    /// Frames of types the core does not read, for the entry's frame hook with the listeners
    /// (never from inside an input: the hook may call the client).
    unread: Vec<String>,
    /// JS calls to make once the borrow is released.
    deferred: Vec<(Function, JsValue)>,
    /// I/O to start after those calls.
    starts: Vec<Start>,
    /// The live session list's export cache.
    pub(crate) sessions_export: ListExport,
    /// The `HostClient` object was collected or freed while `Session` objects still held
    /// the client: the last of them to go closes it.
    pub(crate) host_gone: bool,
}

impl Inner {
    /// A client's shared state for `ep` and `cfg`, with its timer and listener callbacks (they
    /// hold it weakly). Nothing starts until its first input.
    pub(crate) fn create(ep: Endpoint, cfg: Config) -> Shared {
        let shared: Shared = Rc::new_cyclic(|me: &WeakShared| {
            RefCell::new(Inner {
                me: me.clone(),
                ep,
                core: client::HostClient::new(cfg),
                calls: VecMap::new(),
                streams: VecMap::new(),
                timer: None,
                timer_at: None,
                timer_cb: None,
                microtask_cb: None,
                microtask_queued: false,
                waiters: VecMap::new(),
                next_id: 0,
                per_session: VecMap::new(),
                conn_export: ConnExport::default(),
                host_listeners: Listeners::default(),
                notify_host: false,
                notify_sessions: Vec::new(),
                unread: Vec::new(),
                deferred: Vec::new(),
                starts: Vec::new(),
                sessions_export: ListExport::default(),
                host_gone: false,
            })
        });
        let weak = Rc::downgrade(&shared);
        let mut g = shared.borrow_mut();
        let w = weak.clone();
        let timer = Closure::<dyn FnMut()>::new(move || feed_weak(&w, Input::Timeout));
        g.timer_cb = Some(timer.into_js_value().unchecked_into());
        let micro = Closure::<dyn FnMut()>::new(move || flush_listeners(&weak));
        g.microtask_cb = Some(micro.into_js_value().unchecked_into());
        drop(g);
        shared
    }
}

/// The I/O reports to the client through its weak handle: nothing happens once it is gone.
impl Sink for WeakShared {
    fn feed(&self, input: Input) {
        feed_weak(self, input);
    }
    fn reads(&self, stream: StreamId) -> bool {
        self.upgrade().is_some_and(|s| s.borrow().streams.contains_key(&stream))
    }
}

/// `closed` once the client is closed (the methods of both JS classes check it).
pub(crate) fn live(shared: &Shared) -> Result<(), JsValue> {
    if shared.borrow().core.is_closed() {
        Err(js::closed_error())
    } else {
        Ok(())
    }
}

/// Runs `f` on the shared state, then performs the core's outputs, releases the borrow, and
/// makes the queued JS calls. Generic only in a thin shim: the work is in [`run_dyn`], one
/// copy for every call site.
pub(crate) fn run<R>(shared: &Shared, f: impl FnOnce(&mut Inner) -> R) -> R {
    let mut f = Some(f);
    let mut r = None;
    run_dyn(shared, &mut |inner| r = f.take().map(|f| f(inner)));
    r.unwrap() // run_dyn calls its closure once
}

#[inline(never)]
fn run_dyn(shared: &Shared, f: &mut dyn FnMut(&mut Inner)) {
    let (deferred, starts) = {
        let mut g = shared.borrow_mut();
        f(&mut g);
        g.pump();
        (std::mem::take(&mut g.deferred), std::mem::take(&mut g.starts))
    };
    for (func, arg) in deferred {
        let _ = func.call1(&JsValue::UNDEFINED, &arg);
    }
    // I/O starts after the promises above are settled (and shell.js waits one microtask more):
    // an `await` on an operation resumes before the follow-up requests it caused (the plan
    // query after an open) begin.
    for start in starts {
        start();
    }
}

/// Starts a user operation: `make` builds its input around the handle the core settles, and
/// the promise resolves with that settlement. Generic only in a thin shim: every operation
/// shares one copy of `run` ([`operate_dyn`]).
pub(crate) fn operate(shared: &Shared, make: impl FnOnce(OpHandle) -> Input) -> Promise {
    let handle = OpHandle(shared.borrow_mut().next_id());
    operate_as(shared, handle, make(handle))
}

/// [`operate`] for a caller that holds the handle (`host.call`'s abort names it).
#[inline(never)]
pub(crate) fn operate_as(shared: &Shared, handle: OpHandle, input: Input) -> Promise {
    run(shared, move |inner| {
        let (promise, resolve) = js::promise();
        inner.waiters.insert(handle, resolve);
        inner.handle(input);
        promise
    })
}

/// Feeds one input to the core of a client that may be gone (I/O completions, timers).
pub(crate) fn feed_weak(weak: &WeakShared, input: Input) {
    if let Some(shared) = weak.upgrade() {
        run(&shared, |inner| inner.handle(input));
    }
}

impl Inner {
    pub(crate) fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Hands one input to the core (with the time).
    pub(crate) fn handle(&mut self, input: Input) {
        match &input {
            Input::Response { call, .. } => {
                self.calls.remove(call);
            }
            Input::Timeout => {
                self.timer = None;
                self.timer_at = None;
            }
            _ => {}
        }
        self.core.handle_input(Instant::from_ms(js::now()), input);
    }

    /// Performs the core's outputs until it is quiet, then re-arms the timer and schedules
    /// the listener microtask.
    pub(crate) fn pump(&mut self) {
        while let Some(out) = self.core.poll_output() {
            match out {
                Output::Send { call, path, body } => self.send(call, path, body),
                Output::Abort { call } => {
                    if let Some(c) = self.calls.remove(&call) {
                        c.abort();
                    }
                }
                Output::OpenStream { stream, kind, carrier: Carrier::Sse, .. } => self.open_sse(stream, kind),
                Output::OpenStream { stream, kind, carrier: Carrier::WebSocket, ticket } => {
                    match io::connect(
                        self.me.clone(),
                        &self.ep.base,
                        self.ep.socket.as_ref(),
                        kind,
                        ticket.as_deref(),
                        stream,
                    ) {
                        Ok(socket) => {
                            self.streams.insert(stream, StreamIo::WebSocket(socket));
                        }
                        Err(why) => self.handle(Input::StreamEnded { stream, why }),
                    }
                }
                Output::CloseStream { stream } => match self.streams.remove(&stream) {
                    Some(StreamIo::Sse(c)) => c.abort(),
                    Some(StreamIo::WebSocket(s)) => s.shut(),
                    None => {}
                },
                Output::Settle { handle, settlement } => {
                    if let Some(resolve) = self.waiters.remove(&handle) {
                        let value = match settlement {
                            Settlement::Done => JsValue::UNDEFINED,
                            Settlement::Result(r) => result_js(&r),
                            Settlement::Receipt(receipt) => js::json_js(&receipt),
                        };
                        self.deferred.push((resolve, value));
                    }
                }
                Output::HostChanged => self.notify_host = true,
                // Held for the hook only where there is one; at most one microtask's worth
                // (each frame is one input, and the microtask runs between them).
                Output::Unread(text) => {
                    if self.ep.frames.is_some() && self.unread.len() < MAX_UNREAD {
                        self.unread.push(text);
                    }
                }
                Output::SessionChanged(id) => {
                    let export = &mut self.per_session.get_or_insert_with(id.as_str(), SessionJs::default).export;
                    export.changes += 1;
                    if let Some(s) = self.core.session(&id) {
                        export.let_go(s);
                    }
                    if !self.notify_sessions.contains(&id) {
                        self.notify_sessions.push(id);
                    }
                }
            }
        }
        self.arm_timer();
        if (self.notify_host || !self.notify_sessions.is_empty() || !self.unread.is_empty()) && !self.microtask_queued {
            if let Some(cb) = &self.microtask_cb {
                self.microtask_queued = true;
                js::queue_microtask(cb);
            }
        }
    }

    fn arm_timer(&mut self) {
        let want = self.core.poll_timeout().map(Instant::as_ms);
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

    fn send(&mut self, call: CallId, path: String, body: String) {
        let ctrl = AbortController::new();
        self.calls.insert(call, ctrl.clone());
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        self.starts.push(Box::new(move || io::unary(&ep, weak, call, &path, &body, &ctrl)));
    }

    fn open_sse(&mut self, stream: StreamId, kind: StreamKind) {
        let ctrl = AbortController::new();
        self.streams.insert(stream, StreamIo::Sse(ctrl.clone()));
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        self.starts.push(Box::new(move || io::read_sse(&ep, weak, stream, kind.path(), &ctrl)));
    }

    /// Session `id`'s snapshot through its export cache (`null` if it is not resident). Reads
    /// the core only.
    pub(crate) fn session_snapshot(&mut self, id: &str) -> JsValue {
        let Inner { core, per_session, .. } = self;
        let Some(s) = core.session(id) else { return JsValue::NULL };
        let js = per_session.get_or_insert_with(id, SessionJs::default);
        let own = js.export.snapshot(s);
        match &mut js.paint {
            Some(p) if s.open_state() == OpenState::Loading => p.over(own),
            _ => {
                js.paint = None;
                own
            }
        }
    }

    /// The number of WebSocket downlinks held (diagnostics).
    pub(crate) fn sockets(&self) -> usize {
        self.streams.values().filter(|s| matches!(s, StreamIo::WebSocket(_))).count()
    }

    pub(crate) fn close(&mut self) {
        if self.core.is_closed() {
            return;
        }
        self.handle(Input::Close);
        self.pump();
        // Break the Inner → Session object → Inner cycle.
        for s in self.per_session.values_mut() {
            s.obj = None;
        }
        self.notify_host = true;
    }
}

/// Closes a client (`close()` and the destructors): settles what it must, then makes the
/// queued JS calls. Closing starts no I/O, so nothing is left to start after them.
pub(crate) fn close_shared(shared: &Shared) {
    let deferred = match shared.try_borrow_mut() {
        Ok(mut g) if !g.core.is_closed() => {
            g.close();
            std::mem::take(&mut g.deferred)
        }
        _ => Vec::new(),
    };
    for (func, arg) in deferred {
        let _ = func.call1(&JsValue::UNDEFINED, &arg);
    }
}

pub(crate) fn make_unsubscribe(weak: WeakShared, session: Option<String>, id: u64) -> JsValue {
    let cb = Closure::<dyn FnMut()>::new(move || {
        let Some(shared) = weak.upgrade() else { return };
        run(&shared, |g| {
            let Some(session) = &session else {
                g.host_listeners.items.retain(|(i, _)| *i != id);
                return;
            };
            let Some(l) = g.per_session.get_mut(session).map(|s| &mut s.listeners) else { return };
            let had = !l.items.is_empty();
            l.items.retain(|(i, _)| *i != id);
            if had && l.items.is_empty() && !g.core.is_closed() {
                // The last listener left: the retention rule may release the session.
                g.handle(Input::Watch { session: session.clone(), listeners: false });
            }
        });
    });
    cb.into_js_value()
}

pub(crate) fn flush_listeners(weak: &WeakShared) {
    let Some(shared) = weak.upgrade() else { return };
    let calls: Vec<(Function, JsValue)> = {
        let mut g = shared.borrow_mut();
        g.microtask_queued = false;
        let mut calls = Vec::new();
        let unread = std::mem::take(&mut g.unread);
        if let Some(hook) = &g.ep.frames {
            for text in unread {
                calls.push((hook.clone(), text.into()));
            }
        }
        if std::mem::take(&mut g.notify_host) {
            for (_, f) in &g.host_listeners.items {
                calls.push((f.clone(), JsValue::UNDEFINED));
            }
        }
        for id in std::mem::take(&mut g.notify_sessions) {
            let Some(s) = g.per_session.get(&id) else { continue };
            // The store hook first, for a session whose `Session` object a page holds: what it
            // lends (cached node objects) is in the snapshot its listeners read.
            if let (Some(store), Some(o)) = (&g.ep.store, &s.obj) {
                calls.push((store.clone(), o.deref()));
            }
            for (_, f) in &s.listeners.items {
                calls.push((f.clone(), JsValue::UNDEFINED));
            }
        }
        if g.core.is_closed() {
            // The final notification is out: release every listener.
            g.host_listeners.items.clear();
            for s in g.per_session.values_mut() {
                s.listeners.items.clear();
            }
        }
        calls
    };
    for (f, arg) in calls {
        if let Err(e) = f.call1(&JsValue::UNDEFINED, &arg) {
            js::console_error(&e);
        }
    }
}
