use super::harness::*;
use crate::core::session::{Call, Outcome, PendingKind, PromptOp};
use crate::core::wire::Json;
use crate::core::wire::{
    ApprovalOutcome, ApprovalRequested, ApprovalResolved, ErrorCode, Frame, InboundFrame, PromptMode, Question,
    QuestionOutcome, QuestionRequested, QuestionResolved, RpcError,
};
use serde_json::{json, Value};

fn question_frame(rpc_id: &str) -> InboundFrame {
    InboundFrame {
        rpc_id: rpc_id.into(),
        frame: Frame::QuestionRequested(QuestionRequested {
            session_id: SID.into(),
            questions: vec![Question {
                id: "q1".into(),
                question: "Which?".into(),
                header: None,
                detail: None,
                options: None,
                multi_select: None,
                intent: None,
            }],
        }),
    }
}
fn question_resolved(rpc_id: &str) -> InboundFrame {
    frame(Frame::QuestionResolved(QuestionResolved {
        session_id: SID.into(),
        question_rpc_id: rpc_id.into(),
        outcome: QuestionOutcome::Answered,
    }))
}
fn approval(id: &str) -> InboundFrame {
    InboundFrame {
        rpc_id: format!("rpc-{id}"),
        frame: Frame::ApprovalRequested(ApprovalRequested {
            session_id: SID.into(),
            approval_id: id.into(),
            tool_name: "bash".into(),
            call_id: Some("c1".into()),
            reason: None,
        }),
    }
}

#[test]
fn a_prompt_business_failure_lands_in_prompt_error_with_op_send() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    let op = d.s.prompt(Json::from(json!([{"type": "text", "text": "hi"}])), PromptMode::Queue);
    let (req, call) = d.take(|c| matches!(c, Call::Prompt { .. }));
    assert_eq!(call.payload(SID).value()["mode"], "queue");
    let err = RpcError::new(ErrorCode::AgentBusy, "busy", json!({"reason": "x"}));
    d.fail(req, err.clone());
    assert_eq!(d.s.prompt_error(), Some((PromptOp::Send, &err)));
    assert_eq!(d.outcome(op), Some(&Outcome::Result(Err(err))));
}

#[test]
fn a_cancel_transport_failure_lands_in_prompt_error_with_op_stop() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.cancel();
    let (req, _) = d.take(|c| matches!(c, Call::Cancel));
    d.fail(req, transport_error());
    let (op, e) = d.s.prompt_error().unwrap();
    assert_eq!((op, e.code), (PromptOp::Stop, ErrorCode::Internal));
}

#[test]
fn a_new_prompt_clears_the_previous_prompt_error_and_success_settles_the_value() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.cancel();
    let (req, _) = d.take(|c| matches!(c, Call::Cancel));
    d.fail(req, transport_error());
    let op = d.s.prompt(Json::from(json!([])), PromptMode::Steer);
    assert!(d.s.prompt_error().is_none());
    let (req, _) = d.take(|c| matches!(c, Call::Prompt { .. }));
    d.answer(req, json!({"accepted": true}));
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": true}))));
}

#[test]
fn a_prompt_value_failing_its_schema_is_a_transport_error() {
    // A transport error leaves the prompt's fate unknown: it waits to be looked up.
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.s.prompt(Json::from(json!([])), PromptMode::Queue);
    let (req, _) = d.take(|c| matches!(c, Call::Prompt { .. }));
    d.answer(req, json!({"accepted": false}));
    assert_eq!(d.s.prompt_error(), None);
    let e = &d.s.outbox().entries()[0];
    assert!(e.unsure && e.delivery == crate::core::session::Delivery::Waiting);
    assert_eq!(d.s.diagnostics().bad_values, 1);
}

#[test]
fn approvals_and_questions_pend_on_requested_and_leave_on_resolved() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.frame(approval("a1"));
    d.frame(question_frame("rq"));
    assert_eq!(d.s.pending().len(), 2);
    assert_eq!(d.s.pending()[0].key, "approval:a1");
    assert_eq!(d.s.pending()[1].key, "question:rq");
    assert!(matches!(d.s.pending()[1].kind, PendingKind::Question { .. }));
    let rev = d.s.pending_rev();
    d.frame(question_frame("rq"));
    assert_eq!(d.s.pending_rev(), rev, "a duplicate requested frame is a no-op");
    d.frame(question_resolved("rq"));
    d.frame(question_resolved("rq"));
    d.frame(frame(Frame::ApprovalResolved(ApprovalResolved {
        session_id: SID.into(),
        approval_id: "a1".into(),
        outcome: ApprovalOutcome::AllowedOnce,
    })));
    assert!(d.s.pending().is_empty());
}

#[test]
fn respond_sends_the_client_response_for_the_frames_rpc_id() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.frame(question_frame("rq-7"));
    let op = d.s.respond("question:rq-7", Ok(Json::from(json!({"answers": {"q1": "yes"}}))));
    let (req, call) = d.take(|c| matches!(c, Call::Respond { .. }));
    let body: Value = serde_json::from_str(&call.body(SID, "ignored", None)).unwrap();
    assert_eq!(body["type"], "client-response");
    assert_eq!(body["rpcId"], "rq-7");
    assert_eq!(body["result"], json!({"ok": true, "value": {"answers": {"q1": "yes"}}}));
    d.answer(req, json!({"accepted": true}));
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": true}))));
}

#[test]
fn a_wait_settled_by_its_resolved_frame_refuses_a_late_respond() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.frame(question_frame("rq"));
    d.frame(question_resolved("rq"));
    let op = d.s.respond("question:rq", Ok(Json::from(json!({}))));
    d.pump();
    assert!(!d.has_request(|c| matches!(c, Call::Respond { .. })), "no request sent");
    assert_eq!(d.outcome(op), Some(&ok(json!({"accepted": false, "reason": "not-pending"}))));
}

#[test]
fn a_replayed_requested_frame_re_mints_the_wait() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.frame(question_frame("rq"));
    d.frame(question_resolved("rq"));
    d.frame(question_frame("rq"));
    assert_eq!(d.s.pending().len(), 1);
    d.s.respond("question:rq", Ok(Json::from(json!({}))));
    assert!(d.has_request(|c| matches!(c, Call::Respond { .. })));
}

#[test]
fn a_not_pending_receipt_from_the_host_removes_the_stale_card() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.frame(question_frame("rq"));
    d.s.respond("question:rq", Ok(Json::from(json!({}))));
    let (req, _) = d.take(|c| matches!(c, Call::Respond { .. }));
    d.answer(req, json!({"accepted": false, "reason": "not-pending"}));
    assert!(d.s.pending().is_empty());
}

#[test]
fn a_replayed_question_survives_connection_loss_and_resync() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.frame(question_frame("rq"));
    d.frame(approval("a1"));
    d.s.connection_lost();
    assert_eq!(d.s.pending().len(), 2, "still shown while reconnecting");
    d.frame(question_frame("rq"));
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a")], false));
    assert_eq!(d.s.pending().len(), 2);
}

#[test]
fn a_question_the_new_connection_does_not_replay_is_dropped_at_the_resync() {
    let mut d = Driver::opened(&[user(0, "a")], Value::Null);
    d.frame(question_frame("rq"));
    d.frame(approval("a1"));
    d.s.connection_lost();
    d.s.resync();
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a")], false));
    let keys: Vec<_> = d.s.pending().iter().map(|p| p.key.clone()).collect();
    assert_eq!(
        keys,
        vec!["approval:a1"],
        "the host restarted without the question; approvals are not replayed by the origin, so they stay"
    );
}

#[test]
fn close_settles_every_unsettled_operation() {
    let mut d = Driver::new();
    let open = d.s.open();
    let sel = d.s.set_plan_mode(true);
    let prompt = d.s.prompt(Json::from(json!([])), PromptMode::Queue);
    d.s.close();
    d.pump();
    assert_eq!(d.outcome(open), Some(&Outcome::Done));
    for op in [sel, prompt] {
        assert!(matches!(d.outcome(op), Some(Outcome::Result(Err(e))) if e.code == ErrorCode::Cancelled));
    }
    let (req, _) = d.take_history();
    d.answer(req, page(&[user(0, "a")], false));
    assert_eq!(d.s.window().len(), 0, "results after close are ignored");
}
