//! What the host writes: every wire type's serialized text, compared with the snapshot in
//! `shapes.txt` (taken before the types moved to one field list; `UPDATE_SHAPES=1` rewrites
//! it). Every value also reads back as itself through the client's reader.

use agent_session_wire::interaction::*;
use agent_session_wire::read::{read, FromObj};
use agent_session_wire::*;
use serde::Serialize;
use serde_json::json;
use std::fmt::Debug;

struct Shapes(String);

impl Shapes {
    fn put<T: Serialize>(&mut self, name: &str, v: &T) {
        self.0 += &format!("{name}: {}\n", serde_json::to_string(v).unwrap());
    }
    /// Written, and read back by the client's reader as the same value.
    fn both<T: Serialize + FromObj + PartialEq + Debug>(&mut self, name: &str, v: &T) {
        self.put(name, v);
        let text = serde_json::to_string(v).unwrap();
        assert_eq!(&read::<T>(&text).unwrap(), v, "{name}: {text}");
    }
}

fn j(t: &str) -> Json {
    Json::from_text(t).unwrap()
}

fn prompt(full: bool) -> UserInputPrompt {
    let option = |full: bool| PromptOption {
        id: "o1".into(),
        label: "Node".into(),
        description: full.then(|| "js".into()),
        recommended: full.then_some(true),
    };
    UserInputPrompt {
        prompt_id: "p1".into(),
        title: full.then(|| "Runtime".into()),
        description: full.then(|| "pick".into()),
        questions: vec![PromptQuestion {
            id: "q1".into(),
            header: full.then(|| "H".into()),
            label: "Which?".into(),
            description: full.then(|| "d".into()),
            options: if full { vec![option(true), option(false)] } else { vec![] },
            multi_select: full.then_some(false),
            allow_freeform: full.then_some(true),
            freeform_placeholder: full.then(|| "other".into()),
            required: full.then_some(true),
        }],
        source: "codex:requestUserInput".into(),
    }
}

#[test]
fn serialized_shapes_match_the_snapshot() {
    let mut s = Shapes(String::new());
    for full in [false, true] {
        let o = |v: &str| full.then(|| v.to_string());
        let summary = SessionSummary {
            session_id: "s\"1".into(),
            updated_at: 1795991061849.5,
            running: true,
            parent_session_id: o("p"),
            cwd: o("/c"),
            origin: o("subagent"),
            title: o("t"),
            waiting: full.then_some(true),
            projections: None,
        };
        s.both("SessionSummary", &summary);
        s.both("ListValue", &ListValue { items: vec![summary] });
        s.put("ListPayload", &ListPayload { cursor: o("c") });
        s.put("CreatePayload", &CreatePayload { cwd: o("/"), provider: o("p") });
        s.put(
            "HistoryPayload",
            &HistoryPayload {
                session_id: "s".into(),
                before_seq: full.then_some(3),
                max_messages: full.then(|| std::num::NonZeroU32::new(5).unwrap()),
            },
        );
        let mut event = SessionEvent::new("user/message", 4, 1795991061849.0, json!({"content": [1]}));
        if full {
            event.source_event_seqs = Some(vec![1.0, 2.5]);
            event.surface_op = Some(j(r#"{"k":1}"#));
            event.time = 1.5;
        }
        s.both("SessionEvent", &event);
        let item = HistoryItem { event: event.clone(), view: full.then(|| j("[1]")) };
        s.both("HistoryItem", &item);
        let projections = ProjectionBaseline {
            as_of_seq: -1,
            values: [("a".to_string(), j(r#"{"k":[1,2]}"#)), ("b".into(), Json::null())].into_iter().collect(),
        };
        s.both("ProjectionBaseline", &projections);
        s.both(
            "HistoryValue",
            &HistoryValue { events: vec![item.clone()], has_more: full, projections: full.then_some(projections) },
        );
        s.put("SessionRef", &SessionRef { session_id: "s".into() });
        s.put(
            "PromptPayload",
            &PromptPayload {
                session_id: "s".into(),
                mode: if full { PromptMode::Steer } else { PromptMode::Queue },
                content: vec![json!({"type": "text"})],
                client_time_zone: o("Europe/Berlin"),
            },
        );
        s.put("SetPlanModePayload", &SetPlanModePayload { session_id: "s".into(), active: full });
        s.both(
            "Receipt",
            &if full {
                Receipt::refused(ReceiptReason::BadResponse)
            } else {
                Receipt::refused(ReceiptReason::NotPending)
            },
        );
        s.both("PlanModeState", &PlanModeState { active: full, pending: full.then_some(false) });
        s.both("PlanModeEvent", &PlanModeEvent { active: full });
        s.both(
            "ModeState",
            &ModeState { mode: if full { OperatingMode::Ask } else { OperatingMode::Unknown }, native: o("agent") },
        );
        s.both(
            "PlanSteps",
            &PlanSteps {
                explanation: o("why"),
                steps: vec![
                    PlanStep {
                        id: o("s1"),
                        text: "a".into(),
                        status: StepStatus::InProgress,
                        source: Provenance::Native,
                    },
                    PlanStep {
                        id: None,
                        text: "b".into(),
                        status: StepStatus::Completed,
                        source: Provenance::Synthesized,
                    },
                    PlanStep { id: None, text: "c".into(), status: StepStatus::Pending, source: Provenance::Native },
                ],
            },
        );
        s.both("UserInputPrompt", &prompt(full));
        s.both("PendingPrompts", &PendingPrompts { prompts: vec![prompt(full)] });
        let answer = Answer {
            question_id: "q1".into(),
            selected_option_ids: full.then(|| vec!["o1".to_string()]),
            text: o("t"),
        };
        s.both("Answer", &answer);
        s.put("PromptAnswers", &PromptAnswers { prompt_id: "p".into(), answers: vec![answer.clone()] });
        s.put(
            "AnswerPayload",
            &AnswerPayload { session_id: "s".into(), prompt_id: "p".into(), answers: vec![answer.clone()] },
        );
        s.both("PromptRequestedEvent", &PromptRequestedEvent { prompt: prompt(full) });
        s.both(
            "PromptResolvedEvent",
            &PromptResolvedEvent {
                prompt: prompt(full),
                answers: if full { vec![answer] } else { vec![] },
                outcome: if full { PromptOutcome::Answered } else { PromptOutcome::Cancelled },
            },
        );
        let frames = [
            Frame::Event(EventFrame { session_id: "s".into(), event: event.clone(), view: full.then(|| j("{}")) }),
            Frame::Subscribed(SubscribedFrame { session_id: "s".into(), last_seq: -1 }),
            Frame::Title(TitleFrame { session_id: "s".into(), title: "t".into(), event_seq: 3, updated_at: 2.0 }),
            Frame::Projection(ProjectionFrame { session_id: "s".into(), key: "k".into(), value: Json::null(), seq: 2 }),
            Frame::Queue(QueueFrame { session_id: "s".into(), items: j("[]") }),
            Frame::ApprovalRequested(ApprovalRequested {
                session_id: "s".into(),
                approval_id: "a".into(),
                tool_name: "t".into(),
                call_id: o("c"),
                reason: o("r"),
            }),
            Frame::ApprovalResolved(ApprovalResolved {
                session_id: "s".into(),
                approval_id: "a".into(),
                outcome: if full { ApprovalOutcome::AllowedOnce } else { ApprovalOutcome::Unavailable },
            }),
            Frame::QuestionRequested(QuestionRequested {
                session_id: "s".into(),
                questions: vec![Question {
                    id: "q".into(),
                    question: "?".into(),
                    header: o("h"),
                    detail: o("d"),
                    options: full.then(|| vec![QuestionOption { label: "l".into(), description: o("d") }]),
                    multi_select: full.then_some(true),
                    intent: full.then(|| j(r#"{"kind":"plan-review"}"#)),
                }],
            }),
            Frame::QuestionResolved(QuestionResolved {
                session_id: "s".into(),
                question_rpc_id: "q".into(),
                outcome: if full { QuestionOutcome::Answered } else { QuestionOutcome::Cancelled },
            }),
            Frame::StreamError(StreamErrorFrame { error: j(r#"{"m":1}"#) }),
            Frame::SessionAdded(SessionAddedFrame {
                session_id: "s".into(),
                parent_session_id: o("p"),
                cwd: o("/"),
                origin: o("subagent"),
                updated_at: full.then_some(3.5),
            }),
            Frame::SessionRemoved(SessionIdFrame { session_id: "s".into() }),
            Frame::SessionStatus(SessionStatusFrame {
                session_id: "s".into(),
                running: full,
                waiting: full.then_some(false),
                updated_at: full.then_some(1.0),
            }),
            Frame::AgentError(AgentErrorFrame { session_id: o("s"), message: "m".into() }),
        ];
        for f in &frames {
            s.put("Frame", f);
            let text = serde_json::to_string(f).unwrap();
            assert_eq!(&Frame::from_text(&text).unwrap(), f, "{text}");
        }
        let err = RpcError::new(if full { ErrorCode::AgentBusy } else { ErrorCode::Internal }, "m", json!({"a": 1}));
        s.put("RpcError", &err);
        s.put("Capabilities", &Capabilities { supports_plan_mode: full, ..Capabilities::default() });
        s.put("PlanTextDelta", &PlanTextDelta { item_id: "i".into(), text: "t".into() });
        s.put("PlanTextDone", &PlanTextDone { item_id: "i".into(), text: "t".into() });
        s.put(
            "ProposedPlan",
            &ProposedPlan { plan_id: "p".into(), markdown: "# P".into(), source: Provenance::Native },
        );
        s.put("NativePayload", &NativePayload { provider: "p".into(), kind: "k".into(), payload: json!([1]) });
        s.put(
            "HostDescription",
            &HostDescription {
                version: "1".into(),
                cwd: "/".into(),
                provider: Some("p".into()),
                model: Some("m".into()),
                attached_sessions: 2,
                home: None,
                can_open_path: None,
            },
        );
        s.put("CreateValue", &CreateValue { session_id: "s".into() });
        s.put("Accepted", &Accepted { accepted: AlwaysTrue });
        let env = Envelope::ClientRequest(ClientRequest { rpc_id: "r".into(), method: "m".into(), payload: json!({}) });
        s.put("Envelope", &env);
        s.put("Envelope", &Envelope::ServerResponse(ServerResponse { rpc_id: "r".into(), result: Err(err.clone()) }));
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shapes.txt");
    if std::env::var_os("UPDATE_SHAPES").is_some() {
        std::fs::write(path, &s.0).unwrap();
    }
    let want = std::fs::read_to_string(path).unwrap();
    // Member order aside: serde_json writes objects in build order when a crate in the same
    // build (the host) turns on its `preserve_order`, sorted otherwise.
    let parsed = |line: &str| {
        let (name, v) = line.split_once(": ")?;
        Some((name.to_string(), serde_json::from_str::<serde_json::Value>(v).ok()?))
    };
    for (got, want) in s.0.lines().zip(want.lines()) {
        match (parsed(got), parsed(want)) {
            (Some(a), Some(b)) if a == b => {}
            _ => assert_eq!(got, want),
        }
    }
    assert_eq!(s.0.lines().count(), want.lines().count());
}
