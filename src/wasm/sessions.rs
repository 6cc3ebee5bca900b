//! `host.getSessions()`: the core's live session list ([`SessionList`]) as a frozen snapshot
//! that stays the same object until the list changes (unchanged items keep theirs), and
//! the `session.list` seed it asks for when a connection generation is established.

use super::export::Items;
use super::host_client::HostClient;
use super::inner::{checked, request_body, run_weak, Inner};
use super::js::{self, frozen, opt_str, ser_js, AbortController};
use super::transport;
use crate::core::client::{ListItem, ListState, SessionList};
use crate::core::wire::{self, Json, ListValue, ResponseForm};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// A failed seed is asked again after this long while its generation is still current.
const RESEED_MS: f64 = 2000.0;

#[derive(Default)]
pub(super) struct ListExport {
    items: Items,
    snapshot: Option<(u64, JsValue)>,
}

fn item_js(i: &ListItem) -> JsValue {
    let mut f: Vec<(&str, JsValue)> = vec![
        ("sessionId", i.session_id.as_str().into()),
        ("title", opt_str(i.title.as_deref())),
        ("running", i.running.into()),
        ("waiting", i.waiting.into()),
        ("updatedAt", JsValue::from_f64(i.updated_at)),
    ];
    if let Some(p) = &i.parent_session_id {
        f.push(("parentSessionId", p.as_str().into()));
    }
    if let Some(c) = &i.cwd {
        f.push(("cwd", c.as_str().into()));
    }
    frozen(&f)
}

impl ListExport {
    pub(super) fn snapshot(&mut self, list: &SessionList) -> JsValue {
        if let Some((rev, snap)) = &self.snapshot {
            if *rev == list.rev {
                return snap.clone();
            }
        }
        let items = self.items.export(list.rev, list.items(), |i| &i.session_id, |i| i.rev, item_js);
        let error = match list.state() {
            ListState::Error(e) => ser_js(e),
            _ => JsValue::NULL,
        };
        let snap = frozen(&[("state", list.state().as_str().into()), ("items", items), ("error", error)]);
        self.snapshot = Some((list.rev, snap.clone()));
        snap
    }
}

impl Inner {
    /// Asks `session.list` to seed the list for generation `gen`.
    pub(super) fn seed_sessions(&mut self, gen: u64) {
        if self.closed || !self.conn.is_current(gen) {
            return;
        }
        let rpc = self.mint_rpc();
        let body = request_body(&rpc, wire::SESSION_LIST, &Json::empty_object());
        let ctrl = AbortController::new();
        let op = self.next_id();
        self.unary_aborts.insert(op, ctrl.clone());
        let (weak, ep) = (self.me.clone(), self.ep.clone());
        spawn_local(async move {
            let result = transport::unary(&ep, wire::SESSION_LIST, body, ResponseForm::Envelope { rpc_id: rpc }, ctrl)
                .await
                .and_then(|v| checked(wire::SESSION_LIST, v))
                .and_then(|v| {
                    wire::read::read::<ListValue>(v.text())
                        .map(|l| l.items)
                        .map_err(|e| crate::core::session::io::schema_error(wire::SESSION_LIST, e))
                });
            let failed = result.is_err();
            run_weak(&weak, |inner| {
                inner.unary_aborts.remove(&op);
                if inner.closed {
                    return;
                }
                if inner.sessions.seed(gen, result) {
                    inner.notify_host = true;
                }
                if failed && inner.conn.is_current(gen) {
                    let weak = inner.me.clone();
                    let retry = Closure::once_into_js(move || run_weak(&weak, |inner| inner.seed_sessions(gen)));
                    js::set_timeout(retry.unchecked_ref(), RESEED_MS);
                }
            });
        });
    }
}

#[wasm_bindgen]
impl HostClient {
    /// The live session list (see `types/index.d.ts`): the same frozen object until it changes.
    #[wasm_bindgen(js_name = getSessions)]
    pub fn get_sessions(&self) -> JsValue {
        let mut g = self.shared.borrow_mut();
        let Inner { sessions, sessions_export, .. } = &mut *g;
        sessions_export.snapshot(sessions)
    }
}
