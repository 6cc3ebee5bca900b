//! The WebAssembly shell: performs the I/O the sans-IO core asks for (fetch, streams,
//! timers, microtasks) and exposes the fixed JS API (`HostClient`, `Session`).

mod downlink;
mod export;
mod host_client;
mod inner;
mod js;
mod options;
mod session;
mod sessions;
mod transport;

pub use host_client::HostClient;
pub use session::JsSession;

/// The global allocator on wasm32: talc grows the wasm memory itself and is smaller than
/// std's dlmalloc (see the root Cargo.toml for the figures).
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
