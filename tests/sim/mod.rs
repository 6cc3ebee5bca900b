//! Deterministic simulation of the `HostClient` core and its sessions against model hosts
//! over an adversarial network. See `tests/simulation.rs` for the entry points.

pub mod invariants;
pub mod model_host;
pub mod network;
pub mod rng;
pub mod scenarios;
pub mod schedule;
pub mod world;
