//! The trust fence: Host, Origin, Sec-Fetch-Site and the JSON content type, on POSTs, on
//! stream GETs and on WebSocket upgrades.

mod common;

use common::*;
use serde_json::json;

const ALLOWED: &str = "http://allowed.test:8000";

fn list_body() -> String {
    json!({ "type": "client-request", "rpcId": "f1", "method": "session.list", "payload": {} }).to_string()
}

fn create_body() -> String {
    json!({ "type": "client-request", "rpcId": "f2", "method": "session.create", "payload": {} }).to_string()
}

/// The header sets a browser on another site, or a DNS-rebound page, would send.
fn refused_headers(host: &Host) -> Vec<(String, Vec<(&'static str, String)>)> {
    let authority = host.base.trim_start_matches("http://").to_string();
    let port = authority.rsplit_once(':').unwrap().1.to_string();
    vec![
        ("cross-origin Origin".into(), vec![("origin", "http://evil.example".into())]),
        ("foreign Host (DNS rebinding)".into(), vec![("host", format!("evil.example:{port}"))]),
        (
            "foreign Host with its own Origin".into(),
            vec![("host", format!("evil.example:{port}")), ("origin", format!("http://evil.example:{port}"))],
        ),
        ("loopback Host on another port".into(), vec![("host", "127.0.0.1:1".into())]),
        (
            "Sec-Fetch-Site cross-site".into(),
            vec![("origin", format!("http://{authority}")), ("sec-fetch-site", "cross-site".into())],
        ),
        ("opaque Origin null".into(), vec![("origin", "null".into())]),
        ("Origin of another loopback name".into(), vec![("origin", format!("http://localhost:{port}"))]),
    ]
}

fn accepted_headers(host: &Host) -> Vec<(String, Vec<(&'static str, String)>)> {
    let authority = host.base.trim_start_matches("http://").to_string();
    let port = authority.rsplit_once(':').unwrap().1.to_string();
    vec![
        ("no Origin".into(), vec![]),
        (
            "same origin".into(),
            vec![("origin", format!("http://{authority}")), ("sec-fetch-site", "same-origin".into())],
        ),
        (
            "localhost".into(),
            vec![("host", format!("localhost:{port}")), ("origin", format!("http://localhost:{port}"))],
        ),
        ("allow-listed Origin".into(), vec![("origin", ALLOWED.into()), ("sec-fetch-site", "same-site".into())]),
        (
            "allow-listed cross-site Origin".into(),
            vec![("origin", ALLOWED.into()), ("sec-fetch-site", "cross-site".into())],
        ),
    ]
}

fn with_json<'a>(headers: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    let mut h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    h.push(("content-type", "application/json"));
    h
}

#[test]
fn refused_posts_are_403_and_have_no_effect() {
    let host = Host::start(&["--allow-origin", ALLOWED, "--faults"]);
    for (what, headers) in refused_headers(&host) {
        for path in ["/api/session.create", "/api/respond", "/admin/faults", "/api/stream.ticket", "/api/nope"] {
            let raw = host.request("POST", path, &with_json(&headers), Some(&create_body()));
            assert_eq!((raw.status, raw.body.as_str()), (403, "forbidden"), "{what} {path}");
            assert_eq!(raw.content_type, "text/plain;charset=UTF-8", "{what} {path}");
        }
    }
    assert_eq!(host.call("session.list", json!({}))["items"], json!([]), "no session was created");
}

#[test]
fn trusted_posts_pass() {
    let host = Host::start(&["--allow-origin", ALLOWED]);
    for (what, headers) in accepted_headers(&host) {
        let raw = host.request("POST", "/api/session.list", &with_json(&headers), Some(&list_body()));
        assert_eq!(raw.status, 200, "{what}: {}", raw.body);
        assert_eq!(raw.json()["result"]["ok"], true, "{what}");
    }
}

#[test]
fn posts_must_be_json() {
    let host = Host::start(&["--faults"]);
    for content_type in [Some("text/plain"), Some("application/x-www-form-urlencoded"), None] {
        let headers: Vec<(&str, &str)> = content_type.map(|c| ("content-type", c)).into_iter().collect();
        for path in ["/api/session.create", "/api/respond", "/api/stream.ticket", "/admin/faults"] {
            let raw = host.request("POST", path, &headers, Some(&create_body()));
            assert_eq!((raw.status, raw.body.as_str()), (415, "content type must be application/json"), "{path}");
            assert_eq!(raw.content_type, "text/plain;charset=UTF-8");
        }
    }
    assert_eq!(host.call("session.list", json!({}))["items"], json!([]), "no session was created");
    let raw = host.request(
        "POST",
        "/api/session.list",
        &[("content-type", "Application/JSON; charset=utf-8")],
        Some(&list_body()),
    );
    assert_eq!(raw.status, 200);
    // The fence answers before the 415: a cross-site simple POST is forbidden outright.
    let raw = host.request(
        "POST",
        "/api/session.create",
        &[("content-type", "text/plain"), ("origin", "http://evil.example")],
        Some(&create_body()),
    );
    assert_eq!(raw.status, 403);
}

#[test]
fn stream_gets_are_fenced() {
    let host = Host::start(&["--allow-origin", ALLOWED]);
    for (what, headers) in refused_headers(&host) {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        for path in ["/api/events.mux", "/api/events.host"] {
            let raw = host.request("GET", path, &headers, None);
            assert_eq!((raw.status, raw.body.as_str()), (403, "forbidden"), "{what} {path}");
        }
    }
}

#[test]
fn upgrades_are_fenced_on_both_paths() {
    let host = Host::start(&["--allow-origin", ALLOWED]);
    host.create();
    for path in ["/api/events.mux", "/api/events.host"] {
        for (what, headers) in refused_headers(&host) {
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let raw = host.ws(path, &headers).err().unwrap_or_else(|| panic!("{what}: {path} upgraded"));
            assert_eq!((raw.status, raw.body.as_str()), (403, "forbidden"), "{what} {path}");
        }
        for (what, headers) in accepted_headers(&host) {
            let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let mut ws = host.ws(path, &headers).unwrap_or_else(|r| panic!("{what} {path}: {} {}", r.status, r.body));
            if path == "/api/events.mux" {
                assert!(matches!(ws.frame().frame, agent_session_wire::Frame::Subscribed(_)), "{what}");
            }
        }
    }
}

#[test]
fn the_fence_answers_before_the_token() {
    let mut host = Host::start(&["--token", "t0k"]);
    host.token = None;
    let evil = [("origin", "http://evil.example"), ("content-type", "application/json")];
    assert_eq!(host.request("POST", "/api/session.list", &evil, Some(&list_body())).status, 403);
    assert_eq!(host.ws("/api/events.mux", &evil[..1]).err().map(|r| r.status), Some(403));
    let json = [("content-type", "application/json")];
    assert_eq!(host.request("POST", "/api/session.list", &json, Some(&list_body())).status, 401);
}

#[test]
fn static_files_are_not_fenced() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<p>demo</p>").unwrap();
    let host = Host::start(&["--static", dir.path().to_str().unwrap()]);
    let raw = host.request("GET", "/index.html", &[("origin", "http://evil.example")], None);
    assert_eq!((raw.status, raw.body.as_str()), (200, "<p>demo</p>"));
}
