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
