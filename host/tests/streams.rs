//! SSE framing of both streams; the mux open prelude and the host stream on both carriers.

mod common;

use agent_session_wire::Frame;
use common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Reads the raw bytes of a stream (HTTP/1.0, so no chunked encoding) until `needle`.
fn raw_stream_until(host: &Host, path: &str, needle: &str) -> String {
    let addr = host.base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(needle) {
        let n = s.read(&mut buf).expect("read stream");
        assert!(n > 0, "stream ended early: {}", String::from_utf8_lossy(&got));
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(got).unwrap()
}

#[test]
fn mux_framing_is_connected_comment_then_data_frames() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let sid = host.create();
    let text = raw_stream_until(&host, "/api/events.mux", "session/subscribed");
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.to_ascii_lowercase().contains("content-type: text/event-stream"), "{head}");
    assert!(head.to_ascii_lowercase().contains("cache-control: no-cache"), "{head}");
    assert!(body.starts_with(": connected\n\ndata: {"), "{body:?}");
    for line in body.lines().filter(|l| !l.is_empty()) {
        assert!(line == ": connected" || line.starts_with("data: "), "unexpected line {line:?}");
    }
    assert!(body.contains(&sid));
}

#[test]
fn mux_open_subscribes_every_session_with_its_last_seq() {
    let host = Host::start(&["--chunk-delay-ms", "0"]);
    let empty = host.create();
    let busy = host.create();
    host.prompt(&busy, "queue", "hello");
    let mut last = host.wait_turn_end(&busy, 1).last().unwrap()["seq"].as_i64().unwrap();
    for (turn, carrier) in (2..).zip(CARRIERS) {
        let mut mux = host.open(carrier, "/api/events.mux");
        let mut subscribed = std::collections::HashMap::new();
        for _ in 0..2 {
            match mux.frame().frame {
                Frame::Subscribed(s) => subscribed.insert(s.session_id, s.last_seq),
                other => panic!("expected session/subscribed, got {other:?}"),
            };
        }
        assert_eq!(subscribed[&empty], -1);
        assert_eq!(subscribed[&busy], last);
        // Then live frames: the next event continues the log without a gap.
        host.prompt(&busy, "queue", "again");
        let next = mux.until("an event", |f| matches!(f, Frame::Event(_)));
        match &next.last().unwrap().frame {
            Frame::Event(e) => assert_eq!(e.event.seq as i64, last + 1, "{carrier:?}"),
            _ => unreachable!(),
        }
        let frames = mux.until("turn/end", |f| is_turn_end(f, turn));
        assert!(frames.iter().all(|f| !matches!(f.frame, Frame::Subscribed(_))));
        last = *event_seqs(&frames).last().unwrap() as i64;
    }
}

#[test]
fn mux_events_arrive_in_seq_order_and_match_history() {
    for carrier in CARRIERS {
        mux_events_match_history(carrier);
    }
}

fn mux_events_match_history(carrier: Carrier) {
    let host = Host::start(&["--chunk-delay-ms", "1"]);
    let sid = host.create();
    let mut mux = host.open(carrier, "/api/events.mux");
    assert!(matches!(mux.frame().frame, Frame::Subscribed(_)));
    host.prompt(&sid, "queue", "first [tool]");
    host.prompt(&sid, "queue", "second");
    let frames = mux.until("turn/end 2", |f| is_turn_end(f, 2));
    let seqs = event_seqs(&frames);
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    let history = host.all_events(&sid);
    let streamed: Vec<serde_json::Value> = frames
        .iter()
        .filter_map(|f| match &f.frame {
            Frame::Event(e) => Some(serde_json::to_value(&e.event).unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(history[..streamed.len()], streamed[..]);
    // Frame envelopes carry fresh rpcIds.
    let ids: std::collections::HashSet<_> = frames.iter().map(|f| f.rpc_id.clone()).collect();
    assert_eq!(ids.len(), frames.len());
}

#[test]
fn host_stream_reports_added_and_status() {
    for carrier in CARRIERS {
        let host = Host::start(&["--chunk-delay-ms", "0"]);
        let mut hs = host.open(carrier, "/api/events.host");
        let sid = host.create();
        host.prompt(&sid, "queue", "hi");
        let labels: Vec<String> = (0..3)
            .map(|_| match hs.frame().frame {
                Frame::SessionAdded(f) => format!("added {}", f.session_id == sid),
                Frame::SessionStatus(f) => format!("running={}", f.running),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(labels, ["added true", "running=true", "running=false"], "{carrier:?}");
        // No heartbeats: nothing else arrives while idle.
        assert!(hs.next(Duration::from_millis(300)).is_none(), "{carrier:?}");
    }
}
