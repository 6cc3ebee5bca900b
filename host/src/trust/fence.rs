//! The trust fence in front of `/api/*` and `/admin/*` (upgrades included). A local agent
//! host is a confused deputy for any web page open in the user's browser, in two ways:
//! - DNS rebinding: the attacker's name resolves to 127.0.0.1, the page is "same origin"
//!   with it and CORS never applies; only `Host` still names the attacker, so `Host` must be
//!   an authority this host serves: the loopback names or the `--listen` host, with the
//!   bound port (any IP literal when listening on an unspecified address: a literal cannot
//!   be rebound).
//! - Cross-site requests: a page elsewhere fires a "simple" POST (`text/plain`, no
//!   preflight) or opens a WebSocket (never subject to CORS). An `Origin`, when present,
//!   must be this host's own origin or on `--allow-origin`; `Sec-Fetch-Site: cross-site`
//!   is refused unless the `Origin` is allow-listed (listing an origin is the operator's
//!   explicit trust, whatever site it is on); a POST must say `application/json`, which a
//!   browser only sends cross-origin after a preflight.
//!
//! Requests without `Origin` (curl, tests, same-origin GETs) pass on `Host` alone. Refusals
//! are `403 forbidden` / `415`, plain text, before any parsing or authentication.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

pub struct Fence {
    port: u16,
    /// The `--listen` host, lowercased, IPv6 in brackets.
    listen_host: String,
    /// Listening on `0.0.0.0` / `[::]`: any IP-literal `Host` is ours.
    any_ip: bool,
    /// `--allow-origin` entries, lowercased, without a trailing `/`.
    allowed: Vec<String>,
}

/// An authority (`host[:port]`) split into a lowercased host (IPv6 bracketed) and a port
/// (80 when absent: the browser omits the default port of `http:`).
fn authority(s: &str) -> Option<(String, u16)> {
    let s = s.trim().to_ascii_lowercase();
    let (host, port) = if s.starts_with('[') {
        let end = s.find(']')?;
        let (host, rest) = s.split_at(end + 1);
        match rest {
            "" => (host.to_string(), None),
            _ => (host.to_string(), Some(rest.strip_prefix(':')?)),
        }
    } else {
        match s.split_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (s.clone(), None),
        }
    };
    if host.is_empty() || host.contains(['/', '@', ' ', '\\']) {
        return None;
    }
    let port = match port {
        None => 80,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => p.parse().ok()?,
        Some(_) => return None,
    };
    Some((host, port))
}

fn ip_literal(host: &str) -> Option<IpAddr> {
    host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host).parse().ok()
}

fn header_str<'a>(headers: &'a HeaderMap, name: &header::HeaderName) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{0}invalid"))
}

impl Fence {
    /// `listen` is the `--listen` value as given, `bound` the address actually bound.
    pub fn new(listen: &str, bound: SocketAddr, allow_origins: &[String]) -> Fence {
        let listen_host = match listen.rsplit_once(':') {
            Some((host, _)) => host.to_ascii_lowercase(),
            None => bound.ip().to_string(),
        };
        let any_ip = ip_literal(&listen_host).is_some_and(|ip| ip.is_unspecified());
        let listen_host = match ip_literal(&listen_host) {
            Some(IpAddr::V6(ip)) => format!("[{ip}]"),
            Some(IpAddr::V4(ip)) => ip.to_string(),
            None => listen_host,
        };
        let allowed = allow_origins.iter().map(|o| o.trim_end_matches('/').to_ascii_lowercase()).collect();
        Fence { port: bound.port(), listen_host, any_ip, allowed }
    }

    fn serves(&self, host: &str, port: u16) -> bool {
        port == self.port
            && (LOOPBACK_NAMES.contains(&host)
                || host == self.listen_host
                || (self.any_ip && ip_literal(host).is_some()))
    }

    /// `Err` names the reason (for the host's log; the client only sees `forbidden`).
    fn trust(&self, headers: &HeaderMap) -> Result<(), Untrusted> {
        let host = header_str(headers, &header::HOST).ok_or(Untrusted::NoHost)?;
        let (name, port) = authority(host).ok_or_else(|| Untrusted::UnparsableHost(host.to_string()))?;
        if !self.serves(&name, port) {
            return Err(Untrusted::ForeignHost(host.to_string()));
        }
        let origin = header_str(headers, &header::ORIGIN);
        let allowed = origin.is_some_and(|o| self.allowed.iter().any(|a| a.eq_ignore_ascii_case(o)));
        if !allowed && header_str(headers, &header::HeaderName::from_static("sec-fetch-site")) == Some("cross-site") {
            return Err(Untrusted::CrossSite);
        }
        match origin {
            None => Ok(()),
            Some(_) if allowed => Ok(()),
            Some(o) if o.strip_prefix("http://").and_then(authority) == Some((name, port)) => Ok(()),
            Some(o) => Err(Untrusted::ForeignOrigin(o.to_string())),
        }
    }
}

/// Why a request is refused (403 `forbidden`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Untrusted {
    NoHost,
    UnparsableHost(String),
    /// A Host that is not an authority of this host (DNS rebinding).
    ForeignHost(String),
    CrossSite,
    ForeignOrigin(String),
}

impl std::fmt::Display for Untrusted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Untrusted::NoHost => f.write_str("no Host header"),
            Untrusted::UnparsableHost(h) => write!(f, "unparsable Host {h:?}"),
            Untrusted::ForeignHost(h) => write!(f, "Host {h:?} is not an authority of this host"),
            Untrusted::CrossSite => f.write_str("Sec-Fetch-Site: cross-site from an origin not on --allow-origin"),
            Untrusted::ForeignOrigin(o) => {
                write!(f, "Origin {o:?} is neither this host's origin nor on --allow-origin")
            }
        }
    }
}

impl std::error::Error for Untrusted {}

fn fenced(path: &str) -> bool {
    ["/api", "/admin"].iter().any(|p| path.strip_prefix(p).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
}

fn is_json(headers: &HeaderMap) -> bool {
    header_str(headers, &header::CONTENT_TYPE)
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

pub async fn check(State(fence): State<Arc<Fence>>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if !fenced(path) {
        return next.run(req).await;
    }
    if let Err(reason) = fence.trust(req.headers()) {
        eprintln!("agent-session-host: 403 {} {path}: {reason}", req.method());
        return crate::http::rpc::text(StatusCode::FORBIDDEN, "forbidden");
    }
    if req.method() == Method::POST && !is_json(req.headers()) {
        return crate::http::rpc::text(StatusCode::UNSUPPORTED_MEDIA_TYPE, "content type must be application/json");
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn fence(listen: &str, port: u16, allow: &[&str]) -> Fence {
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        Fence::new(listen, SocketAddr::new(ip, port), &allow.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn authorities_parse_and_normalize() {
        assert_eq!(authority("LocalHost:80"), Some(("localhost".into(), 80)));
        assert_eq!(authority("example.test"), Some(("example.test".into(), 80)));
        assert_eq!(authority("[::1]:7878"), Some(("[::1]".into(), 7878)));
        for bad in ["", ":80", "a:", "a:b", "[::1", "[::1]x", "a:1:2", "u@a:1", "a:99999"] {
            assert_eq!(authority(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn host_must_be_loopback_or_the_listen_host_with_the_port() {
        let f = fence("127.0.0.1:0", 4000, &[]);
        for ok in ["127.0.0.1:4000", "localhost:4000", "[::1]:4000", "LOCALHOST:4000"] {
            assert_eq!(f.trust(&headers(&[("host", ok)])), Ok(()), "{ok}");
        }
        for bad in ["evil.example:4000", "127.0.0.1:4001", "localhost", "10.0.0.2:4000"] {
            assert!(f.trust(&headers(&[("host", bad)])).is_err(), "{bad}");
        }
        assert!(f.trust(&HeaderMap::new()).is_err());
        let any = fence("0.0.0.0:4000", 4000, &[]);
        assert_eq!(any.trust(&headers(&[("host", "10.0.0.2:4000")])), Ok(()));
        assert!(any.trust(&headers(&[("host", "evil.example:4000")])).is_err());
        let named = fence("devbox.lan:4000", 4000, &[]);
        assert_eq!(named.trust(&headers(&[("host", "devbox.lan:4000")])), Ok(()));
    }

    #[test]
    fn origin_must_be_same_origin_or_allowed() {
        let f = fence("127.0.0.1:4000", 4000, &["http://a.test:9/"]);
        let h = |origin: &str, site: Option<&str>| {
            let mut h = headers(&[("host", "127.0.0.1:4000"), ("origin", origin)]);
            if let Some(s) = site {
                h.insert("sec-fetch-site", HeaderValue::from_str(s).unwrap());
            }
            f.trust(&h)
        };
        assert_eq!(h("http://127.0.0.1:4000", Some("same-origin")), Ok(()));
        assert_eq!(h("http://a.test:9", Some("cross-site")), Ok(()));
        for bad in ["http://evil.example", "http://localhost:4000", "null", "https://127.0.0.1:4000"] {
            assert!(h(bad, None).is_err(), "{bad}");
        }
        assert!(h("http://127.0.0.1:4000", Some("cross-site")).is_err());
        assert!(f.trust(&headers(&[("host", "127.0.0.1:4000"), ("sec-fetch-site", "cross-site")])).is_err());
    }

    #[test]
    fn only_api_and_admin_are_fenced_and_posts_need_json() {
        assert!(fenced("/api") && fenced("/api/session.list") && fenced("/admin/faults"));
        assert!(!fenced("/") && !fenced("/apix") && !fenced("/index.html"));
        assert!(is_json(&headers(&[("content-type", "Application/JSON; charset=utf-8")])));
        assert!(!is_json(&headers(&[("content-type", "text/plain")])));
        assert!(!is_json(&HeaderMap::new()));
    }
}
