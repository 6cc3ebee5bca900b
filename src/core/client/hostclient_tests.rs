//! Native tests of the sans-IO host client as a driver sees it, named after the scenario.

use super::hostclient::{DEFAULT_TIMEOUT_MS, MAX_MESSAGE_BYTES, RESEED_MS, UPGRADE_TIMEOUT_MS};
use super::test_driver::*;
use super::*;
use crate::core::session::OpenState;
use crate::core::wire::ErrorCode;
use serde_json::{json, Value};

#[test]
fn a_generation_is_established_by_both_streams_and_describe_and_then_seeds_the_session_list() {
    let mut d = Driver::sse();
    assert_eq!(d.opened.len(), 2, "both downlinks asked for at once");
    assert!(d.sent.iter().any(|s| s.1 == "host.describe"));
    assert_eq!(d.sent[0].2["type"], "client-request");
    d.input(Input::StreamOpened { stream: d.opened[0].0 });
    d.answer("host.describe", DESCRIBE);
    assert_eq!(d.client.connection().state(), ConnState::Connecting, "one stream is not a generation");
    d.input(Input::StreamOpened { stream: d.opened[1].0 });
    assert_eq!(d.client.connection().state(), ConnState::Open);
    assert_eq!(d.client.transport(), Some(Carrier::Sse));
    d.answer("session.list", r#"{"items":[{"sessionId":"a","updatedAt":5,"running":false}]}"#);
    assert_eq!(d.client.sessions().items().len(), 1);
    assert_eq!(d.client.poll_timeout(), None, "nothing is scheduled on an established connection");
}

#[test]
fn a_stream_error_frame_ends_the_generation_and_the_next_one_starts_after_the_backoff() {
    let mut d = Driver::sse();
    d.establish();
    let old = d.streams_of_last_generation();
    d.frame(json!({"type":"server-request","rpcId":"x","method":"stream/error","payload":{"type":"stream/error","error":{"code":"internal","message":"boom"}}}));
    assert_eq!(d.client.connection().state(), ConnState::Reconnecting);
    assert!(matches!(d.client.connection().last_error(), Some(GenerationEnd::StreamError(_))));
    for s in &old {
        assert!(d.closed.contains(s), "the ended generation's streams are closed");
    }
    let retry = d.client.poll_timeout().expect("the retry is scheduled");
    assert!(retry.as_ms() >= d.now + 250.0 && retry.as_ms() <= d.now + 500.0, "first backoff within [base/2, base]");
    d.advance_to_timeout();
    assert_eq!(d.opened.len(), 4, "generation 2 opened its streams");
    assert_eq!(d.client.connection().generation(), 2);
}

#[test]
fn a_session_opened_on_an_established_connection_is_resynced_only_by_later_generations() {
    let mut d = Driver::sse();
    d.establish();
    d.open(1, "s1");
    d.answer("session.history", &tail_page(0, 3));
    assert_eq!(d.settlement(1), Some(&Settlement::Done));
    assert_eq!(d.client.session("s1").unwrap().open_state(), OpenState::Open);
    assert!(d.sent.iter().all(|s| s.1 != "session.history"), "no resync by the generation it opened on");
    // The connection drops and comes back: the next generation resyncs the session.
    let mux = d.mux();
    d.input(Input::StreamEnded { stream: mux, why: "stream ended".into() });
    let why = d.client.connection().last_error().map(ToString::to_string);
    assert_eq!(why.as_deref(), Some("events.mux: stream ended"));
    d.advance_to_timeout();
    d.establish();
    assert!(d.sent.iter().any(|s| s.1 == "session.history"), "the later generation resyncs");
}

#[test]
fn a_refused_websocket_falls_back_to_sse_in_the_same_generation() {
    let mut d = Driver::new(Config::default());
    assert!(d.opened.iter().all(|o| o.2 == Carrier::WebSocket));
    let ws = d.opened[0].0;
    d.input(Input::StreamClosed { stream: ws, code: Some(1006) });
    assert_eq!(d.client.connection().generation(), 1, "no new generation, no backoff");
    assert_eq!(d.closed.len(), 2, "both sockets of the generation are closed");
    let sse: Vec<_> = d.opened.iter().filter(|o| o.2 == Carrier::Sse).collect();
    assert_eq!(sse.len(), 2, "both streams reopened over SSE");
    d.establish();
    assert_eq!(d.client.transport(), Some(Carrier::Sse));
}

#[test]
fn with_a_token_each_websocket_presents_its_own_minted_ticket() {
    let mut d = Driver::new(Config { authenticated: true, ..Config::default() });
    assert!(d.opened.is_empty(), "no socket before its ticket");
    let tickets = d.sent.iter().filter(|s| s.1 == "stream.ticket").count();
    assert_eq!(tickets, 2);
    d.answer("stream.ticket", r#"{"ticket":"t-1","expiresInMs":1000}"#);
    d.answer("stream.ticket", r#"{"ticket":"t-2","expiresInMs":1000}"#);
    let mut got: Vec<_> = d.opened.iter().map(|o| o.3.clone().unwrap()).collect();
    got.sort();
    assert_eq!(got, ["t-1", "t-2"]);
}

#[test]
fn a_ticket_that_cannot_be_minted_counts_as_a_refused_socket() {
    let mut d = Driver::new(Config { authenticated: true, ..Config::default() });
    let (call, _) = d.take("stream.ticket");
    d.input(Input::Response { call, reply: Reply::Status(404) });
    assert_eq!(d.opened.iter().filter(|o| o.2 == Carrier::Sse).count(), 2, "SSE in the same generation");
    assert_eq!(d.aborted.len(), 1, "the other ticket call is given up");
}

#[test]
fn close_settles_every_pending_operation_and_closes_every_stream_and_call() {
    let mut d = Driver::sse();
    d.establish();
    d.open(1, "s1");
    d.input(Input::Host {
        handle: OpHandle(2),
        call: HostCall::Call { method: "session.list".into(), payload: "{}".into() },
    });
    d.input(Input::Session {
        handle: OpHandle(3),
        session: "s1".into(),
        op: SessionOp::Respond { key: "q:1".into(), result: Ok(crate::core::wire::Json::null()) },
    });
    d.input(Input::Close);
    assert_eq!(d.settlement(1), Some(&Settlement::Done));
    match d.settlement(2) {
        Some(Settlement::Result(Err(e))) => assert_eq!(e.code, crate::core::wire::ErrorCode::Cancelled),
        other => panic!("host call not cancelled: {other:?}"),
    }
    assert!(d.settlement(3).is_some(), "respond settled");
    assert_eq!(d.closed.len(), 2);
    assert!(d.client.poll_timeout().is_none());
    let inflight = d.client.diagnostics().inflight_calls;
    assert_eq!(inflight, 0);
    // Operations after close settle at once.
    d.open(4, "s1");
    assert_eq!(d.settlement(4), Some(&Settlement::Done));
}

#[test]
fn a_failed_session_list_seed_is_asked_again_while_its_generation_lives() {
    let mut d = Driver::sse();
    d.establish();
    let (call, _) = d.take("session.list");
    d.input(Input::Response { call, reply: Reply::Failed("network".into()) });
    let at = d.client.poll_timeout().expect("a reseed is scheduled");
    assert_eq!(at.as_ms(), d.now + RESEED_MS);
    d.advance_to_timeout();
    d.answer("session.list", r#"{"items":[]}"#);
    assert_eq!(d.client.sessions().state().as_str(), "ready");
}

#[test]
fn a_respond_whose_call_fails_settles_a_transport_receipt() {
    let mut d = Driver::sse();
    d.establish();
    d.frame(json!({"type":"server-request","rpcId":"q1","method":"question/requested",
        "payload":{"type":"question/requested","sessionId":"s1","questions":[{"id":"a","question":"ok?"}]}}));
    d.open(1, "s1");
    d.answer("session.history", &tail_page(0, 1));
    d.input(Input::Session {
        handle: OpHandle(2),
        session: "s1".into(),
        op: SessionOp::Respond { key: "question:q1".into(), result: Ok(crate::core::wire::Json::null()) },
    });
    let (call, body) = d.take("respond");
    assert_eq!(body["type"], "client-response");
    d.input(Input::Response { call, reply: Reply::Status(502) });
    match d.settlement(2) {
        Some(Settlement::Receipt(r)) => {
            let v: Value = serde_json::from_str(r.text()).unwrap();
            assert_eq!(v["accepted"], false);
            assert_eq!(v["reason"], "transport");
            assert_eq!(v["error"]["details"]["status"], 502);
        }
        other => panic!("not a receipt: {other:?}"),
    }
}

#[test]
fn unreadable_replies_are_transport_errors_naming_the_path() {
    let mut d = Driver::sse();
    d.establish();
    d.input(Input::Host {
        handle: OpHandle(1),
        call: HostCall::Call { method: "host.describe".into(), payload: "{}".into() },
    });
    let (call, _) = d.take("host.describe");
    d.input(Input::Response {
        call,
        reply: Reply::Body(r#"{"type":"server-response","rpcId":"other","result":{"ok":true,"value":{}}}"#.into()),
    });
    match d.settlement(1) {
        Some(Settlement::Result(Err(e))) => {
            assert!(e.message.starts_with("host.describe: rpcId mismatch"), "{}", e.message)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_and_dropped_frames_are_counted_not_routed() {
    let mut d = Driver::sse();
    d.establish();
    let mux = d.mux();
    d.input(Input::StreamBytes { stream: mux, bytes: b"data: {not json\n\n".to_vec() });
    d.input(Input::StreamSkipped { stream: mux });
    // A text message within the UTF-16 bound the driver copies, but over the byte bound.
    d.input(Input::StreamMessage { stream: mux, text: "\u{e9}".repeat(MAX_MESSAGE_BYTES / 2 + 1) });
    let diag = d.client.diagnostics();
    assert_eq!(diag.malformed_frames, 3);
    assert_eq!(diag.frames, 0);
}

#[test]
fn a_frame_of_a_type_the_client_does_not_know_is_handed_on_not_counted_malformed() {
    let mut d = Driver::sse();
    d.establish();
    let host = d.mux();
    let newer =
        r#"{"type":"server-request","rpcId":"r9","method":"host/goal-changed","payload":{"type":"host/goal-changed"}}"#;
    d.input(Input::StreamBytes { stream: host, bytes: format!("data: {newer}\n\n").into_bytes() });
    // A known type that fails its schema is still malformed, and not handed on.
    let bad = r#"{"type":"server-request","rpcId":"r10","method":"session/title","payload":{"type":"session/title"}}"#;
    d.input(Input::StreamBytes { stream: host, bytes: format!("data: {bad}\n\n").into_bytes() });
    assert_eq!(d.unread, vec![newer.to_string()]);
    let diag = d.client.diagnostics();
    assert_eq!((diag.frames, diag.malformed_frames), (1, 1));
}

#[test]
fn a_socket_close_is_worded_by_the_client_from_its_code() {
    let mut d = Driver::sse();
    d.establish();
    let mux = d.mux();
    d.input(Input::StreamClosed { stream: mux, code: Some(1011) });
    let why = d.client.connection().last_error().map(ToString::to_string);
    assert_eq!(why.as_deref(), Some("events.mux: closed (1011)"));
    d.advance_to_timeout();
    d.establish();
    let mux = d.mux();
    d.input(Input::StreamClosed { stream: mux, code: None });
    let why = d.client.connection().last_error().map(ToString::to_string);
    assert_eq!(why.as_deref(), Some("events.mux: error"));
}

#[test]
fn a_session_wake_comes_back_through_the_one_timer() {
    let mut d = Driver::sse();
    d.establish();
    d.open(1, "s1");
    d.answer("session.history", &tail_page(0, 1));
    // The plan query fails on the carrier: the session asks to be woken to ask again.
    let (call, _) = d.take("session.planMode");
    d.input(Input::Response { call, reply: Reply::Failed("network".into()) });
    let at = d.client.poll_timeout().expect("the session's retry wake is armed");
    assert!(at.as_ms() > d.now);
    d.advance_to_timeout();
    assert!(d.sent.iter().any(|s| s.1 == "session.planMode"), "asked again at the wake");
}

#[test]
fn a_wake_no_longer_wanted_is_cancelled_not_left_in_the_timer_table() {
    let mut d = Driver::sse();
    d.establish();
    d.seed();
    d.open(1, "s1");
    d.answer("session.history", &tail_page(0, 1));
    let plan_deadline = Some(Instant::from_ms(d.now + DEFAULT_TIMEOUT_MS));
    assert_eq!(d.client.poll_timeout(), plan_deadline, "established: only the plan query's deadline is due");
    let (call, _) = d.take("session.planMode");
    d.input(Input::Response { call, reply: Reply::Failed("network".into()) });
    assert!(d.client.poll_timeout() < plan_deadline, "the retry wake is armed, its deadline gone");
    // A live event asks again at once: the wake is no longer wanted and is cancelled.
    d.frame(json!({"type":"server-request","rpcId":"e1","method":"session/event","payload":{"type":"session/event","sessionId":"s1","event":{"type":"user/message","seq":1,"time":1.0,"data":{"content":[],"source":{"kind":"user"}}}}}));
    assert!(d.sent.iter().any(|s| s.1 == "session.planMode"), "asked again on the live event");
    assert_eq!(d.client.poll_timeout(), plan_deadline, "no wake left behind: the new query's deadline only");
}

#[test]
fn a_reconnect_is_due_one_backoff_after_the_failure_on_the_drivers_monotonic_clock() {
    // The driver's instants are monotonic (the shell reads performance.now()); the wall
    // clock, which a user or NTP may set back by an hour, is no input of the core at all (the
    // browser test a_wall_clock_set_back_an_hour_does_not_delay_the_reconnect proves the
    // shell's side).
    let mut d = Driver::sse();
    d.establish();
    let mux = d.mux();
    d.input(Input::StreamEnded { stream: mux, why: "gone".into() });
    let at = d.client.poll_timeout().expect("the retry is armed");
    assert!(at.as_ms() - d.now <= Backoff::default().cap(1), "within the first backoff cap");
    let opened = d.opened.len();
    d.advance_to_timeout();
    assert_eq!(d.opened.len(), opened + 2, "the next generation opened its streams at the deadline");
}

#[test]
fn a_clock_reading_an_hour_back_neither_moves_nor_delays_the_reconnect() {
    // A driver that read a wall clock set back by an hour would hand the core an earlier
    // instant: it counts as the last one seen, so the deadline stays where it was.
    let mut d = Driver::sse();
    d.establish();
    let mux = d.mux();
    d.input(Input::StreamEnded { stream: mux, why: "gone".into() });
    let at = d.client.poll_timeout().expect("the retry is armed");
    let now = d.now;
    d.now -= 3_600_000.0;
    d.input(Input::Timeout);
    assert_eq!(d.client.poll_timeout(), Some(at), "the deadline did not move an hour");
    let opened = d.opened.len();
    d.now = now;
    d.advance_to_timeout();
    assert_eq!(d.opened.len(), opened + 2, "the next generation opened at the deadline, not an hour later");
}

#[test]
fn frames_of_an_ended_generation_are_ignored() {
    let mut d = Driver::sse();
    d.establish();
    let old = d.mux();
    d.input(Input::StreamEnded { stream: old, why: "reset".into() });
    d.input(Input::StreamBytes { stream: old, bytes: b"data: {}\n\n".to_vec() });
    assert_eq!(d.client.diagnostics().malformed_frames, 0, "not read at all");
}

#[test]
fn a_websocket_upgrade_that_hangs_counts_as_refused_after_the_upgrade_timeout() {
    let mut d = Driver::new(Config::default());
    let at = d.client.poll_timeout().expect("the upgrade deadline is armed");
    assert_eq!(at.as_ms(), d.now + UPGRADE_TIMEOUT_MS, "well before the connect timeout");
    d.advance_to_timeout();
    assert_eq!(d.client.connection().generation(), 1, "the same generation");
    assert_eq!(d.closed.len(), 2, "the hanging sockets are closed");
    assert_eq!(d.opened.iter().filter(|o| o.2 == Carrier::Sse).count(), 2, "SSE in the same generation");
    d.establish();
    d.seed();
    assert_eq!(d.client.transport(), Some(Carrier::Sse));
    assert_eq!(d.client.poll_timeout(), None, "no stale upgrade deadline is left");
}

#[test]
fn an_opened_websocket_drops_its_upgrade_deadline() {
    let mut d = Driver::new(Config::default());
    d.establish();
    d.seed();
    assert_eq!(d.client.transport(), Some(Carrier::WebSocket));
    assert_eq!(d.client.poll_timeout(), None);
}

/// The 2026-08 host forwards `commands/change` on the host stream (capture 04). It is a
/// frame, not a malformed one, and it refreshes the command list of sessions that speak the
/// 2026-08 dialect.
#[test]
fn a_forwarded_commands_change_is_read_and_refreshes_command_lists() {
    let mut d = Driver::sse();
    d.establish_as(DESCRIBE_2026_08);
    d.open(1, "s1");
    let page = r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":-1,"values":{"title":null,"plan":{"active":false,"pending":false}}}}"#;
    d.answer("session.history", page);
    assert!(!d.sent.iter().any(|s| s.1 == "session.planMode"), "no 404 probe on the 2026-08 host");
    d.answer("commands/list", r#"[{"name":"plan","description":"Enter or leave plan mode"}]"#);
    let remote = json!({"type":"server-request","rpcId":"8a99f7c5","method":"host/remote-event","payload":{"type":"host/remote-event","event":"commands/change","args":[]}});
    let host = d.opened.iter().rev().find(|o| o.1 == StreamKind::Host).expect("a host stream").0;
    d.input(Input::StreamBytes { stream: host, bytes: format!("data: {remote}\n\n").into_bytes() });
    let diag = d.client.diagnostics();
    assert_eq!((diag.malformed_frames, diag.unrouted_frames), (0, 0));
    let (_, body) = d.take("commands/list");
    assert_eq!(body["payload"], json!({"args": {"agentId": "s1"}}));
}

fn call(method: &str, payload: &str) -> HostCall {
    HostCall::Call { method: method.into(), payload: payload.into() }
}

#[test]
fn a_call_sends_any_method_and_settles_with_the_hosts_result_as_written_its_own_codes_kept() {
    let mut d = Driver::sse();
    d.establish_as(DESCRIBE_2026_08);
    d.input(Input::Host { handle: OpHandle(5), call: call("workspace.rename", r#"{"workspaceId":"w1","title":"x"}"#) });
    let (c, body) = d.take("workspace.rename");
    assert_eq!((body["type"].as_str(), body["method"].as_str()), (Some("client-request"), Some("workspace.rename")));
    assert_eq!(body["payload"], json!({"workspaceId": "w1", "title": "x"}));
    let result =
        r#"{"ok":false,"error":{"code":"workspace-not-found","message":"no w1","details":{"workspaceId":"w1"}}}"#;
    let text = format!(r#"{{"type":"server-response","rpcId":{},"result":{result}}}"#, body["rpcId"]);
    d.input(Input::Response { call: c, reply: Reply::Body(text) });
    match d.settlement(5) {
        Some(Settlement::Receipt(v)) => assert_eq!(v.value()["error"]["code"], "workspace-not-found"),
        other => panic!("{other:?}"),
    }
    // An answer that is no result object is the client's transport error, not handed through.
    d.input(Input::Host { handle: OpHandle(6), call: call("session.models", "{}") });
    let (c, body) = d.take("session.models");
    let text = format!(r#"{{"type":"server-response","rpcId":{},"result":5}}"#, body["rpcId"]);
    d.input(Input::Response { call: c, reply: Reply::Body(text) });
    assert!(matches!(d.settlement(6), Some(Settlement::Result(Err(e))) if e.code == ErrorCode::Internal));
}

#[test]
fn a_call_a_host_does_not_know_resolves_unsupported_and_a_fork_sends_its_payload() {
    let mut d = Driver::sse();
    d.establish_as(DESCRIBE_2026_08);
    d.input(Input::Host { handle: OpHandle(5), call: call("session.fork", r#"{"sessionId":"s1","atSeq":12}"#) });
    let (c, body) = d.take("session.fork");
    assert_eq!(body["payload"], json!({"sessionId": "s1", "atSeq": 12}));
    d.input(Input::Response { call: c, reply: Reply::Status(404) });
    assert!(matches!(d.settlement(5), Some(Settlement::Result(Err(e))) if e.code == ErrorCode::Unsupported));
    d.input(Input::Host { handle: OpHandle(6), call: call("session.fork", r#"{"sessionId":"s1"}"#) });
    d.answer("session.fork", r#"{"sessionId":"s2"}"#);
    match d.settlement(6) {
        Some(Settlement::Receipt(v)) => assert_eq!(v.value(), json!({"ok": true, "value": {"sessionId": "s2"}})),
        other => panic!("{other:?}"),
    }
}

/// A browser reports every failed request as a console error, so what the seed host lacks
/// is never asked of it: its description (no `canOpenPath`) says which host it is.
#[test]
fn a_seed_host_is_asked_only_its_own_methods_and_the_rest_resolve_unsupported_without_a_request() {
    let mut d = Driver::sse();
    d.establish();
    d.seed();
    d.input(Input::Host { handle: OpHandle(5), call: call("workspace.list", "{}") });
    assert!(matches!(d.settlement(5), Some(Settlement::Result(Err(e))) if e.code == ErrorCode::Unsupported));
    // A session verb the seed does not have, the same way.
    d.open(1, "s1");
    d.answer("session.history", r#"{"events":[],"hasMore":false}"#);
    let verb = crate::core::session::io::Call::Rename { title: "t".into() };
    d.input(Input::Session { handle: OpHandle(6), session: "s1".into(), op: SessionOp::Verb(verb) });
    assert!(matches!(d.settlement(6), Some(Settlement::Result(Err(e))) if e.code == ErrorCode::Unsupported));
    let asked: Vec<&str> = d.sent.iter().map(|s| s.1.as_str()).collect();
    assert!(!asked.iter().any(|m| *m == "workspace.list" || *m == "session.rename"), "{asked:?}");
    assert_eq!(d.client.diagnostics().inflight_calls, d.sent.len(), "nothing waits but what was sent");
    // Its own methods are asked as ever.
    d.input(Input::Host { handle: OpHandle(7), call: call("session.list", "{}") });
    d.answer("session.list", r#"{"items":[]}"#);
    assert!(matches!(d.settlement(7), Some(Settlement::Receipt(_))));
}

#[test]
fn each_connects_description_decides_again_what_the_host_is_asked() {
    let mut d = Driver::sse();
    d.establish();
    d.seed();
    d.input(Input::Host { handle: OpHandle(5), call: call("session.search", r#"{"query":"a"}"#) });
    assert!(matches!(d.settlement(5), Some(Settlement::Result(Err(e))) if e.code == ErrorCode::Unsupported));
    // The host comes back as the 2026-08 host (upgraded while the page stayed open).
    let mux = d.mux();
    d.input(Input::StreamEnded { stream: mux, why: "stream ended".into() });
    d.advance_to_timeout();
    d.establish_as(DESCRIBE_2026_08);
    d.input(Input::Host { handle: OpHandle(6), call: call("session.search", r#"{"query":"a"}"#) });
    d.answer("session.search", r#"{"items":[],"hasMore":false}"#);
    assert!(matches!(d.settlement(6), Some(Settlement::Receipt(_))));
}

/// Upstream's own client sends the browser's zone with every prompt; the 2026-08 host keeps it
/// on the user message (the seed's schema drops a member it does not know).
#[test]
fn a_prompt_carries_the_clients_time_zone_where_it_has_one() {
    for zone in [Some("America/Argentina/Buenos_Aires"), None] {
        let mut d = Driver::new(Config {
            client_time_zone: zone.map(Into::into),
            transport: Transport::Only(Carrier::Sse),
            ..Config::default()
        });
        d.establish();
        d.seed();
        d.open(1, "s1");
        d.answer("session.history", r#"{"events":[],"hasMore":false}"#);
        let content = crate::core::wire::Json::from_text(r#"[{"type":"text","text":"hi"}]"#).unwrap();
        let prompt = SessionOp::Prompt { content, mode: crate::core::wire::PromptMode::Queue, adopted: None };
        d.input(Input::Session { handle: OpHandle(2), session: "s1".into(), op: prompt });
        let (_, body) = d.take("session.prompt");
        assert_eq!(body["payload"].get("clientTimeZone").and_then(Value::as_str), zone, "{body}");
        assert_eq!(body["payload"]["content"][0]["text"], "hi");
    }
}

#[test]
fn an_abandoned_call_is_aborted_settles_cancelled_once_and_leaves_no_deadline() {
    let mut d = Driver::sse();
    d.establish_as(DESCRIBE_2026_08);
    d.seed();
    assert_eq!(d.client.poll_timeout(), None, "no deadline before the call");
    d.input(Input::Host { handle: OpHandle(5), call: call("session.search", r#"{"query":"a"}"#) });
    assert!(d.client.poll_timeout().is_some(), "the call's deadline is in the timer table");
    let (c, body) = d.take("session.search");
    d.input(Input::Abandon { handle: OpHandle(5) });
    assert_eq!(d.aborted, vec![c]);
    assert!(matches!(d.settlement(5), Some(Settlement::Result(Err(e))) if e.code == ErrorCode::Cancelled));
    assert_eq!(d.client.poll_timeout(), None, "its deadline went with it");
    // A late answer and a second abort change nothing.
    let text = format!(r#"{{"type":"server-response","rpcId":{},"result":{{"ok":true,"value":{{}}}}}}"#, body["rpcId"]);
    d.input(Input::Response { call: c, reply: Reply::Body(text) });
    d.input(Input::Abandon { handle: OpHandle(5) });
    assert_eq!(d.settled.iter().filter(|s| s.0 == OpHandle(5)).count(), 1);
    assert_eq!(d.aborted, vec![c]);
}

#[test]
fn a_handover_close_starts_the_next_generation_at_once_without_counting_an_attempt() {
    let mut d = Driver::new(Config::default());
    d.establish();
    d.open(1, "s1");
    d.answer("session.history", &tail_page(0, 3));
    let mux = d.mux();
    d.input(Input::StreamClosed { stream: mux, code: Some(0) });
    assert_eq!(d.client.connection().last_error(), Some(&GenerationEnd::Handover));
    assert_eq!(d.client.connection().attempt(), 0, "a handover is not a failure");
    let retry = d.client.poll_timeout().expect("the next generation is due");
    assert!(retry.as_ms() <= d.now, "no backoff");
    d.advance_to_timeout();
    assert_eq!(d.client.connection().generation(), 2);
    assert!(d.opened.iter().rev().take(2).all(|o| o.2 == Carrier::WebSocket), "the carrier is kept");
    d.establish();
    assert!(d.sent.iter().any(|s| s.1 == "session.history"), "the next generation resyncs");
    // A handover of a socket not yet open is not a refusal: no fallback to SSE.
    let mux = d.mux();
    d.input(Input::StreamClosed { stream: mux, code: Some(0) });
    d.advance_to_timeout();
    let mux = d.mux();
    d.input(Input::StreamClosed { stream: mux, code: Some(0) });
    assert_eq!(d.client.connection().last_error(), Some(&GenerationEnd::Handover));
    d.advance_to_timeout();
    assert!(d.opened.iter().all(|o| o.2 == Carrier::WebSocket));
}

/// The carrier-failure message a host call settled with.
fn failure(d: &Driver, handle: u64) -> String {
    match d.settlement(handle) {
        Some(Settlement::Result(Err(e))) => e.message.clone(),
        other => panic!("expected a failed result, got {other:?}"),
    }
}

#[test]
fn a_call_unanswered_past_the_request_timeout_is_aborted_and_fails_with_the_timeout() {
    let mut d = Driver::sse();
    d.establish();
    d.seed();
    let sent_at = d.now;
    d.input(Input::Host {
        handle: OpHandle(7),
        call: HostCall::Call { method: "session.list".into(), payload: "{}".into() },
    });
    let (call, _) = d.take("session.list");
    let deadline = Instant::from_ms(sent_at + DEFAULT_TIMEOUT_MS);
    assert_eq!(d.client.poll_timeout(), Some(deadline), "the call's deadline is the one timer");
    d.advance_to_timeout();
    assert_eq!(d.aborted, vec![call], "the driver is told to abort it");
    assert_eq!(failure(&d, 7), "session.list: timed out after 30000 ms");
    assert_eq!(d.client.poll_timeout(), None, "nothing left to time");
    // Its late answer is not read.
    d.input(Input::Response { call, reply: Reply::Body(String::new()) });
    assert_eq!(d.settled.len(), 1);
}

#[test]
fn an_answered_call_leaves_no_deadline_and_a_zero_timeout_arms_none() {
    let mut d = Driver::sse();
    d.establish();
    d.seed();
    d.input(Input::Host {
        handle: OpHandle(7),
        call: HostCall::Call { method: "session.list".into(), payload: "{}".into() },
    });
    d.answer("session.list", r#"{"items":[]}"#);
    assert_eq!(d.client.poll_timeout(), None, "the deadline went with the answer");
    let mut d =
        Driver::new(Config { transport: Transport::Only(Carrier::Sse), request_timeout_ms: 0.0, ..Config::default() });
    d.establish();
    d.input(Input::Host {
        handle: OpHandle(7),
        call: HostCall::Call { method: "session.list".into(), payload: "{}".into() },
    });
    assert_eq!(d.client.poll_timeout(), None, "requestTimeoutMs 0: no call deadline");
}

#[test]
fn a_body_past_max_response_bytes_is_aborted_and_fails_naming_the_limit() {
    let mut d =
        Driver::new(Config { transport: Transport::Only(Carrier::Sse), max_response_bytes: 16, ..Config::default() });
    d.establish();
    d.seed();
    d.input(Input::Host {
        handle: OpHandle(7),
        call: HostCall::Call { method: "session.list".into(), payload: "{}".into() },
    });
    let (call, _) = d.take("session.list");
    d.input(Input::ResponseBytes { call, bytes: vec![b' '; 16] });
    assert!(d.aborted.is_empty() && d.settled.is_empty(), "16 bytes are within the bound");
    d.input(Input::ResponseBytes { call, bytes: vec![b' '] });
    assert_eq!(d.aborted, vec![call], "the 17th byte: the driver is told to abort it");
    assert_eq!(failure(&d, 7), "session.list: response body over the 16-byte limit (maxResponseBytes)");
    assert_eq!(d.client.poll_timeout(), None, "its deadline went with it");
    d.input(Input::ResponseBytes { call, bytes: vec![b' '] });
    d.input(Input::Response { call, reply: Reply::Failed("AbortError".into()) });
    assert_eq!((d.aborted.len(), d.settled.len()), (1, 1), "nothing more is read of it");
}

#[test]
fn a_client_only_made_resident_never_connects_until_its_first_other_input() {
    let mut client = HostClient::new(Config::default());
    let now = Instant::from_ms(5.0);
    assert_eq!(client.poll_timeout(), None, "not started: no timer");
    client.handle_input(now, Input::Ensure { session: "s1".into() });
    assert!(client.session("s1").is_some(), "resident");
    assert_eq!(client.connection().generation(), 0, "a server render's only input starts nothing");
    assert_eq!(client.poll_timeout(), None);
    assert!(std::iter::from_fn(|| client.poll_output())
        .all(|o| !matches!(o, Output::OpenStream { .. } | Output::Send { .. })));
    client.handle_input(now, Input::Watch { session: "s1".into(), listeners: true });
    assert_eq!(client.connection().generation(), 1, "a subscriber starts it");
    assert!(std::iter::from_fn(|| client.poll_output()).any(|o| matches!(o, Output::OpenStream { .. })));
    let mut closed = HostClient::new(Config::default());
    closed.handle_input(now, Input::Close);
    assert!(closed.is_closed());
    assert_eq!(closed.connection().generation(), 0, "closed before it started: it never connected");
}

/// The reference host's 2026-08 transcripts, written from upstream's source
/// (`host/tests/fixtures/head/`), replayed through the core as `host.call`: every request is
/// sent as written, every answer settles as the host wrote its `result` (upstream's error
/// codes kept); the `host/workspace-*` frames between them are read, dropped and counted,
/// never routed.
#[test]
fn the_2026_08_methods_written_from_upstream_source_replay_through_call_as_written() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("host/tests/fixtures/head");
    let mut files: Vec<_> = [dir.clone(), dir.join("refusals")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).expect("the fixtures"))
        .map(|e| e.expect("entry").path())
        .collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "txt"));
    files.sort();
    assert!(files.len() >= 13, "{files:?}");
    let (mut answers, mut frames) = (0, 0);
    for file in files {
        let mut d = Driver::sse();
        d.establish_as(DESCRIBE_2026_08);
        let host = d.opened.iter().rev().find(|o| o.1 == StreamKind::Host).expect("a host stream").0;
        let text = std::fs::read_to_string(&file).expect("readable");
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        let mut handle = 100;
        for pair in lines.windows(2) {
            let (head, body) = (pair[0], pair[1]);
            if let Some(rest) = head.strip_prefix("> [http") {
                let method =
                    rest.split("POST /api/").nth(1).and_then(|m| m.split_whitespace().next()).expect("a method");
                let sent: Value = serde_json::from_str(body.trim_start_matches("> ")).expect("a request");
                handle += 1;
                let payload = sent["payload"].to_string();
                d.input(Input::Host { handle: OpHandle(handle), call: call(method, &payload) });
                let (c, on_wire) = d.take(method);
                assert_eq!(
                    (on_wire["method"].as_str(), &on_wire["payload"]),
                    (Some(method), &sent["payload"]),
                    "{file:?}"
                );
                let at = lines.iter().position(|l| std::ptr::eq(*l, body)).expect("here");
                let mut answer: Value = serde_json::from_str(&lines[at + 2][2..]).expect("an answer");
                answer["rpcId"] = on_wire["rpcId"].clone();
                d.input(Input::Response { call: c, reply: Reply::Body(answer.to_string()) });
                match d.settlement(handle) {
                    Some(Settlement::Receipt(v)) => assert_eq!(v.value(), answer["result"], "{file:?}"),
                    other => panic!("{file:?}: {method}: {other:?}"),
                }
                answers += 1;
            } else if let Some(frame) = head.strip_prefix("< [host") {
                let json = &frame[frame.find(']').expect("a stamp") + 2..];
                let before = d.client.diagnostics();
                d.unread.clear();
                d.input(Input::StreamBytes { stream: host, bytes: format!("data: {json}\n\n").into_bytes() });
                let after = d.client.diagnostics();
                // A frame the client has no model of is read and handed on as it came.
                assert_eq!(d.unread, vec![json.to_string()], "{file:?}: {json}");
                assert_eq!(after.malformed_frames, before.malformed_frames, "{file:?}: {json}");
                assert_eq!(after.unrouted_frames, before.unrouted_frames);
                frames += 1;
            }
        }
    }
    assert!(answers >= 30 && frames >= 5, "{answers} answers, {frames} frames");
}
