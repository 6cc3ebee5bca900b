//! A session painted from the local cache while its first window loads.
//!
//! The cache (`cache.js`) hands the session a painter of its kept window (`__cache(paint)`);
//! until the host's tail page is in, the snapshot is the painter's over the session's own:
//! that window's nodes, seqs and title, `openState: 'open'` and `cached: true` (docs/API.md
//! "Local cache"). The paint is dropped by the first snapshot read once the session is no
//! longer loading: the host decides from then on. (The painter is the cache's: an app without
//! the cache loads none of its code.)

use js_sys::Function;
use wasm_bindgen::JsValue;

/// The cache's painter and the painted snapshot it last made over the session's own.
pub(crate) struct Paint {
    paint: Function,
    /// The session's snapshot the last paint was made over, and that paint.
    last: Option<(JsValue, JsValue)>,
}

impl Paint {
    pub(crate) fn new(paint: Function) -> Paint {
        Paint { paint, last: None }
    }

    /// The painted snapshot over `own` (the same object while `own` is).
    pub(crate) fn over(&mut self, own: JsValue) -> JsValue {
        match &self.last {
            Some((o, p)) if *o == own => p.clone(),
            _ => {
                let p = self.paint.call1(&JsValue::UNDEFINED, &own).unwrap_or_else(|_| own.clone());
                self.last = Some((own, p.clone()));
                p
            }
        }
    }
}
