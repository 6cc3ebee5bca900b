//! What answers a prompt: the turn runner every agent shares (`turns`), the scripted agent
//! (`script`, model-free and deterministic), the real Codex runtime (`codex`), the real Claude
//! Code runtime (`claude`), any ACP agent (`acp`), what every agent process's stdio needs
//! (`stdio`: bounded lines, the stderr tail, the crash report) and the reaper of its process
//! tree (`guard`), the logging of an adapter's canonical outputs as the origin's events
//! (`outputs`) and the glue for projections and answers (`provider`).

pub mod acp;
pub mod claude;
pub mod codex;
pub mod guard;
pub mod outputs;
pub mod provider;
pub mod script;
pub(crate) mod stdio;
pub mod turns;

pub use turns::{cancel, close_dangling_turns, prompt, publish_queue};
