//! The sans-IO host client ([`hostclient::HostClient`]) and its parts: the connection controller
//! ([`connection`]), the carrier policy ([`carrier`]), the session router ([`router`]) and the
//! live session list ([`sessions`]). A driver (the wasm shell, the simulation) performs the
//! I/O the client asks for and feeds back what happened with the time, so every connection
//! race is reproducible natively.
//!
//! Modules: [`connection`], [`carrier`], [`downlink`] (a WebSocket downlink's URL and ticket),
//! [`router`], [`sessions`], [`timers`] (the one timer table), [`retention`] (which sessions
//! stay resident) and [`hostclient`] (the `HostClient` state machine itself); tests: `tests`
//! (controller and router), `carrier_tests`, `hostclient_tests`, `retention_tests` and their
//! `test_driver`.

pub mod carrier;
pub mod connection;
pub mod downlink;
pub mod hostclient;
pub mod retention;
pub mod router;
pub mod sessions;
pub mod timers;

pub use carrier::{Carrier, Carriers, Transport};
pub use connection::{Backoff, ConnCommand, ConnState, Connection, GenerationEnd, StreamKind};
pub use hostclient::{
    CallId, ClientDiagnostics, Config, HostCall, HostClient, Input, Instant, OpHandle, Output, Reply, SessionOp,
    Settlement, StreamId,
};
pub use retention::Retention;
pub use router::Router;
pub use sessions::{ListItem, ListState, SessionList};

#[cfg(test)]
mod carrier_tests;
#[cfg(test)]
mod hostclient_tests;
#[cfg(test)]
mod retention_tests;
#[cfg(test)]
mod test_driver;
#[cfg(test)]
mod tests;
