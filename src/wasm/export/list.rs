//! The live session list's export cache ([`SessionList`]): a frozen snapshot that stays the
//! same object until the list changes (unchanged items keep theirs).

use super::items::{each, Items};
use crate::core::client::{ListItem, ListState, SessionList};
use crate::wasm::js::{frozen, opt_str, ser_js};
use wasm_bindgen::JsValue;

#[derive(Default)]
pub(crate) struct ListExport {
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
    if let Some(o) = &i.origin {
        f.push(("origin", o.as_str().into()));
    }
    frozen(&f)
}

impl ListExport {
    pub(crate) fn snapshot(&mut self, list: &SessionList) -> JsValue {
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
