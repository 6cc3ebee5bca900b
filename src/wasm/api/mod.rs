//! The JS classes (`HostClient`, `Session`): check arguments, hand the core an input through
//! the driver, and read snapshots out of the export caches.

mod host_client;
mod session;
mod sessions;

pub use host_client::HostClient;
pub use session::JsSession;
