//! The durable log and what shares it: each session's in-memory state and its one write path
//! (`session`), the SQLite store (`store`), the fan-out of frames (`hub`), the questions and
//! approvals waiting for an answer (`interact`), the plan-mode service whose commits are log
//! events (`plan`), the 2026-08 workspace registry (`registry`), the message scan behind
//! `session.search` (`search`), the sessions held (`roster`, owned by the app), where a child
//! session comes from (`lineage`, stored) and how one is made (`children`), and `base`, the
//! context all of them take, with the `Spawner` through which a turn starts a child.

pub mod base;
pub mod children;
pub mod hub;
pub mod interact;
pub mod lineage;
pub mod plan;
pub mod registry;
pub mod roster;
pub mod search;
pub mod session;
pub mod store;
