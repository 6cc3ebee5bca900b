//! The connection snapshot's export cache: the same frozen object until what it shows changes.

use crate::core::client::{Carrier, Connection};
use crate::wasm::js::{frozen, opt_str, wall_ms};
use wasm_bindgen::JsValue;

/// What a connection snapshot shows: state, generation, attempt, retryAt bits, lastError, transport.
type ConnKey = (&'static str, u64, u32, Option<u64>, Option<String>, Option<Carrier>);

/// The cached connection snapshot.
#[derive(Default)]
pub(crate) struct ConnExport {
    snapshot: Option<(ConnKey, JsValue)>,
}

impl ConnExport {
    pub(crate) fn snapshot(&mut self, c: &Connection, transport: Option<Carrier>) -> JsValue {
        let key = (
            c.state().as_str(),
            // A client not started yet (no DOM, nothing asked) shows the frame it starts with
            // (generation 1, connecting): a server render and the page that hydrates it agree.
            c.generation().max(1),
            c.attempt(),
            c.retry_at().map(|at| at.as_ms().to_bits()),
            c.last_error().map(ToString::to_string),
            transport,
        );
        if let Some((k, snap)) = &self.snapshot {
            if *k == key {
                return snap.clone();
            }
        }
        let snap = frozen(&[
            ("state", key.0.into()),
            ("generation", JsValue::from_f64(key.1 as f64)),
            ("attempt", JsValue::from_f64(key.2.into())),
            // The core's instants are monotonic; the UI counts down against `Date.now()`.
            ("retryAt", c.retry_at().map_or(JsValue::NULL, |at| JsValue::from_f64(wall_ms(at.as_ms()).round()))),
            ("lastError", opt_str(c.last_error().map(ToString::to_string).as_deref())),
            ("transport", opt_str(transport.map(Carrier::as_str))),
        ]);
        self.snapshot = Some((key, snap.clone()));
        snap
    }
}
