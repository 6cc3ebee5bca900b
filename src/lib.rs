//! agent-session: the browser-side session object of an AI-coding-agent web UI.
//!
//! Layout:
//! - [`core`]: the sans-IO brain (wire types, SSE parser, session state machine, projection
//!   store). No I/O, no clock, no wasm types: it builds and tests natively.
//! - `wasm` (only on `wasm32`): the thin shell that drives the core from the browser.

// Every public item of the core says what it is for; the wasm shell is exempt (its exports
// are documented in types/index.d.ts and docs/API.md).
#[deny(missing_docs)]
pub mod core;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
