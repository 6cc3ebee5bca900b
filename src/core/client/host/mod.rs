//! The sans-IO host client: one connection to one agent host and every session on it.
//!
//! [`HostClient`] owns the connection controller ([`Connection`](super::Connection)), the carrier choice
//! ([`Carriers`](super::Carriers)), the session router ([`Router`](super::Router)) with every [`Session`](crate::core::session::Session),
//! the live session list ([`SessionList`](super::SessionList)), one timer table, and the host-level calls. It does
//! no I/O and reads no clock: the driver (the wasm shell, or the simulation) feeds it
//! [`Input`]s with the current [`Instant`], performs the [`Output`]s it polls, and arms one
//! timer at [`HostClient::poll_timeout`].
//!
//! Methods, in the order a driver uses them:
//! - [`HostClient::new`], then [`HostClient::handle_input`] for every event: the first
//!   input other than [`Input::Ensure`] and [`Input::Close`] starts the first connection
//!   generation ([`Input::Timeout`] does, for a client that connects at once);
//! - [`HostClient::poll_output`] until it returns `None`, performing each output;
//! - [`HostClient::poll_timeout`]: when to feed [`Input::Timeout`] next;
//! - accessors ([`HostClient::connection`], [`HostClient::session`], [`HostClient::sessions`],
//!   [`HostClient::diagnostics`]) to build snapshots.
//!
//! ```
//! use agent_session::core::client::{Config, HostClient, Input, Instant, Output};
//! let mut client = HostClient::new(Config::default());
//! let now = Instant::from_ms(0.0);
//! client.handle_input(now, Input::Timeout);
//! while let Some(output) = client.poll_output() {
//!     match output {
//!         Output::Send { .. } => { /* POST /api/<path> <body>; feed Input::Response */ }
//!         Output::OpenStream { .. } => { /* fetch SSE or a WebSocket; feed Stream* inputs */ }
//!         _ => {}
//!     }
//! }
//! let _next = client.poll_timeout(); // feed Input::Timeout at (or after) this instant
//! ```
//!
//! Modules: `client` (state, accessors, the driving loop), `io` (the inputs and outputs that
//! cross the sans-IO boundary), `calls` (unary calls and the session side), `downlinks` (the
//! connection's generations, their carriers and frames) and `retention` (who is watched, when
//! to sweep).

mod calls;
mod client;
mod downlinks;
mod io;
mod retention;

pub use client::HostClient;
pub use io::*;
