//! What answers a prompt: the scripted agent (`script`, model-free and deterministic) and the
//! glue that logs a provider adapter's canonical outputs (`provider`).

pub mod provider;
pub mod script;

pub use script::{cancel, close_dangling_turns, prompt, publish_queue};
