//! Where a WebSocket downlink connects, and the ticket that authorizes it.
//!
//! Browsers cannot set headers on a WebSocket upgrade, and the long-lived bearer token must
//! never appear in a URL (logs, history, `Referer`). So a client with a token first mints a
//! single-use, short-lived ticket with an authenticated unary call ([`STREAM_TICKET`]) and
//! puts only that ticket in the upgrade URL: one ticket per socket.

use crate::core::wire::read::Obj;
use crate::core::wire::Json;

/// The unary method that mints an upgrade ticket: payload `{}`, value
/// `{ ticket: string, expiresInMs: number }`.
pub const STREAM_TICKET: &str = "stream.ticket";

/// The upgrade URL of the downlink at `path` (`events.mux`, `events.host`): `http:` becomes
/// `ws:` and `https:` becomes `wss:`; any other base (already `ws:`, or relative, which
/// browsers resolve against the page) is kept. `base` has no trailing `/`.
pub fn ws_url(base: &str, path: &str, ticket: Option<&str>) -> String {
    // The scheme is matched on bytes (ASCII, any case): no lowering copy, no formatting.
    let has_scheme = |s: &str| base.len() >= s.len() && base.as_bytes()[..s.len()].eq_ignore_ascii_case(s.as_bytes());
    let mut url = String::with_capacity(base.len() + path.len() + 6);
    if has_scheme("https:") {
        url.push_str("wss");
        url.push_str(&base[5..]);
    } else if has_scheme("http:") {
        url.push_str("ws");
        url.push_str(&base[4..]);
    } else {
        url.push_str(base);
    }
    url.push_str("/api/");
    url.push_str(path);
    if let Some(t) = ticket {
        url.push_str("?ticket=");
        percent_encode(t, &mut url);
    }
    url
}

/// Query-component encoding: everything but RFC 3986 unreserved characters.
fn percent_encode(s: &str, out: &mut String) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.extend(['%', HEX[usize::from(b >> 4)] as char, HEX[usize::from(b & 15)] as char]);
        }
    }
}

/// Why a `stream.ticket` value holds no usable ticket.
#[derive(Debug, Clone, PartialEq)]
pub enum TicketError {
    /// The value is not `{ticket: string, …}` (what was wrong with it).
    Shape(String),
    /// The ticket is an empty string.
    Empty,
}

impl std::fmt::Display for TicketError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TicketError::Shape(e) => write!(f, "stream.ticket: {e}"),
            TicketError::Empty => f.write_str("stream.ticket: empty ticket"),
        }
    }
}

impl std::error::Error for TicketError {}

/// The ticket from a `stream.ticket` value.
pub fn read_ticket(value: &Json) -> Result<String, TicketError> {
    let ticket =
        Obj::parse(value.text()).and_then(|o| o.str("ticket")).map_err(|e| TicketError::Shape(e.to_string()))?;
    if ticket.is_empty() {
        return Err(TicketError::Empty);
    }
    Ok(ticket)
}
