//! `POST /api/stream.ticket` and how an upgrade authenticates with `--token`.

mod common;

use common::*;
use serde_json::json;
use std::time::Duration;

const TOKEN: &str = "s3cret";

fn ticket(host: &Host) -> String {
    let v = host.call("stream.ticket", json!({}));
    let t = v["ticket"].as_str().expect("ticket").to_string();
    assert_eq!(t.len(), 64, "256 bits, hex");
    assert!(t.bytes().all(|b| b.is_ascii_hexdigit()), "{t}");
    t
}

/// An upgrade with no `Authorization` header; `Err` is the refused answer's status.
fn upgrade(host: &Host, path: &str) -> Result<FrameStream, u16> {
    host.ws(path, &[]).map_err(|r| r.status)
}

#[test]
fn a_ticket_opens_one_upgrade_on_either_path() {
    let host = Host::start(&["--token", TOKEN]);
    let sid = host.create();
    let v = host.call("stream.ticket", json!({}));
    assert_eq!(v["expiresInMs"], 30_000);
    let t = v["ticket"].as_str().unwrap();
    assert_ne!(ticket(&host), t, "every ticket is fresh");

    let mut mux = upgrade(&host, &format!("/api/events.mux?ticket={t}")).expect("ticket accepted");
    match mux.frame().frame {
        agent_session_wire::Frame::Subscribed(s) => assert_eq!(s.session_id, sid),
        other => panic!("expected session/subscribed, got {other:?}"),
    }
    assert_eq!(upgrade(&host, &format!("/api/events.host?ticket={t}")).err(), Some(401), "single use");
    let t2 = ticket(&host);
    assert!(upgrade(&host, &format!("/api/events.host?x=1&ticket={t2}")).is_ok(), "the other path");
    assert_eq!(upgrade(&host, "/api/events.mux?ticket=0123").err(), Some(401), "unknown ticket");
    assert_eq!(upgrade(&host, "/api/events.mux").err(), Some(401), "neither ticket nor token");
}

#[test]
fn the_bearer_header_still_opens_an_upgrade() {
    let host = Host::start(&["--token", TOKEN]);
    let bearer = format!("Bearer {TOKEN}");
    assert!(host.ws("/api/events.mux", &[("authorization", &bearer)]).is_ok());
    let refused = host.ws("/api/events.mux", &[("authorization", "Bearer wrong")]).err().map(|r| r.status);
    assert_eq!(refused, Some(401));
}

#[test]
fn minting_needs_the_token_and_a_ticket_only_opens_upgrades() {
    let mut host = Host::start(&["--token", TOKEN]);
    let t = ticket(&host);
    host.token = None;
    let body = json!({ "type": "client-request", "rpcId": "k1", "method": "stream.ticket", "payload": {} });
    assert_eq!(host.post("/api/stream.ticket", &body.to_string()).status, 401);
    // Not a credential for SSE or unary calls (and not spent by them).
    assert_eq!(host.request("GET", &format!("/api/events.mux?ticket={t}"), &[], None).status, 401);
    let describe = json!({ "type": "client-request", "rpcId": "k2", "method": "host.describe", "payload": {} });
    assert_eq!(host.post(&format!("/api/host.describe?ticket={t}"), &describe.to_string()).status, 401);
    assert!(upgrade(&host, &format!("/api/events.mux?ticket={t}")).is_ok());
}

#[test]
fn a_ticket_expires() {
    let host = Host::start(&["--token", TOKEN, "--ticket-ttl-ms", "150"]);
    let v = host.call("stream.ticket", json!({}));
    assert_eq!(v["expiresInMs"], 150);
    let late = v["ticket"].as_str().unwrap().to_string();
    let fresh = ticket(&host);
    assert!(upgrade(&host, &format!("/api/events.host?ticket={fresh}")).is_ok(), "in time");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(upgrade(&host, &format!("/api/events.host?ticket={late}")).err(), Some(401));
}

#[test]
fn without_a_token_tickets_are_minted_and_upgrades_need_none() {
    let host = Host::start(&[]);
    let t = ticket(&host);
    assert!(upgrade(&host, "/api/events.mux").is_ok());
    assert!(upgrade(&host, &format!("/api/events.mux?ticket={t}")).is_ok());
    assert!(upgrade(&host, "/api/events.host?ticket=anything").is_ok());
}

#[test]
fn bad_ticket_requests_are_business_errors() {
    let host = Host::start(&[]);
    let env = |body: serde_json::Value| host.post("/api/stream.ticket", &body.to_string()).json();
    let e = env(json!({ "type": "client-request", "rpcId": "b1", "method": "stream.ticket", "payload": [] }));
    assert_eq!(e["rpcId"], "b1");
    assert_eq!(e["result"]["error"]["code"], "bad-request");
    assert_eq!(e["result"]["error"]["message"], "invalid payload for stream.ticket");
    let e = env(json!({ "type": "client-request", "rpcId": "b2", "method": "host.describe", "payload": {} }));
    assert_eq!(e["result"]["error"]["message"], "method \"host.describe\" does not match path \"stream.ticket\"");
    let e = env(json!({ "rpcId": "b3", "method": "stream.ticket" }));
    assert_eq!(e["result"]["error"]["code"], "bad-request");
    let raw = host.post("/api/stream.ticket", "{nope");
    assert_eq!((raw.status, raw.body.as_str()), (400, "body is not JSON"));
}

#[test]
fn unary_fault_knobs_do_not_touch_tickets() {
    let host = Host::start(&["--faults"]);
    host.admin(json!({ "command": "fail", "count": 1 }));
    ticket(&host);
    let body = json!({ "type": "client-request", "rpcId": "u1", "method": "host.describe", "payload": {} });
    let raw = host.post("/api/host.describe", &body.to_string());
    assert_eq!((raw.status, raw.body.as_str()), (503, "injected failure"), "the knob was left for the next call");
}
