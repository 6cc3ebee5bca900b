//! The sans-IO host client: the connection controller ([`connection`]) and the host-level
//! router ([`router`]). The wasm shell performs the I/O these ask for and feeds back the
//! results together with the time and randomness they need, so every connection race is
//! reproducible natively.

pub mod carrier;
pub mod connection;
pub mod downlink;
pub mod router;
pub mod sessions;

pub use carrier::{Carrier, Carriers, Transport};
pub use connection::{Backoff, ConnCommand, ConnState, Connection, StreamKind};
pub use router::Router;
pub use sessions::{ListItem, ListState, SessionList};

#[cfg(test)]
mod carrier_tests;
#[cfg(test)]
mod tests;
