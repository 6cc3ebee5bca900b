//! The snapshot export caches: frozen JS objects keyed by the core's `rev` stamps, so that
//! unchanged parts keep their JS identity and each `getSnapshot()` returns the identical
//! object until something changes. Reads the core; performs no I/O.
//!
//! Modules: `session` (a session's snapshot), `paint` (a session painted from the local cache
//! while it loads), `conn` (the connection snapshot), `list` (the live session list) and
//! `items` (a frozen array whose unchanged items keep their objects).

mod conn;
mod items;
mod list;
mod paint;
mod session;

pub(crate) use conn::ConnExport;
pub(crate) use list::ListExport;
pub(crate) use paint::Paint;
pub(crate) use session::SessionExport;
