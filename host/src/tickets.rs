//! Stream tickets: browsers cannot set headers on a WebSocket and the `--token` must never
//! travel in a URL, so an authenticated `POST /api/stream.ticket` mints a random, single-use,
//! short-lived ticket that one upgrade on either downlink presents as `?ticket=`. The route is
//! `api::stream_ticket`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const STREAM_TICKET: &str = "stream.ticket";

/// Outstanding tickets beyond this evict the one closest to expiry, so a client that mints
/// without upgrading cannot grow the table without bound.
const MAX_OUTSTANDING: usize = 1024;

/// The OS gave no random bytes for a ticket.
#[derive(Debug)]
pub struct NoRandomness(pub getrandom::Error);

impl std::fmt::Display for NoRandomness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no randomness for a ticket: {}", self.0)
    }
}

impl std::error::Error for NoRandomness {}

pub struct Tickets {
    ttl: Duration,
    /// Ticket → expiry.
    live: Mutex<HashMap<String, Instant>>,
}

impl Tickets {
    pub fn new(ttl: Duration) -> Tickets {
        Tickets { ttl, live: Mutex::new(HashMap::new()) }
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Instant>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh ticket: 256 random bits, hex (URL-safe as is).
    pub fn mint(&self) -> Result<String, NoRandomness> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(NoRandomness)?;
        let ticket: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut live = self.live();
        live.retain(|_, expiry| *expiry > now);
        if live.len() >= MAX_OUTSTANDING {
            if let Some(oldest) = live.iter().min_by_key(|(_, e)| **e).map(|(t, _)| t.clone()) {
                live.remove(&oldest);
            }
        }
        live.insert(ticket.clone(), now + self.ttl);
        Ok(ticket)
    }

    /// Consumes `ticket`; true when it was minted here, unused and unexpired.
    pub fn redeem(&self, ticket: &str) -> bool {
        self.live().remove(ticket).is_some_and(|expiry| expiry > Instant::now())
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_is_single_use_and_expires() {
        let tickets = Tickets::new(Duration::from_secs(60));
        let t = tickets.mint().unwrap();
        assert_eq!(t.len(), 64);
        assert_ne!(t, tickets.mint().unwrap());
        assert!(tickets.redeem(&t));
        assert!(!tickets.redeem(&t));
        assert!(!tickets.redeem("not-a-ticket"));
        let short = Tickets::new(Duration::ZERO);
        let t = short.mint().unwrap();
        assert!(!short.redeem(&t));
    }

    #[test]
    fn outstanding_tickets_are_bounded() {
        let tickets = Tickets::new(Duration::from_secs(60));
        let first = tickets.mint().unwrap();
        for _ in 0..MAX_OUTSTANDING {
            tickets.mint().unwrap();
        }
        assert_eq!(tickets.live().len(), MAX_OUTSTANDING);
        assert!(!tickets.redeem(&first), "the oldest ticket was evicted");
    }
}
