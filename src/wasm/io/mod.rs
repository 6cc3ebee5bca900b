//! The I/O the core asks for: fetch calls and SSE bodies (`transport`, with `shell.js`) and
//! WebSocket downlinks (`downlink`). Each reports what the carrier saw to a [`Sink`] as the
//! core's inputs; none knows the state that owns it, and none decides what a report means.
//!
//! Modules: `transport`, `downlink` and `sink` (where I/O reports to).

mod downlink;
mod sink;
mod transport;

pub(crate) use downlink::{connect, Socket};
pub(crate) use sink::Sink;
pub(crate) use transport::{read_sse, unary};
