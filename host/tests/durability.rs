//! kill -9 and restart: every acknowledged event (HTTP answered or frame broadcast) is still
//! there, the pending plan intent survives, and a turn cut short is closed on restart.

mod common;

use agent_session_wire::Frame;
use common::*;
use serde_json::{json, Value};

#[test]
fn kill_9_loses_no_acknowledged_event() {
    let mut host = Host::start(&["--chunk-delay-ms", "5"]);
    let sid = host.create();
    let other = host.create();
    host.prompt(&sid, "queue", "first");
    host.wait_turn_end(&sid, 1);
    // A pending selection, then a turn killed mid-stream.
    assert_eq!(
        host.call("session.setPlanMode", json!({ "sessionId": other, "active": true })),
        json!({ "active": false, "pending": true })
    );
    let mut mux = host.mux();
    host.prompt(&sid, "queue", "second prompt whose reply is long enough to be cut in the middle by the kill");
    let frames = mux.until("a few deltas of turn 2", |f| {
        matches!(f, Frame::Event(e) if e.event.data_value()["turn"] == 2 && e.event.data_value()["chunk"]["type"] == "text-delta")
    });
    let seen: Vec<Value> = frames
        .iter()
        .filter_map(|f| match &f.frame {
            Frame::Event(e) if e.session_id == sid => Some(serde_json::to_value(&e.event).unwrap()),
            _ => None,
        })
        .collect();
    let acked_before = host.all_events(&sid);
    host.kill9_and_restart();

    let after = host.all_events(&sid);
    for e in acked_before.iter().chain(seen.iter()) {
        let seq = e["seq"].as_u64().unwrap() as usize;
        assert_eq!(&after[seq], e, "event {seq} changed or lost");
    }
    for (i, e) in after.iter().enumerate() {
        assert_eq!(e["seq"], i as u64, "contiguous after restart");
    }
    // The cut turn is closed as interrupted, exactly once.
    let last = after.last().unwrap();
    assert_eq!((last["type"].as_str(), last["data"]["turn"].as_u64()), (Some("turn/end"), Some(2)));
    assert_eq!(last["data"]["reason"]["kind"], "interrupted");
    // The pending intent survived and still commits at the next turn.
    assert_eq!(
        host.call("session.planMode", json!({ "sessionId": other })),
        json!({ "active": false, "pending": true })
    );
    host.prompt(&other, "queue", "plan now");
    let events = host.wait_turn_end(&other, 1);
    assert_eq!(events[1]["type"], "plan/mode");
    assert_eq!(host.call("session.planMode", json!({ "sessionId": other })), json!({ "active": true }));
    // The mux open reports the durable last seqs; turn numbers continue.
    let mut mux = host.mux();
    let f = mux.until("subscribed", |f| matches!(f, Frame::Subscribed(s) if s.session_id == sid)).pop().unwrap();
    let Frame::Subscribed(s) = f.frame else { unreachable!() };
    assert_eq!(s.last_seq, last["seq"].as_i64().unwrap());
    host.prompt(&sid, "queue", "third");
    let events = host.wait_turn_end(&sid, 3);
    assert_eq!(events.iter().filter(|e| e["type"] == "turn/end").count(), 3);

    // A second restart does not close anything twice; plan state is rebuilt from the log.
    let before = host.all_events(&sid).len();
    host.kill9_and_restart();
    assert_eq!(host.all_events(&sid).len(), before);
    assert_eq!(host.call("session.planMode", json!({ "sessionId": other })), json!({ "active": true }));
}
