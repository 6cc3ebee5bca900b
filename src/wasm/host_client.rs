//! The `HostClient` JS class.

use super::export::ConnExport;
use super::inner::*;
use super::js;
use super::options::parse_options;
use super::session::JsSession;
use crate::core::client::{Carriers, Connection, Router};
use crate::core::vecmap::VecMap;
use crate::core::wire::{self, Json};
use js_sys::Promise;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The connection to one agent host (see `types/index.d.ts`).
#[wasm_bindgen]
pub struct HostClient {
    pub(super) shared: Shared,
}

#[wasm_bindgen]
impl HostClient {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<HostClient, JsValue> {
        let (ep, backoff, transport) = parse_options(&options)?;
        let timeout = ep.timeout_ms;
        let prefix = format!("c{:x}-", (js::random() * 4_294_967_296.0) as u64);
        let shared: Shared = Rc::new_cyclic(|me: &WeakShared| {
            RefCell::new(Inner {
                me: me.clone(),
                ep,
                conn: Connection::new(backoff, timeout),
                carriers: Carriers::new(transport),
                router: Router::new(),
                closed: false,
                rpc_prefix: prefix,
                next_id: 0,
                gen_aborts: Vec::new(),
                downlinks: Vec::new(),
                unary_aborts: VecMap::new(),
                timer: None,
                timer_at: None,
                session_wakes: Vec::new(),
                timer_cb: None,
                microtask_cb: None,
                microtask_queued: false,
                session_ops: VecMap::new(),
                host_ops: VecMap::new(),
                session_objs: VecMap::new(),
                exports: VecMap::new(),
                conn_export: ConnExport::default(),
                host_listeners: Listeners::default(),
                session_listeners: VecMap::new(),
                notify_host: false,
                notify_sessions: Vec::new(),
                deferred: Vec::new(),
                malformed_frames: 0,
                frames: 0,
                sessions: Default::default(),
                sessions_export: Default::default(),
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
                    let now = js::now();
                    inner.conn.tick(now, js::random());
                    inner.fire_wakes(now);
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
        let Inner { conn, carriers, conn_export, .. } = &mut *g;
        conn_export.snapshot(conn, carriers.active())
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
        Ok(run(&self.shared, |inner| inner.host_call(wire::HOST_DESCRIBE, Json::empty_object())))
    }

    #[wasm_bindgen(js_name = listSessions)]
    pub fn list_sessions(&self) -> Result<Promise, JsValue> {
        self.live()?;
        Ok(run(&self.shared, |inner| inner.host_call(wire::SESSION_LIST, Json::empty_object())))
    }

    #[wasm_bindgen(js_name = createSession)]
    pub fn create_session(&self, options: JsValue) -> Result<Promise, JsValue> {
        self.live()?;
        let mut payload = wire::CreatePayload::default();
        if !(options.is_undefined() || options.is_null()) {
            if !options.is_object() {
                return Err(js::bad_argument("createSession options must be an object"));
            }
            for key in ["cwd", "provider"] {
                let v = js::get(&options, key);
                if !v.is_undefined() {
                    let s = v.as_string().ok_or_else(|| js::bad_argument(&format!("{key} must be a string")))?;
                    *if key == "cwd" { &mut payload.cwd } else { &mut payload.provider } = Some(s);
                }
            }
        }
        Ok(run(&self.shared, |inner| inner.host_call(wire::SESSION_CREATE, Json::from_serialize(&payload))))
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
            let key = id.clone();
            inner.session_objs.get_or_insert_with(key.as_str(), || JsValue::from(JsSession { shared, id })).clone()
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
            ("sockets", JsValue::from_f64(g.downlinks.len() as f64)),
            ("timerArmed", JsValue::from_bool(g.timer.is_some())),
            ("hostListeners", JsValue::from_f64(g.host_listeners.items.len() as f64)),
            (
                "sessionListeners",
                JsValue::from_f64(g.session_listeners.values().map(|l| l.items.len()).sum::<usize>() as f64),
            ),
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
