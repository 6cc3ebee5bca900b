//! `host.getSessions()`: the core's live session list ([`SessionList`]) as a frozen snapshot
//! that stays the same object until the list changes (unchanged items keep theirs).

use super::export::{each, Items};
use super::host_client::HostClient;
use super::inner::Inner;
use super::js::{frozen, opt_str, ser_js};
use crate::core::client::{ListItem, ListState, SessionList};
use wasm_bindgen::prelude::*;

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
        let mut items = Vec::with_capacity(list.items().len());
        for i in list.items() {
            items.push(i.clone());
        }
        let items = self.items.export(list.rev, &items, |i| i.rev, |i| each(i, item_js));
        let error = match list.state() {
            ListState::Error(e) => ser_js(e),
            _ => JsValue::NULL,
        };
        let snap = frozen(&[("state", list.state().as_str().into()), ("items", items), ("error", error)]);
        self.snapshot = Some((list.rev, snap.clone()));
        snap
    }
}

#[wasm_bindgen]
impl HostClient {
    /// The live session list (see `types/index.d.ts`): the same frozen object until it changes.
    #[wasm_bindgen(js_name = getSessions)]
    pub fn get_sessions(&self) -> JsValue {
        let mut g = self.shared.borrow_mut();
        let Inner { core, sessions_export, .. } = &mut *g;
        sessions_export.snapshot(core.sessions())
    }
}
