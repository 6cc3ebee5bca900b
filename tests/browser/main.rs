//! Browser tests: the JS API in headless Chromium against the reference host, one module
//! per feature. Run through `scripts/test-browser.mjs` (it starts the host and passes its URL
//! at compile time). Every test drives the JS objects through their JS surface (`Reflect`
//! calls), so what is tested is what a UI sees.
#![cfg(target_arch = "wasm32")]

mod support;

mod carriers;
mod errors;
mod generations;
mod lifecycle;
mod outbox;
mod plan;
mod providers;
mod recovery;
mod retention;
mod session;
mod session_list;
mod verbs;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
