//! The host wire contract (`docs/WIRE.md`): envelopes, method payloads and values,
//! session events and stream frames. One definition, used by the client core and the
//! reference host alike.
//!
//! Parsing is two-level: first the envelope ([`envelope`]), then the value with the
//! method's own schema ([`methods`], [`frames`]); the client reads through [`read`], and the hot
//! texts (event frames, history pages, streamed chunks) through the `agent-session-onepass`
//! crate, which drives serde_json through [`visit`] like [`read`] does. Every wire type is one field list
//! ([`record`](mod@record)) from which both its serde derives (host) and its reader (client) follow.
//!
//! A crate of its own (re-exported as `agent_session::core::wire`) so the release build can
//! compile it at opt-level 3 while the rest of the wasm is built for size: every streamed
//! byte is parsed here, and generic serde_json code takes the opt-level of the crate that
//! instantiates it.
//!
//! Modules: [`envelope`], [`methods`], [`frames`], [`inbound`] (a stream payload into a frame),
//! [`event`] (session events), [`chunk`] (the `assistant/chunk` body), [`plan`]
//! (`PlanModeState`), [`interaction`] (Extension 2 values), [`error`] (`RpcError`, `RpcResult`),
//! [`json`] (a raw JSON value), [`seq`] (checked sequence numbers), [`record`](mod@record) and
//! [`pass`] (what `record!` generates: the general and the one-pass readers), [`read`] and
//! [`visit`].

#![deny(missing_docs)]

#[macro_use]
pub mod record;
pub mod chunk;
pub mod envelope;
pub mod error;
pub mod event;
pub mod frames;
pub mod inbound;
pub mod interaction;
pub mod json;
pub mod methods;
pub mod pass;
pub mod plan;
pub mod read;
pub mod seq;
pub mod visit;

pub use envelope::*;
pub use error::*;
pub use event::*;
pub use frames::*;
pub use inbound::parse_frame;
pub use json::{quote, Json};
pub use methods::*;
pub use plan::*;
