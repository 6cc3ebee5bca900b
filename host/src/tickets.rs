//! Stream tickets: browsers cannot set headers on a WebSocket and the `--token` must never
//! travel in a URL, so an authenticated `POST /api/stream.ticket` mints a random, single-use,
//! short-lived ticket that one upgrade on either downlink presents as `?ticket=`.

use crate::app::App;
use crate::rpc::{self, invalid_payload, issue};
use agent_session_wire::RpcError;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const STREAM_TICKET: &str = "stream.ticket";

/// Outstanding tickets beyond this evict the one closest to expiry, so a client that mints
/// without upgrading cannot grow the table without bound.
const MAX_OUTSTANDING: usize = 1024;

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
    pub fn mint(&self) -> Result<String, String> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a ticket: {e}"))?;
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

/// `POST /api/stream.ticket` (payload `{}`): `{ticket, expiresInMs}`.
pub async fn mint(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Ok(v) = serde_json::from_slice::<Value>(&body) else { return rpc::not_json() };
    let rpc_id = rpc::rpc_id_of(&v);
    let result = rpc::check_envelope(&v, "client-request").and_then(|()| {
        match v.get("method").and_then(Value::as_str) {
            Some(STREAM_TICKET) => {}
            other => {
                return Err(RpcError::bad_request(
                    format!("method {:?} does not match path {STREAM_TICKET:?}", other.unwrap_or_default()),
                    vec![],
                ))
            }
        }
        match v.get("payload") {
            None | Some(Value::Null | Value::Object(_)) => {}
            Some(_) => return Err(invalid_payload(STREAM_TICKET, vec![issue(vec![], "expected object")])),
        }
        let ticket = app.tickets.mint().map_err(rpc::internal)?;
        Ok(json!({ "ticket": ticket, "expiresInMs": app.tickets.ttl().as_millis() as u64 }))
    });
    rpc::respond(&rpc_id, result)
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
