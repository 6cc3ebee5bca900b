//! Replays the origin's captured RPC sequences (`tests/fixtures/wire/plan-mode-service-*`)
//! against the real host binary: same RPC values in the same order, same event-type
//! sequence on the mux and host streams (ids and times differ).
//!
//! Normalisation, both sides alike: only frames of the replayed session; `session/title`
//! events and frames are compared apart (the origin's model title lands mid-stream at a
//! timing-dependent chunk), runs of `text-delta` chunks count as one (the scripted text has
//! its own length), and our extension frames (`session/projection`) are checked apart.

mod common;
// Shared with the client's capture tests; this file uses only part of it.
#[allow(dead_code)]
#[path = "../../tests/captures/transcript.rs"]
mod transcript;

use agent_session_onepass::sse::{SseItem, SseParser};
use agent_session_wire::{parse_frame, Frame, SessionAddedFrame, SessionStatusFrame};
use common::*;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

struct Exchange {
    name: String,
    method: String,
    request: Value,
    status: u16,
    response: String,
}

fn exchanges(dir: &Path) -> Vec<Exchange> {
    let mut files: Vec<_> = fs::read_dir(dir).expect("captures dir").map(|e| e.expect("entry").path()).collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("00-")))
        .map(|p| {
            let text = fs::read_to_string(&p).expect("read capture");
            let path = text.lines().find_map(|l| l.strip_prefix("> POST /api/")).expect("request line");
            let method = path.split_whitespace().next().expect("method").to_string();
            let request = text
                .lines()
                .find(|l| l.starts_with('{'))
                .map(|l| serde_json::from_str(l).expect("request json"))
                .expect("body");
            let status = text
                .lines()
                .find_map(|l| l.strip_prefix("< HTTP/1.1 "))
                .and_then(|s| s.split_whitespace().next())
                .and_then(|s| s.parse().ok())
                .expect("status");
            let response =
                text.lines().filter_map(|l| l.strip_prefix("< ")).next_back().expect("response body").to_string();
            Exchange { name: p.file_name().unwrap().to_string_lossy().into_owned(), method, request, status, response }
        })
        .collect()
}

/// Normalised label sequence of one session's frames (see the module doc).
fn labels<'a>(frames: impl IntoIterator<Item = &'a Frame>, sid: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in frames {
        if f.session_id() != Some(sid) {
            continue;
        }
        let label = match f {
            Frame::Title(_) | Frame::Projection(_) => continue,
            Frame::Event(e) if e.event.kind == "session/title" => continue,
            Frame::Event(e) if e.event.kind == "assistant/chunk" => {
                format!("assistant/chunk:{}", e.event.data_value()["chunk"]["type"].as_str().unwrap_or("?"))
            }
            other => frame_label(other),
        };
        if label == "assistant/chunk:text-delta" && out.last() == Some(&label) {
            continue;
        }
        out.push(label);
    }
    out
}

fn event_labels(events: &[Value]) -> Vec<String> {
    let frames: Vec<Frame> = events
        .iter()
        .map(|e| {
            serde_json::from_str(&json!({ "type": "session/event", "sessionId": "s", "event": e }).to_string())
                .expect("event")
        })
        .collect();
    labels(&frames, "s")
}

fn capture_frames(file: &Path) -> Vec<Frame> {
    let text = fs::read_to_string(file).expect("read stream capture");
    let body = text.replace("\r\n", "\n");
    let (_, body) = body.split_once("\n\n").expect("headers end");
    assert!(body.starts_with(": connected\n\n"), "origin stream starts with : connected");
    let mut parser = SseParser::default();
    let mut items = Vec::new();
    parser.push(body.as_bytes(), &mut items);
    items
        .into_iter()
        .filter_map(|i| match i {
            SseItem::Data(d) => Some(parse_frame(&d).expect("capture frame parses").frame),
            _ => None,
        })
        .collect()
}

fn history_events(v: &Value) -> Vec<Value> {
    v["events"].as_array().expect("events").iter().map(|i| i["event"].clone()).collect()
}

fn replay(flavor: &str, args: &[&str]) {
    let dir = captures_dir().join(flavor);
    let host = Host::start(args);
    let mut host_stream = host.host_stream();
    let mut mux = None;
    let mut sid = String::new();
    let mut origin_sid = String::new();
    let mut turns_started = 0;
    let mut projections = Vec::new();
    for ex in exchanges(&dir) {
        let expected: Value =
            if ex.status == 200 { serde_json::from_str(&ex.response).expect("response json") } else { Value::Null };
        // Wait where the origin's capture shows a finished turn before the call.
        if matches!(ex.method.as_str(), "session.history") || ex.name.starts_with("09-") || ex.name.starts_with("16-") {
            host.wait_turn_end(&sid, turns_started);
        }
        let mut payload = ex.request["payload"].clone();
        if payload["sessionId"] == origin_sid.as_str() && !origin_sid.is_empty() {
            payload["sessionId"] = json!(sid);
        }
        if ex.status != 200 {
            let raw = host.post(
                &format!("/api/{}", ex.method),
                &json!({ "type": "client-request", "rpcId": "x", "method": ex.method, "payload": payload }).to_string(),
            );
            assert_eq!(raw.status, ex.status, "{}", ex.name);
            assert_eq!(raw.body, ex.response, "{}", ex.name);
            assert!(raw.content_type.starts_with("text/plain"), "{}", ex.name);
            continue;
        }
        let got = host.envelope(&ex.method, payload)["result"].clone();
        let want = expected["result"].clone();
        assert_eq!(got["ok"], want["ok"], "{}: {got}", ex.name);
        match ex.method.as_str() {
            "host.describe" => {
                let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
                assert_eq!(keys(&got["value"]), keys(&want["value"]), "{}", ex.name);
            }
            "session.create" => {
                sid = got["value"]["sessionId"].as_str().expect("sid").to_string();
                origin_sid = want["value"]["sessionId"].as_str().expect("origin sid").to_string();
                assert!(sid.starts_with("session-"));
                mux = Some(host.mux());
            }
            "session.list" => {
                let ours = got["value"]["items"].as_array().expect("items");
                let item = ours.iter().find(|i| i["sessionId"] == sid.as_str()).expect("listed");
                let theirs = &want["value"]["items"][0];
                assert_eq!(item["running"], theirs["running"]);
                assert_eq!(item["cwd"], theirs["cwd"]);
            }
            "session.history" => {
                assert_eq!(got["value"]["hasMore"], want["value"]["hasMore"], "{}", ex.name);
                assert_eq!(
                    event_labels(&history_events(&got["value"])),
                    event_labels(&history_events(&want["value"])),
                    "{}",
                    ex.name
                );
                let baseline = &got["value"]["projections"];
                if ex.request["payload"].get("beforeSeq").is_none() {
                    let last = history_events(&got["value"]).last().map_or(-1, |e| e["seq"].as_i64().unwrap());
                    assert_eq!(baseline["asOfSeq"], last);
                    projections.push(baseline["values"].clone());
                }
            }
            _ => {
                if ex.method == "session.prompt" {
                    turns_started += 1;
                }
                assert_eq!(got, want, "{}", ex.name);
            }
        }
    }
    host.wait_turn_end(&sid, turns_started);

    // The mux stream: same event-type sequence as the origin's.
    let mut mux = mux.expect("mux opened");
    let ours = mux.until("turn/end 2", |f| is_turn_end(f, 2));
    let ours: Vec<Frame> = ours.into_iter().map(|f| f.frame).collect();
    let theirs = capture_frames(&dir.join("00-events.mux.sse.txt"));
    assert_eq!(labels(&ours, &sid), labels(&theirs, &origin_sid), "mux stream ({flavor})");
    // Titles: the same count and kinds as the origin's, each frame after its event.
    let titles = |fs: &[Frame], s: &str| {
        fs.iter()
            .filter_map(|f| match f {
                Frame::Title(t) if t.session_id == s => Some(format!("frame@{}", t.event_seq)),
                Frame::Event(e) if e.session_id == s && e.event.kind == "session/title" => {
                    Some(format!("event@{}", e.event.seq))
                }
                _ => None,
            })
            .count()
    };
    assert_eq!(titles(&ours, &sid), titles(&theirs, &origin_sid));

    // The host stream.
    let theirs = capture_frames(&dir.join("00-events.host.sse.txt"));
    let want: Vec<String> = theirs.iter().map(|f| format!("{f:?}").replace(&origin_sid, "S")).collect();
    let mut got = Vec::new();
    while got.len() < want.len() {
        // Our extension fields (CONTRACT-EXTENSIONS.md §6) are compared elsewhere (titles.rs).
        let frame = match host_stream.frame().frame {
            Frame::SessionAdded(f) => Frame::SessionAdded(SessionAddedFrame { cwd: None, updated_at: None, ..f }),
            Frame::SessionStatus(f) => {
                Frame::SessionStatus(SessionStatusFrame { waiting: None, updated_at: None, ..f })
            }
            other => other,
        };
        got.push(format!("{frame:?}").replace(&sid, "S"));
    }
    assert_eq!(got, want, "host stream ({flavor})");

    // Extension 1: projection rows follow the plan value.
    let proj: Vec<Value> = ours
        .iter()
        .filter_map(|f| match f {
            Frame::Projection(p) => Some(json!({ "key": p.key, "value": p.value })),
            _ => None,
        })
        .collect();
    if args.contains(&"--no-plan-mode") {
        assert!(proj.is_empty());
        assert!(projections.iter().all(|v| v.get("plan").is_none()));
        assert!(!ours.iter().any(|f| matches!(f, Frame::Event(e) if e.event.kind == "plan/mode")));
    } else {
        assert_eq!(
            proj,
            vec![
                json!({ "key": "plan", "value": { "active": false, "pending": true } }),
                json!({ "key": "plan", "value": { "active": true } }),
                json!({ "key": "plan", "value": { "active": true, "pending": false } }),
                json!({ "key": "plan", "value": { "active": false } }),
            ]
        );
        assert_eq!(projections.first(), Some(&json!({ "plan": { "active": true } })));
    }
}

#[test]
fn plan_mode_service_mounted_sequence() {
    replay("plan-mode-service-mounted", &["--chunk-delay-ms", "0"]);
}

#[test]
fn plan_mode_service_absent_sequence() {
    replay("plan-mode-service-absent", &["--chunk-delay-ms", "0", "--no-plan-mode"]);
}

/// The origin's `/api/respond` answers whose request does not depend on its own ids (an
/// unknown rpcId, a client-request where a client-response belongs) get the same bare
/// receipt, byte for byte, from our host.
#[test]
fn respond_answers_the_origins_bare_receipts() {
    let text = fs::read_to_string(captures_dir().join("websocket/05-plan-review-respond.txt")).expect("capture");
    let host = Host::start(&[]);
    let mut compared = 0;
    for ex in transcript::http_exchanges(&text, "/api/respond") {
        let request: Value = serde_json::from_str(&ex.request).expect("request json");
        let unknown_id = request["rpcId"] == "no-such-rpc";
        let wrong_type = request["type"] != "client-response";
        if !(unknown_id || wrong_type) {
            continue;
        }
        let raw = host.post("/api/respond", &ex.request);
        assert_eq!((raw.status, raw.body.as_str()), (ex.status, ex.response.as_str()), "{}", ex.request);
        assert!(raw.content_type.starts_with("application/json"));
        compared += 1;
    }
    assert_eq!(compared, 2, "both id-independent exchanges of the capture were replayed");
}
