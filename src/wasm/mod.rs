//! The WebAssembly shell: performs the I/O the sans-IO core asks for (fetch, streams,
//! timers, microtasks) and exposes the fixed JS API (`HostClient`, `Session`).

mod client;
mod export;
mod js;
mod transport;

pub use client::{HostClient, JsSession};
