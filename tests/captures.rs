//! Decodes every raw transcript under `tests/fixtures/wire/` (captured from the origin host)
//! with the core's wire types and SSE parser, and replays the mounted capture through the
//! session core. The captures are ground truth: a drift in the wire types fails here first.

#[path = "captures/transcript.rs"]
mod transcript;

use agent_session::core::session::{NodeKind, Session};
use agent_session::core::sse::{SseItem, SseParser};
use agent_session::core::wire::{self, parse_frame, ClientRequest, Envelope, Frame, PlanModeState};
use serde_json::{json, Value};
use std::path::PathBuf;
use transcript::{captures_dir, rpc_exchange, sse_body, RpcExchange};

fn files(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(captures_dir().join(sub))
        .unwrap_or_else(|e| panic!("read {sub}: {e}"))
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Every frame of an SSE body, fed in awkward chunks to prove the parser is split-proof.
fn frames_of(body: &[u8]) -> (Vec<String>, Vec<wire::InboundFrame>) {
    let mut parser = SseParser::default();
    let mut items = Vec::new();
    for chunk in body.chunks(7) {
        parser.push(chunk, &mut items);
    }
    let mut comments = Vec::new();
    let mut frames = Vec::new();
    for item in items {
        match item {
            SseItem::Comment(c) => comments.push(c),
            SseItem::Data(d) => frames.push(parse_frame(&d).unwrap_or_else(|e| panic!("{e}: {d}"))),
            SseItem::Oversize(n) => panic!("oversize frame of {n} bytes"),
        }
    }
    (comments, frames)
}

fn event_seqs(frames: &[wire::InboundFrame]) -> Vec<u64> {
    frames.iter().filter_map(|f| f.frame.event()).map(|e| e.seq).collect()
}

fn plan_events(frames: &[wire::InboundFrame]) -> Vec<(u64, bool)> {
    frames
        .iter()
        .filter_map(|f| match &f.frame {
            Frame::Event(e) if e.event.kind == "plan/mode" => {
                Some((e.event.seq, e.event.data_value()["active"].as_bool()?))
            }
            _ => None,
        })
        .collect()
}

/// Checks one RPC transcript at both parse levels and returns its decoded value.
fn check_rpc(ex: &RpcExchange) -> Option<Result<wire::Json, wire::RpcError>> {
    let req: ClientRequest = match Envelope::parse(&ex.request).unwrap() {
        Envelope::ClientRequest(r) => r,
        other => panic!("not a client-request: {other:?}"),
    };
    assert_eq!(format!("/api/{}", req.method), ex.path, "method equals the path");
    if ex.status != 200 {
        assert_eq!((ex.status, ex.response.trim()), (404, "not found"), "only the unknown method is non-200");
        assert!(!wire::METHODS.contains(&req.method.as_str()));
        return None;
    }
    let result = wire::parse_server_response(&ex.response, &req.rpc_id).expect("server-response echoing rpcId");
    if let Ok(value) = &result {
        wire::validate_value(&req.method, value).unwrap_or_else(|e| panic!("{}: {e}", ex.path));
    }
    Some(result)
}

#[test]
fn every_capture_file_decodes() {
    let mut decoded = 0;
    for sub in ["plan-mode-service-mounted", "plan-mode-service-absent"] {
        for path in files(sub) {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".sse.txt") {
                let (comments, frames) = frames_of(sse_body(&text).as_bytes());
                assert_eq!(comments.first().map(String::as_str), Some("connected"), "{name}");
                assert!(!frames.is_empty(), "{name}");
            } else {
                check_rpc(&rpc_exchange(&text));
            }
            decoded += 1;
        }
    }
    assert_eq!(decoded, 2 * 20, "every transcript of both captures was read");
}

#[test]
fn the_mounted_mux_capture_has_a_contiguous_log_with_two_plan_commits() {
    let text = std::fs::read_to_string(captures_dir().join("plan-mode-service-mounted/00-events.mux.sse.txt")).unwrap();
    let (_, frames) = frames_of(sse_body(&text).as_bytes());
    assert!(matches!(&frames[0].frame, Frame::Subscribed(s) if s.last_seq == -1));
    assert_eq!(event_seqs(&frames), (0..=39).collect::<Vec<_>>());
    assert_eq!(plan_events(&frames), vec![(1, true), (22, false)]);
    let titles = frames.iter().filter(|f| matches!(f.frame, Frame::Title(_))).count();
    assert_eq!(titles, 2);
}

#[test]
fn the_absent_mux_capture_has_no_plan_events_and_two_subscriptions() {
    let text = std::fs::read_to_string(captures_dir().join("plan-mode-service-absent/00-events.mux.sse.txt")).unwrap();
    let (_, frames) = frames_of(sse_body(&text).as_bytes());
    let subs = frames.iter().filter(|f| matches!(f.frame, Frame::Subscribed(_))).count();
    assert_eq!(subs, 2);
    assert_eq!(event_seqs(&frames), (0..=35).collect::<Vec<_>>());
    assert!(plan_events(&frames).is_empty());
}

#[test]
fn the_host_stream_captures_carry_session_added_and_status_frames() {
    for sub in ["plan-mode-service-mounted", "plan-mode-service-absent"] {
        let text = std::fs::read_to_string(captures_dir().join(sub).join("00-events.host.sse.txt")).unwrap();
        let (_, frames) = frames_of(sse_body(&text).as_bytes());
        assert!(matches!(frames[0].frame, Frame::SessionAdded(_)));
        let running: Vec<bool> = frames
            .iter()
            .filter_map(|f| match &f.frame {
                Frame::SessionStatus(s) => Some(s.running),
                _ => None,
            })
            .collect();
        assert_eq!(running, vec![true, false, true, false], "{sub}");
    }
}

#[test]
fn the_plan_rpc_values_follow_the_captured_sequence() {
    let value = |sub: &str, file: &str| {
        let text = std::fs::read_to_string(captures_dir().join(sub).join(file)).unwrap();
        check_rpc(&rpc_exchange(&text)).unwrap()
    };
    let plan = |v: wire::Json| wire::parse_plan_value(&v).unwrap();
    let m = "plan-mode-service-mounted";
    let expect = [
        ("04-session.planMode.txt", Some(PlanModeState { active: false, pending: None })),
        ("05-session.setPlanMode.txt", Some(PlanModeState { active: false, pending: Some(true) })),
        ("06-session.planMode.txt", Some(PlanModeState { active: false, pending: Some(true) })),
        ("08-session.planMode.txt", Some(PlanModeState { active: true, pending: None })),
        ("11-session.setPlanMode.txt", Some(PlanModeState { active: true, pending: Some(false) })),
        ("14-session.planMode.txt", Some(PlanModeState { active: false, pending: None })),
    ];
    for (file, want) in expect {
        assert_eq!(plan(value(m, file).unwrap()), want, "{file}");
    }
    for file in ["04-session.planMode.txt", "05-session.setPlanMode.txt", "11-session.setPlanMode.txt"] {
        assert_eq!(plan(value("plan-mode-service-absent", file).unwrap()), None, "absent {file}");
    }
    let err = value(m, "17-session.planMode.txt").unwrap_err();
    assert_eq!(err.code, wire::ErrorCode::SessionNotFound);
    assert_eq!(err.details.value(), json!({"sessionId": "no-such-session"}));
}

#[test]
fn the_edge_case_capture_error_shapes_decode() {
    let text = std::fs::read_to_string(captures_dir().join("edge-cases.txt")).unwrap();
    let sections = transcript::edge_sections(&text);
    assert_eq!(sections.len(), 6);
    let bad = &sections[0];
    let err =
        wire::result_from_json(&serde_json::from_str::<Value>(&bad.body).unwrap()["result"]).unwrap().unwrap_err();
    assert_eq!(err.code, wire::ErrorCode::BadRequest);
    assert_eq!(err.details.value()["issues"][0]["path"], json!(["active"]));
    let mismatch = wire::parse_server_response(&sections[1].body, "e2").unwrap().unwrap_err();
    assert!(mismatch.message.contains("does not match path"));
    assert_eq!((sections[2].status, sections[2].body.trim()), (400, "body is not JSON"));
    assert_eq!((sections[3].status, sections[3].body.trim()), (404, "not found"));
    assert_eq!(sections[4].status, 404, "the origin answers no CORS preflight");
    let ok = wire::parse_server_response(&sections[5].body, "c1").unwrap().unwrap();
    wire::validate_value(wire::HOST_DESCRIBE, &ok).unwrap();
}

#[test]
fn the_mounted_capture_replays_through_the_session_core() {
    let dir = captures_dir().join("plan-mode-service-mounted");
    let text = std::fs::read_to_string(dir.join("00-events.mux.sse.txt")).unwrap();
    let (_, frames) = frames_of(sse_body(&text).as_bytes());
    let sid = match &frames[0].frame {
        Frame::Subscribed(s) => s.session_id.clone(),
        _ => unreachable!(),
    };
    let mut s = Session::new(&sid);
    s.open();
    let history = std::fs::read_to_string(dir.join("10-session.history.txt")).unwrap();
    let mut sent = s.drain_effects();
    let req = match sent.remove(0) {
        agent_session::core::session::Effect::Send { req, .. } => req,
        e => panic!("{e:?}"),
    };
    // Every live frame arrives while the history call is in flight: all buffered, then
    // stitched onto the page (which covers seq 0..=20) without duplicates.
    for f in frames.iter().cloned() {
        s.on_frame(f);
    }
    s.on_response(req, check_rpc(&rpc_exchange(&history)).unwrap());
    let seqs: Vec<i64> = s.window().iter().map(|e| e.seq()).collect();
    assert_eq!(seqs, (0..=39).collect::<Vec<_>>());
    let kinds: Vec<&str> = s.nodes().iter().map(|n| n.kind.type_name()).collect();
    assert_eq!(kinds, vec!["plan-mode", "user", "assistant", "plan-mode", "context", "user", "assistant"]);
    assert!(s.partial().is_none());
    assert!(!s.running());
    assert!(
        matches!(&s.nodes()[2].kind, NodeKind::Assistant { content, .. } if content.value()[0]["text"] == "Hello from the fake DeepSeek server.")
    );
}

/// `/api/respond` as the origin answers it: a bare receipt, never an envelope
/// (`websocket/05-plan-review-respond.txt`: bad-response, not-pending, accepted, not-pending).
#[test]
fn the_origin_answers_respond_with_a_bare_receipt() {
    let text = std::fs::read_to_string(captures_dir().join("websocket/05-plan-review-respond.txt")).unwrap();
    let exchanges = transcript::http_exchanges(&text, "/api/respond");
    let receipts: Vec<wire::Receipt> = exchanges
        .iter()
        .map(|ex| {
            assert_eq!(ex.status, 200, "{}", ex.request);
            let read = wire::parse_unary_response(&ex.response, &wire::ResponseForm::BareReceipt)
                .unwrap_or_else(|e| panic!("{}: {e}", ex.response))
                .expect("a receipt is an ok value");
            // What the session core gets back is the receipt, canonical, valid for its method.
            wire::validate_value(wire::RESPOND_PATH, &read).unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(read.text()).unwrap(),
                serde_json::from_str::<Value>(&ex.response).unwrap()
            );
            wire::parse_bare_receipt(&ex.response).unwrap()
        })
        .collect();
    use wire::ReceiptReason::{BadResponse, NotPending};
    let reasons: Vec<_> = receipts.iter().map(|r| (r.accepted, r.reason)).collect();
    assert_eq!(
        reasons,
        [
            (false, Some(BadResponse)),
            (false, Some(NotPending)),
            (false, Some(BadResponse)),
            (true, None),
            (false, Some(NotPending))
        ]
    );
    // An envelope where a receipt belongs, or a receipt that contradicts itself, is a transport error.
    let form = wire::ResponseForm::BareReceipt;
    for body in [
        r#"{"type":"server-response","rpcId":"x","result":{"ok":true,"value":{"accepted":true}}}"#,
        r#"{"accepted":false}"#,
        r#"{"accepted":true,"reason":"not-pending"}"#,
        r#"{"accepted":false,"reason":"later"}"#,
        "not json",
    ] {
        assert!(wire::parse_unary_response(body, &form).is_err(), "{body}");
    }
}

// ---- the 2026-08 host (websocket/), replayed through the session core ----

struct HeadReplay {
    session: Session,
    /// Frame methods this client does not know (newer host), counted, never fatal.
    unknown_frames: Vec<String>,
    /// `session.planMode` queries the session sent (the 2026-08 host answers them 404).
    plan_queries: usize,
}

/// Replays one session of a WebSocket-era transcript through a `Session`: it opens at the
/// first mux frame for the session, the first tail `session.history` answer
/// for it in the capture answers that open (frames before it are buffered, as live frames
/// racing an open are), and every `mux` frame for it is fed in capture order. The plan RPCs
/// answer as the 2026-08 host does (404).
fn replay_head(file: &str, sid: &str) -> HeadReplay {
    use agent_session::core::session::{Call, Effect};
    use transcript::Step;
    let text = std::fs::read_to_string(captures_dir().join("websocket").join(file)).unwrap();
    let steps = transcript::ws_steps(&text);
    let mut s = Session::new(sid);
    let mut unknown_frames = Vec::new();
    let mut open_req = None;
    let mut answered = false;
    let mut plan_queries = 0;
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Message { channel, json } if channel == "mux" => match parse_frame(json) {
                Ok(f) if f.frame.session_id() == Some(sid) => {
                    // The 2026-08 host sends a new session's first events before its `subscribed`.
                    if open_req.is_none() && !answered {
                        s.open();
                        open_req = s.drain_effects().into_iter().find_map(|e| match e {
                            Effect::Send { req, call: Call::History { .. } } => Some(req),
                            _ => None,
                        });
                    }
                    s.on_frame(f);
                }
                Ok(_) => {}
                Err(wire::FrameError::Unknown { method }) => unknown_frames.push(method),
                Err(e) => panic!("a frame of the 2026-08 host failed to parse: {e:?}: {json}"),
            },
            Step::Request { path, body } if path == "session.history" && open_req.is_some() => {
                let payload = serde_json::from_str::<Value>(body).unwrap()["payload"].clone();
                if payload["sessionId"] != sid || payload.get("beforeSeq").is_some() {
                    continue;
                }
                let Some(Step::Response { status: 200, body }) =
                    steps[i + 1..].iter().find(|s| matches!(s, Step::Response { .. }))
                else {
                    panic!("no answer to the tail request");
                };
                let rpc_id = serde_json::from_str::<Value>(body).unwrap()["rpcId"].as_str().unwrap().to_string();
                s.on_response(open_req.take().unwrap(), wire::parse_server_response(body, &rpc_id).unwrap());
                answered = true;
            }
            _ => {}
        }
        // The seed's plan query meets the 2026-08 host: 404; its commands are as 04 listed them.
        for e in s.drain_effects() {
            match e {
                Effect::Send { req, call: Call::PlanMode } => {
                    plan_queries += 1;
                    s.on_response(req, Err(wire::RpcError::carrier_status(404, "session.planMode: HTTP 404")))
                }
                Effect::Send { req, call: Call::Commands } => s.on_response(req, Ok(captured_commands())),
                _ => {}
            }
        }
    }
    assert!(answered, "{file}: no tail history answer for {sid}");
    HeadReplay { session: s, unknown_frames, plan_queries }
}

/// The `commands/list` value of `websocket/04` (it names `plan`).
fn captured_commands() -> wire::Json {
    let text = std::fs::read_to_string(captures_dir().join("websocket/04-session-plan-prompt-flow.txt")).unwrap();
    let steps = transcript::ws_steps(&text);
    let i = steps
        .iter()
        .position(|s| matches!(s, transcript::Step::Request { path, .. } if path == "commands/list"))
        .expect("a commands/list request");
    let Some(transcript::Step::Response { body, .. }) = steps.get(i + 1) else { panic!("its answer") };
    let v: Value = serde_json::from_str(body).unwrap();
    let value = wire::Json::from_value(&v["result"]["value"]);
    assert_eq!(wire::lists_command(&value, "plan"), Ok(true));
    value
}

fn node_summary(s: &Session) -> Vec<String> {
    s.nodes()
        .iter()
        .map(|n| match &n.kind {
            NodeKind::Tool { name, status, .. } => format!("tool {name} {}", status.as_str()),
            k => k.type_name().to_string(),
        })
        .collect()
}

fn text_of(n: &agent_session::core::session::Node) -> String {
    let content = match &n.kind {
        NodeKind::User { content, .. } | NodeKind::Context { content, .. } | NodeKind::Assistant { content, .. } => {
            content.value()
        }
        NodeKind::Tool { result, .. } => result.as_ref().map(|r| r.value()).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    content.as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect()
}

/// The 2026-08 event shapes (`assistant/message {message}`, `user/message {role, id}`, context as a
/// plugin-sourced `user/message`, `turn/start` without `trigger`) fold into the seed's nodes;
/// the events only the 2026-08 host logs (`agent/inbox/spliced`, `command/run`, `request/context`,
/// …) stay in the window and out of the nodes.
#[test]
fn the_plan_and_prompt_flow_of_the_2026_08_host_replays_into_the_same_nodes() {
    let r = replay_head("04-session-plan-prompt-flow.txt", "session-fc73189c-b966-42c8-9a41-9a4e59a6fb8e");
    let s = &r.session;
    assert_eq!(
        node_summary(s),
        ["plan-mode", "user", "context", "assistant", "user", "assistant", "user", "assistant"]
    );
    let nodes = s.nodes();
    assert_eq!(text_of(&nodes[1]), "Plan a hello world script.");
    assert!(text_of(&nodes[2]).starts_with("Current runtime context."), "injected context is not a user bubble");
    assert_eq!(text_of(&nodes[3]), "Here is a short plan: 1. Create hello.py. 2. Print \"Hello, world!\". Done.");
    assert!(
        matches!(&nodes[3].kind, NodeKind::Assistant { provenance, .. } if provenance.value()["kind"] == "model"),
        "the message's source is the node's provenance"
    );
    assert!(matches!(nodes[0].kind, NodeKind::PlanMode { active: true }));
    // The title is a projection there, the queue a frame of its own (empty once the turns ran).
    assert_eq!(s.title().as_deref(), Some("Hello world plan"));
    assert_eq!(s.queue().map(|q| q.text().to_string()).as_deref(), Some("[]"));
    // No plan RPCs there: the `plan` projection is the host-confirmed state.
    assert_eq!(s.plan_mode(), Some(wire::PlanModeState { active: true, pending: None }));
    assert!(s.partial().is_none() && !s.running() && s.pending().is_empty());
    assert_eq!(r.unknown_frames, Vec::<String>::new(), "every mux frame of this flow is known");
    // The tail page's projection block names the dialect; no 404 probe is sent.
    assert_eq!(r.plan_queries, 0);
    let d = s.diagnostics();
    assert_eq!((d.bad_values, d.rejected_pages, d.repairs, d.buffer_overflows), (0, 0, 0, 0), "{d:?}");
    let seqs: Vec<i64> = s.window().iter().map(|e| e.seq()).collect();
    assert_eq!(seqs, (seqs[0]..=*seqs.last().unwrap()).collect::<Vec<_>>(), "a contiguous window");
}

/// The 2026-08 `tool/result {message: ToolResultMessage}` completes its tool node with the
/// result's content; the plan-review question was answered, so nothing is left pending.
#[test]
fn the_plan_review_question_of_the_2026_08_host_replays_into_the_same_nodes() {
    let r = replay_head("05-plan-review-respond.txt", "session-5760a598-8a53-4c99-a38e-03724ec0569c");
    let s = &r.session;
    assert_eq!(node_summary(s), ["assistant", "tool exit_plan_mode completed", "plan-mode", "assistant"]);
    let nodes = s.nodes();
    assert!(text_of(&nodes[1]).starts_with("Plan approved"), "{}", text_of(&nodes[1]));
    assert!(matches!(&nodes[1].kind, NodeKind::Tool { is_error: false, call_id, .. } if call_id == "call_fake_18"));
    assert!(matches!(nodes[2].kind, NodeKind::PlanMode { active: false }));
    assert_eq!(s.plan_mode(), Some(wire::PlanModeState { active: false, pending: None }), "approving left plan mode");
    assert!(s.partial().is_none() && !s.running() && s.pending().is_empty() && s.running_calls().is_empty());
    assert_eq!(s.diagnostics().bad_values, 0);
    assert_eq!(s.title().as_deref(), Some("Hello world plan"));
}

/// A plan-review question keeps its `intent`, so a UI can tell "approve leaves plan mode".
#[test]
fn the_2026_08_plan_review_question_keeps_its_intent() {
    let text = std::fs::read_to_string(captures_dir().join("websocket/05-plan-review-respond.txt")).unwrap();
    let json = transcript::ws_steps(&text)
        .into_iter()
        .find_map(|step| match step {
            transcript::Step::Message { json, .. } if json.contains(r#""method":"question/requested""#) => Some(json),
            _ => None,
        })
        .expect("a question frame");
    let frame = parse_frame(&json).unwrap();
    let sid = frame.frame.session_id().unwrap().to_string();
    let mut s = Session::new(&sid);
    s.on_frame(frame);
    let agent_session::core::session::PendingKind::Question { questions } = &s.pending()[0].kind else {
        panic!("not a question")
    };
    assert_eq!(
        questions[0].intent.as_ref().map(|i| i.value()),
        Some(json!({"kind": "plan-review", "approve": "Approve"}))
    );
}

/// Every message the 2026-08 host sent in every WebSocket-era transcript decodes: each downlink
/// text message is a known frame or one this client skips as unknown (never a malformed
/// envelope or payload), and each `server-response` body reads with its own rpcId.
#[test]
fn every_message_of_the_2026_08_host_decodes() {
    let mut frames = 0;
    let mut responses = 0;
    let mut unknown = std::collections::BTreeSet::new();
    for path in files("websocket") {
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("< ") else { continue };
            let json = match rest.strip_prefix('[') {
                Some(tagged) => match tagged.split_once("] ") {
                    Some((tag, json)) if !tag.starts_with("http") && json.starts_with('{') => json,
                    _ => continue,
                },
                None if rest.starts_with(r#"{"type":"server-response""#) => {
                    let rpc_id = serde_json::from_str::<Value>(rest).unwrap()["rpcId"].as_str().unwrap().to_string();
                    let _ = wire::parse_server_response(rest, &rpc_id).unwrap_or_else(|e| panic!("{e}: {rest}"));
                    responses += 1;
                    continue;
                }
                None => continue,
            };
            match parse_frame(json) {
                Ok(_) => frames += 1,
                Err(wire::FrameError::Unknown { method }) => {
                    unknown.insert(method);
                }
                Err(e) => panic!("{}: {e:?}: {json}", path.display()),
            }
        }
    }
    assert!(frames > 250 && responses > 30, "{frames} frames, {responses} responses");
    // `host/remote-event` (the 2026-08 host) is read: nothing is left unknown.
    assert_eq!(unknown.into_iter().collect::<Vec<String>>(), Vec::<String>::new());
}

/// The 2026-08 `session.list` items carry no top-level title; the live list reads
/// `projections.values.title` (04's list after the turns).
#[test]
fn the_2026_08_session_list_names_its_titles_in_the_projection_block() {
    let text = std::fs::read_to_string(captures_dir().join("websocket/04-session-plan-prompt-flow.txt")).unwrap();
    let steps = transcript::ws_steps(&text);
    let mut titles = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let transcript::Step::Request { path, .. } = step else { continue };
        if path != "session.list" {
            continue;
        }
        let Some(transcript::Step::Response { body, .. }) = steps.get(i + 1) else { continue };
        let v: Value = serde_json::from_str(body).unwrap();
        let list: wire::ListValue = wire::read::read(&v["result"]["value"].to_string()).unwrap();
        titles.extend(list.items.iter().map(|s| (s.title.clone(), s.title_text())));
    }
    assert_eq!(titles, [(None, Some("Hello world plan".to_string()))]);
}

// ---- the 2026-08 verbs, written from b150a551b8's source (from-source/; not captured) ----

/// Replays `from-source/09-session-verbs.txt` through one `Session`: each request the
/// transcript shows is made through the session's own operation (or is one the session sends
/// by itself) and must carry the transcript's payload; answers and frames go in in order.
#[test]
fn the_2026_08_verbs_built_from_source_replay_through_the_core() {
    use agent_session::core::session::{Call, Effect, OpId, Outcome, ReqId};
    use std::collections::HashMap;
    const SID: &str = "session-4b7e0c1a-8f2d-4d61-9a57-verbs0000001";
    const CHILD: &str = "session-91c2d3e4-0b5a-4f7e-8c1d-fork00000001";
    let text = std::fs::read_to_string(captures_dir().join("from-source/09-session-verbs.txt")).unwrap();
    let steps = transcript::ws_steps(&text);
    let mut s = Session::new(SID);
    let mut unanswered: Vec<(ReqId, Call)> = Vec::new();
    let mut settled: HashMap<OpId, (usize, Outcome)> = HashMap::new();
    let mut current: Option<ReqId> = None;
    let mut ops: Vec<(String, OpId, usize)> = Vec::new();
    let mut plan_queries = 0;
    let mut drain = |s: &mut Session, at: usize, unanswered: &mut Vec<(ReqId, Call)>| {
        for e in s.drain_effects() {
            match e {
                Effect::Send { call: Call::PlanMode, .. } => plan_queries += 1,
                Effect::Send { req, call } => unanswered.push((req, call)),
                Effect::Settle { op, outcome } => {
                    assert!(settled.insert(op, (at, outcome)).is_none(), "settled twice");
                }
                _ => {}
            }
        }
    };
    let mut fork_value = None;
    for (i, step) in steps.iter().enumerate() {
        match step {
            transcript::Step::Request { path, body } => {
                let payload = serde_json::from_str::<Value>(body).unwrap()["payload"].clone();
                let target = payload["sessionId"].as_str().or(payload["args"]["agentId"].as_str()).unwrap_or_default();
                if target != SID || path == "session.fork" {
                    current = None; // the child's tail page and the host-level fork: below
                    continue;
                }
                let j = |v: &Value| wire::Json::from_value(v);
                let op = match path.as_str() {
                    "session.history" => Some(s.open()),
                    "commands/list" => None, // the session asks it by itself
                    "commands/execute" if payload["args"]["line"] == "/plan" => Some(s.set_plan_mode(true)),
                    "commands/execute" => Some(s.command(payload["args"]["line"].as_str().unwrap().into())),
                    "session.rename" => Some(s.rename(payload["title"].as_str().unwrap().into())),
                    "session.prompt" => Some(s.prompt(j(&payload["content"]), wire::PromptMode::Queue)),
                    "session.attachment" => Some(s.read_attachment(payload["attachmentId"].as_str().unwrap().into())),
                    "session.updateQueue" => {
                        Some(s.update_queue(payload["itemId"].as_str().unwrap().into(), j(&payload["action"])))
                    }
                    other => panic!("no operation for {other}"),
                };
                drain(&mut s, i, &mut unanswered);
                if let Some(op) = op {
                    ops.push((path.clone(), op, i));
                }
                let at =
                    unanswered.iter().position(|(_, c)| c.path() == path).unwrap_or_else(|| panic!("{path} not sent"));
                let (req, call) = unanswered.remove(at);
                assert_eq!(serde_json::from_str::<Value>(call.payload(SID).text()).unwrap(), payload, "{path}");
                current = Some(req);
            }
            transcript::Step::Response { body, .. } => {
                let rpc_id = serde_json::from_str::<Value>(body).unwrap()["rpcId"].as_str().unwrap().to_string();
                let result = wire::parse_server_response(body, &rpc_id).unwrap();
                match current.take() {
                    Some(req) => s.on_response(req, result),
                    None if fork_value.is_none() => fork_value = Some(result),
                    None => {}
                }
                drain(&mut s, i, &mut unanswered);
            }
            transcript::Step::Message { json, .. } => {
                let f = parse_frame(json).unwrap_or_else(|e| panic!("{e:?}: {json}"));
                match &f.frame {
                    Frame::RemoteEvent(r) if r.event == "commands/change" => s.on_commands_changed(),
                    frame if frame.session_id() == Some(SID) => s.on_frame(f),
                    _ => {}
                }
                drain(&mut s, i, &mut unanswered);
            }
        }
    }
    assert_eq!(plan_queries, 0, "the tail page named the dialect: no session.planMode probe");
    assert!(unanswered.is_empty(), "{unanswered:?}");
    let outcome = |path: &str, n: usize| -> (usize, usize, Value) {
        let (_, op, asked) = ops.iter().filter(|o| o.0 == path).nth(n).unwrap_or_else(|| panic!("{path} #{n}"));
        let (at, outcome) = settled.get(op).unwrap_or_else(|| panic!("{path} #{n} never settled"));
        match outcome {
            Outcome::Result(Ok(v)) => (*asked, *at, v.value()),
            other => panic!("{path} #{n}: {other:?}"),
        }
    };
    // `/plan`: the answer came before the settled frame; the result waited for `command/done`.
    let (asked, at, plan) = outcome("commands/execute", 0);
    assert_eq!(plan, json!({"active": true}));
    let answered = (asked..).find(|k| matches!(steps[*k], transcript::Step::Response { .. })).unwrap();
    assert!(at > answered + 1, "settled at its command/done (step {at}), not at its answer (step {answered})");
    assert_eq!(outcome("commands/execute", 1).2["result"]["text"], "Feedback recorded.");
    assert_eq!(outcome("session.rename", 0).2, json!({"title": "Hello world plan", "seq": 8}));
    let attachment = outcome("session.attachment", 0).2;
    assert_eq!(attachment["attachment"]["attachmentId"].as_str().unwrap().len(), 7 + 64);
    assert_eq!(outcome("session.updateQueue", 1).2, json!({"accepted": true}));
    // The snapshot: title, queue emptied, the image kept as a reference, the command list as
    // re-read after `commands/change` (plan left it, so plan mode is no longer shown).
    assert_eq!(s.title().as_deref(), Some("Hello world plan"));
    assert_eq!(s.queue().map(|q| q.text().to_string()).as_deref(), Some("[]"));
    assert_eq!(node_summary(&s), ["plan-mode", "user", "assistant", "user", "assistant"]);
    let NodeKind::User { content, .. } = &s.nodes()[1].kind else { panic!("a user node") };
    assert_eq!(content.value()[1]["attachment"], attachment["attachment"]);
    assert_eq!(s.commands().map(|c| c.value().as_array().unwrap().len()), Some(2));
    assert_eq!(s.plan_mode(), None);
    // The fork: a child id, whose tail page ends the seed.
    let fork = fork_value.expect("the fork's answer").unwrap();
    wire::validate_value(wire::SESSION_FORK, &fork).unwrap();
    assert_eq!(fork.value()["sessionId"], CHILD);
    let i = steps
        .iter()
        .position(|st| matches!(st, transcript::Step::Request { path, body } if path == "session.history" && body.contains(CHILD)))
        .unwrap();
    let transcript::Step::Response { body, .. } = &steps[i + 1] else { panic!("its answer") };
    let mut child = Session::new(CHILD);
    child.open();
    let req = child.drain_effects().into_iter().find_map(|e| match e {
        Effect::Send { req, call: Call::History { .. } } => Some(req),
        _ => None,
    });
    let rpc_id = serde_json::from_str::<Value>(body).unwrap()["rpcId"].as_str().unwrap().to_string();
    child.on_response(req.unwrap(), wire::parse_server_response(body, &rpc_id).unwrap());
    assert_eq!(child.window().last().map(|e| e.kind.as_str()), Some("session/end-seed"));
    assert_eq!(node_summary(&child), ["plan-mode", "user", "assistant"], "the parent's first turn");
    assert_eq!(child.title().as_deref(), Some("Hello world plan"));
}
