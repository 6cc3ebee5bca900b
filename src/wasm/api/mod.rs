//! The JS classes (`HostClient`, `Session`): check arguments, hand the core an input through
//! the driver, and read snapshots out of the export caches.
//!
//! Modules: `host_client` (the `HostClient` class), `session` (the `Session` class) and
//! `sessions` (`host.getSessions()`).

mod host_client;
mod session;
mod sessions;

pub use host_client::HostClient;
pub use session::JsSession;
