//! `host.getSessions()`: the core's live session list through its export cache.

use super::host_client::HostClient;
use crate::wasm::driver::Inner;
use wasm_bindgen::prelude::*;

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
