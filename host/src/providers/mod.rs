//! What each provider speaks, below everything that runs a turn: the one table of provider
//! names (`registry`), the model directory `session.models` answers (`models`), the adapters
//! from each provider's native messages to canonical events (`adapters`), and the scripted
//! copies of those native messages the model-free agent plays (`scripted`).

pub mod adapters;
pub mod models;
pub mod registry;
pub mod scripted;
