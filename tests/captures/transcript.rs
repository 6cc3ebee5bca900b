//! Reads the capture transcripts' text format (curl-like `>`/`<` lines, raw SSE bodies).

use std::path::PathBuf;

/// The raw transcripts captured from the origin host, kept in the repository as fixtures
/// (`tests/fixtures/wire/`; its README tells where each came from).
pub fn captures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wire")
}

/// The body of a raw HTTP response transcript: everything after the blank line.
pub fn sse_body(text: &str) -> String {
    let normalized = text.replace("\r\n", "\n");
    match normalized.split_once("\n\n") {
        Some((_, body)) => body.to_string(),
        None => String::new(),
    }
}

pub struct RpcExchange {
    pub path: String,
    pub request: String,
    pub status: u16,
    pub response: String,
}

/// Parses a `> POST /api/x` … body … `< HTTP/1.1 200` … `< body` transcript.
pub fn rpc_exchange(text: &str) -> RpcExchange {
    let mut path = String::new();
    let mut request = String::new();
    let mut status = 0;
    let mut response = String::new();
    let mut in_response_body = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("> POST ") {
            path = rest.split_whitespace().next().unwrap_or("").to_string();
        } else if let Some(rest) = line.strip_prefix("< HTTP/1.1 ") {
            status = rest.split_whitespace().next().and_then(|s| s.parse().ok()).unwrap_or(0);
        } else if line == "< " || line == "<" {
            in_response_body = true;
        } else if let Some(rest) = line.strip_prefix("< ") {
            if in_response_body {
                response.push_str(rest);
            }
        } else if line.starts_with('{') && request.is_empty() {
            request = line.to_string();
        }
    }
    RpcExchange { path, request, status, response }
}

pub struct EdgeSection {
    #[allow(dead_code)]
    pub title: String,
    pub status: u16,
    pub body: String,
}

/// `### title` sections of `edge-cases.txt`, each a status line, headers, blank, body.
pub fn edge_sections(text: &str) -> Vec<EdgeSection> {
    text.split("### ")
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let (title, rest) = s.split_once('\n').unwrap_or((s, ""));
            let status =
                rest.lines().next().and_then(|l| l.split_whitespace().nth(1)).and_then(|c| c.parse().ok()).unwrap_or(0);
            let body = rest.split_once("\n\n").map(|(_, b)| b.trim().to_string()).unwrap_or_default();
            EdgeSection { title: title.trim().to_string(), status, body }
        })
        .collect()
}

/// One `POST /api/respond` of a WebSocket-era transcript (`websocket/05-*.txt`): the compact
/// form `> [http @ms] POST /api/respond (…)`, `> body`, then `< [http @ms] HTTP/1.1 NNN …`,
/// `< body` (stream lines of other channels may come between).
pub struct Exchange {
    pub request: String,
    pub status: u16,
    pub response: String,
}

pub fn http_exchanges(text: &str, path: &str) -> Vec<Exchange> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    let opening = format!("] POST {path}");
    while let Some(line) = lines.next() {
        if !(line.starts_with("> [http @") && line.contains(&opening)) {
            continue;
        }
        let request = lines.next().and_then(|l| l.strip_prefix("> ")).unwrap_or_default().to_string();
        let status_line = lines.by_ref().find(|l| l.starts_with("< [http @")).unwrap_or_default();
        let status = status_line.split("HTTP/1.1 ").nth(1).and_then(|r| r.get(..3)).and_then(|c| c.parse().ok());
        let response = lines.next().and_then(|l| l.strip_prefix("< ")).unwrap_or_default().to_string();
        out.push(Exchange { request, status: status.unwrap_or(0), response });
    }
    out
}

/// One recorded step of a WebSocket-era transcript, in capture order.
#[derive(Debug)]
pub enum Step {
    /// A text message the host sent on a downlink (`mux`, `mux2`, `host`, …).
    Message { channel: String, json: String },
    /// `POST /api/<path>` with its body.
    Request { path: String, body: String },
    /// The HTTP answer to the request before it.
    Response { status: u16, body: String },
}

/// Reads the compact `> [chan @ms] …` / `< [chan @ms] …` lines of `websocket/0[45]-*.txt`.
pub fn ws_steps(text: &str) -> Vec<Step> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let (sent, rest) = match (line.strip_prefix("> ["), line.strip_prefix("< [")) {
            (Some(r), _) => (true, r),
            (_, Some(r)) => (false, r),
            _ => continue,
        };
        let Some((tag, after)) = rest.split_once("] ") else { continue };
        let channel = tag.split(" @").next().unwrap_or_default().to_string();
        if channel == "http" {
            let body = lines.peek().and_then(|l| l.strip_prefix(if sent { "> " } else { "< " }));
            let body = body.filter(|b| !b.starts_with('[')).map(str::to_string);
            if sent {
                if let Some(path) = after.strip_prefix("POST /api/") {
                    let path = path.split_whitespace().next().unwrap_or_default().to_string();
                    out.push(Step::Request { path, body: body.clone().unwrap_or_default() });
                }
            } else if let Some(code) = after.strip_prefix("HTTP/1.1 ").and_then(|r| r.get(..3)) {
                out.push(Step::Response { status: code.parse().unwrap_or(0), body: body.clone().unwrap_or_default() });
            }
            if body.is_some() {
                lines.next();
            }
        } else if !sent && after.starts_with('{') {
            out.push(Step::Message { channel, json: after.to_string() });
        }
    }
    out
}
