//! The host wire contract (`shared/CONTRACT.md`): envelopes, method payloads and values,
//! session events and stream frames. One definition, used by the client core and the
//! reference host alike.
//!
//! Parsing is two-level: first the envelope ([`envelope`]), then the value with the
//! method's own schema ([`methods`], [`frames`]).

pub mod envelope;
pub mod error;
pub mod event;
pub mod frames;
pub(crate) mod hot;
pub mod interaction;
pub mod json;
pub mod methods;
pub mod plan;
pub mod read;

pub use envelope::*;
pub use error::*;
pub use event::*;
pub use frames::*;
pub use json::Json;
pub use methods::*;
pub use plan::*;
