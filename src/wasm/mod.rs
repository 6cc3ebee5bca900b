//! The WebAssembly shell: performs the I/O the sans-IO core asks for (fetch, streams,
//! timers, microtasks) and exposes the fixed JS API (`HostClient`, `Session`).
//!
//! Layers, each importing only from those below: `js` (hand-bound JS) → `config` (the
//! constructor options) → `export/` (snapshot caches) → `io/` (fetch, SSE, WebSockets; they
//! report to a `Sink`) → `driver` (the shared state and the run loop) → `api/` (the classes).

mod api;
mod config;
mod driver;
mod export;
mod io;
mod js;

pub use api::{HostClient, JsSession};

/// The global allocator on wasm32: talc grows the wasm memory itself and is smaller than
/// std's dlmalloc (see the root Cargo.toml for the figures).
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
