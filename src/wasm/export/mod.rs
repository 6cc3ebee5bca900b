//! The snapshot export caches: frozen JS objects keyed by the core's `rev` stamps, so that
//! unchanged parts keep their JS identity and each `getSnapshot()` returns the identical
//! object until something changes. Reads the core; performs no I/O.
//!
//! Modules: `session` (a session's snapshot), `conn` (the connection snapshot), `list` (the
//! live session list) and `items` (a frozen array whose unchanged items keep their objects).

mod conn;
mod items;
mod list;
mod session;

pub(crate) use conn::ConnExport;
pub(crate) use list::ListExport;
pub(crate) use session::SessionExport;
