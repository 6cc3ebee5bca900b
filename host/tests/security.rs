//! Bearer token and CORS allow-list behaviour.

mod common;

use common::*;
use serde_json::json;

#[test]
fn token_is_required_on_every_api_route() {
    let mut host = Host::start(&["--token", "s3cret", "--faults"]);
    assert_eq!(host.call("host.describe", json!({}))["attachedSessions"], 0);
    let mut stream = host.mux();
    assert!(matches!(stream.next(WAIT), Some(Item::Comment(_))));
    host.token = None;
    let body = json!({ "type": "client-request", "rpcId": "a", "method": "host.describe", "payload": {} }).to_string();
    let raw = host.post("/api/host.describe", &body);
    assert_eq!(raw.status, 401);
    assert!(raw.content_type.starts_with("text/plain"));
    assert!(raw.body.contains("Bearer"));
    for (method, path) in
        [("GET", "/api/events.mux"), ("GET", "/api/events.host"), ("POST", "/api/respond"), ("POST", "/admin/faults")]
    {
        let body = (method == "POST").then_some("{}");
        assert_eq!(host.request(method, path, &[("content-type", "application/json")], body).status, 401, "{path}");
    }
    let raw = host.request(
        "POST",
        "/api/host.describe",
        &[("authorization", "Bearer wrong"), ("content-type", "application/json")],
        Some(&body),
    );
    assert_eq!(raw.status, 401);
}

#[test]
fn cors_is_off_by_default_and_other_origins_are_fenced_off() {
    let host = Host::start(&[]);
    let raw = host.request(
        "OPTIONS",
        "/api/host.describe",
        &[("origin", "http://a.test"), ("access-control-request-method", "POST")],
        None,
    );
    assert_eq!((raw.status, raw.body.as_str()), (403, "forbidden"));
    assert!(raw.header("access-control-allow-origin").is_none());
    let body = json!({ "type": "client-request", "rpcId": "c1", "method": "host.describe", "payload": {} }).to_string();
    let json = ("content-type", "application/json");
    let raw = host.request("POST", "/api/host.describe", &[("origin", "http://a.test"), json], Some(&body));
    assert_eq!((raw.status, raw.body.as_str()), (403, "forbidden"));
    assert!(raw.header("access-control-allow-origin").is_none());
    let raw = host.request("POST", "/api/host.describe", &[json], Some(&body));
    assert_eq!(raw.status, 200);
    assert!(raw.header("access-control-allow-origin").is_none());
}

#[test]
fn allowed_origins_get_preflights_and_headers_streams_included() {
    let host =
        Host::start(&["--allow-origin", "http://a.test", "--allow-origin", "http://b.test:8000", "--token", "t"]);
    let preflight = |origin: &str| {
        host.request(
            "OPTIONS",
            "/api/session.list",
            &[
                ("origin", origin),
                ("access-control-request-method", "POST"),
                ("access-control-request-headers", "content-type,authorization"),
            ],
            None,
        )
    };
    let ok = preflight("http://b.test:8000");
    assert!(ok.status < 300, "{}", ok.status);
    assert_eq!(ok.header("access-control-allow-origin"), Some("http://b.test:8000"));
    let methods = ok.header("access-control-allow-methods").unwrap().to_ascii_uppercase();
    for m in ["GET", "POST", "OPTIONS"] {
        assert!(methods.contains(m), "{methods}");
    }
    let headers = ok.header("access-control-allow-headers").unwrap().to_ascii_lowercase();
    assert!(headers.contains("content-type") && headers.contains("authorization"), "{headers}");
    let denied = preflight("http://evil.test");
    assert!(denied.header("access-control-allow-origin").is_none());

    let body = json!({ "type": "client-request", "rpcId": "c1", "method": "host.describe", "payload": {} }).to_string();
    let json = ("content-type", "application/json");
    let raw = host.request("POST", "/api/host.describe", &[("origin", "http://a.test"), json], Some(&body));
    assert_eq!(raw.status, 200);
    assert_eq!(raw.header("access-control-allow-origin"), Some("http://a.test"));
    // A 401 still carries CORS headers, so the browser can read it.
    let raw = host.request(
        "POST",
        "/api/host.describe",
        &[("origin", "http://a.test"), ("authorization", "Bearer no"), json],
        Some(&body),
    );
    assert_eq!(raw.status, 401);
    assert_eq!(raw.header("access-control-allow-origin"), Some("http://a.test"));

    // Streams carry the headers too (checked on the response head).
    let agent = ureq::AgentBuilder::new().build();
    let resp = agent
        .get(&host.url("/api/events.mux"))
        .set("origin", "http://a.test")
        .set("authorization", "Bearer t")
        .call()
        .unwrap();
    assert_eq!(resp.header("access-control-allow-origin"), Some("http://a.test"));
    assert_eq!(resp.header("content-type"), Some("text/event-stream"));
}
