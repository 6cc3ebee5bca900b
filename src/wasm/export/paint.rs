//! A session painted from the local cache while its first window loads.
//!
//! The cache (`cache.js`) hands the session a kept window (`__cache(entry)`); until the host's
//! tail page is in, the snapshot is the session's own with that window's nodes, seqs and
//! title, `openState: 'open'` and `cached: true` (docs/API.md "Local cache"). The paint is
//! dropped by the first snapshot read once the session is no longer loading: the host decides
//! from then on.

use crate::wasm::js::paint;
use wasm_bindgen::JsValue;

/// A kept window and the painted snapshot last made over the session's own.
pub(crate) struct Paint {
    entry: JsValue,
    /// The session's snapshot the last paint was made over, and that paint.
    last: Option<(JsValue, JsValue)>,
}

impl Paint {
    pub(crate) fn new(entry: JsValue) -> Paint {
        Paint { entry, last: None }
    }

    /// The painted snapshot over `own` (the same object while `own` is).
    pub(crate) fn over(&mut self, own: JsValue) -> JsValue {
        match &self.last {
            Some((o, p)) if *o == own => p.clone(),
            _ => {
                let p = paint(&own, &self.entry);
                self.last = Some((own, p.clone()));
                p
            }
        }
    }
}
