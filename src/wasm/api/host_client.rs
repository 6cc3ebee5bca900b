//! The `HostClient` JS class.

use super::session::JsSession;
use crate::core::client::{HostCall, Input, OpHandle};
use crate::wasm::config::parse_options;
use crate::wasm::driver::{
    close_shared, feed_weak, live, make_unsubscribe, operate_as, run, Inner, SessionJs, Shared,
};
use crate::wasm::js;
use js_sys::Promise;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The connection to one agent host (see `types/index.d.ts`).
#[wasm_bindgen]
pub struct HostClient {
    pub(crate) shared: Shared,
}

#[wasm_bindgen]
impl HostClient {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<HostClient, JsValue> {
        let (ep, cfg) = parse_options(&options)?;
        let eager = ep.eager;
        let shared = Inner::create(ep, cfg);
        if eager {
            // The first input starts the first connection generation.
            // (Through `feed_weak`'s copy of `run`: one fewer generic instance.)
            feed_weak(&Rc::downgrade(&shared), Input::Timeout);
        }
        Ok(HostClient { shared })
    }

    fn live(&self) -> Result<(), JsValue> {
        live(&self.shared)
    }

    #[wasm_bindgen(js_name = getSnapshot)]
    pub fn get_snapshot(&self) -> JsValue {
        let mut g = self.shared.borrow_mut();
        let Inner { core, conn_export, .. } = &mut *g;
        conn_export.snapshot(core.connection(), core.transport())
    }

    pub fn subscribe(&self, listener: JsValue) -> Result<JsValue, JsValue> {
        let f = js::is_function(&listener).ok_or_else(|| js::bad_argument("listener must be a function"))?;
        let weak = Rc::downgrade(&self.shared);
        let mut g = self.shared.borrow_mut();
        let id = g.next_id();
        if !g.core.is_closed() {
            g.host_listeners.items.push((id, f));
        }
        // A client not started yet (no DOM) starts at its first subscriber.
        let start = g.core.connection().generation() == 0 && !g.core.is_closed();
        drop(g);
        if start {
            feed_weak(&weak, Input::Timeout);
        }
        Ok(make_unsubscribe(weak, None, id))
    }

    /// `call(method, payloadText, signal)` (index.js's `call` checks the method and writes the
    /// payload): any host method, resolving the host's result object as written; the signal's
    /// abort gives it up.
    pub fn call(&self, method: JsValue, payload: JsValue, signal: JsValue) -> Result<Promise, JsValue> {
        self.live()?;
        // index.js hands over a method only if it is a name (it goes into the URL).
        let method = method.as_string().ok_or_else(|| js::bad_argument("method must be a name like session.search"))?;
        // `JSON.stringify`'s text of whatever was given: the host checks its payloads.
        let payload = payload.as_string().ok_or_else(|| js::bad_argument("payload must have a JSON form"))?;
        let handle = OpHandle(self.shared.borrow_mut().next_id());
        let promise =
            operate_as(&self.shared, handle, Input::Host { handle, call: HostCall::Call { method, payload } });
        if signal.is_object() {
            let weak = Rc::downgrade(&self.shared);
            let abandon = Closure::<dyn FnMut()>::new(move || feed_weak(&weak, Input::Abandon { handle }));
            js::on_abort(&signal, &abandon.into_js_value());
        }
        Ok(promise)
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
            inner.handle(Input::Ensure { session: id.clone() });
            let key = id.clone();
            let s = inner.per_session.get_or_insert_with(key.as_str(), SessionJs::default);
            if let Some(obj) = s.obj.as_ref().map(js::WeakRef::deref).filter(|o| !o.is_undefined()) {
                return obj;
            }
            let obj = JsValue::from(JsSession { shared, id });
            s.obj = Some(js::WeakRef::new(&obj));
            obj
        }))
    }

    /// Counters for diagnostics and tests.
    pub fn diagnostics(&self) -> JsValue {
        let g = self.shared.borrow();
        let d = g.core.diagnostics();
        let n = |v: usize| JsValue::from_f64(v as f64);
        js::frozen(&[
            ("frames", JsValue::from_f64(d.frames as f64)),
            ("malformedFrames", JsValue::from_f64(d.malformed_frames as f64)),
            ("unroutedFrames", JsValue::from_f64(d.unrouted_frames as f64)),
            ("stashedSessions", n(d.stashed_sessions)),
            ("stashedBytes", n(d.stashed_bytes)),
            ("inflightRequests", n(g.calls.len())),
            ("sockets", n(g.sockets())),
            ("timerArmed", JsValue::from_bool(g.timer.is_some())),
            ("hostListeners", n(g.host_listeners.items.len())),
            ("sessionListeners", n(g.per_session.values().map(|s| s.listeners.items.len()).sum::<usize>())),
        ])
    }

    pub fn close(&self) {
        // The destructors' close (closing starts no I/O): one fewer generic copy of `run`.
        close_shared(&self.shared);
    }
}

impl Drop for HostClient {
    /// Collected (or freed): closes the client, unless `Session` objects a page still holds
    /// keep it (the last of them closes it).
    fn drop(&mut self) {
        if Rc::strong_count(&self.shared) > 1 {
            if let Ok(mut g) = self.shared.try_borrow_mut() {
                g.host_gone = true;
            }
            return;
        }
        close_shared(&self.shared);
    }
}
