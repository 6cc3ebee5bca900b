//! Reading one stream `data:` payload into a frame with the general two-level reader (the
//! client reads the hot `session/event` shape in one pass first: `agent-session-onepass`).

use super::frames::{Frame, FrameError, InboundFrame};
use super::read::{Obj, ReadError};

/// Two-level parse: the envelope, then the frame with its own schema. Each level is one split
/// of an object into raw members, so the error is classified exactly: a bad envelope, an
/// unknown frame type, a payload whose `type` disagrees with the `method`, or a payload
/// failing its schema.
pub fn parse_frame(data: &str) -> Result<InboundFrame, FrameError> {
    let envelope = FrameError::Envelope;
    let env = Obj::parse(data).map_err(envelope)?;
    if env.str_ref("type").map_err(envelope)? != "server-request" {
        return Err(FrameError::Envelope(ReadError::invalid("not a server-request")));
    }
    let rpc_id = env.str("rpcId").map_err(envelope)?;
    let method = env.str_ref("method").map_err(envelope)?;
    let payload = env.raw("payload").ok_or_else(|| FrameError::Envelope(ReadError::missing("payload")))?;
    if !Frame::NAMES.contains(&&*method) {
        return Err(FrameError::Unknown { method: method.into_owned() });
    }
    let schema = |error: ReadError| FrameError::Schema { method: method.to_string(), error };
    let o = Obj::parse(payload.get()).map_err(schema)?;
    if o.str_ref("type").ok().as_deref() != Some(&*method) {
        return Err(FrameError::MethodMismatch { method: method.into_owned() });
    }
    let frame = Frame::read_variant(&method, &o)?;
    if let Frame::QuestionRequested(q) = &frame {
        if q.questions.is_empty() {
            return Err(schema(ReadError::invalid("no questions")));
        }
    }
    Ok(InboundFrame { rpc_id, frame })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::SubscribedFrame;

    fn data(method: &str, payload: &str) -> String {
        format!(r#"{{"type":"server-request","rpcId":"r1","method":"{method}","payload":{payload}}}"#)
    }

    /// The frame table is the one list of names: each is read by its own record, and written
    /// back with it as its `type`.
    #[test]
    fn every_frame_type_of_the_table_reads_by_its_record_and_writes_its_name() {
        assert_eq!(Frame::NAMES.len(), 15);
        for name in Frame::NAMES {
            let e = parse_frame(&data(name, &format!(r#"{{"type":"{name}"}}"#)));
            assert!(!matches!(e, Err(FrameError::Unknown { .. } | FrameError::MethodMismatch { .. })), "{name}: {e:?}");
        }
        let f = parse_frame(&data(
            "session/title",
            r#"{"type":"session/title","sessionId":"s","title":"t","eventSeq":1,"updatedAt":1}"#,
        ))
        .unwrap();
        assert_eq!((f.frame.type_name(), crate::frames::TitleFrame::TYPE), ("session/title", "session/title"));
        let written: serde_json::Value = serde_json::from_str(&f.frame.to_envelope_text("r")).unwrap();
        assert_eq!(written["payload"]["type"], "session/title");
    }

    /// Capture 04: the 2026-08 host forwards `commands/change` on the host stream.
    #[test]
    fn a_forwarded_remote_event_is_a_frame_not_a_malformed_one() {
        let f = parse_frame(r#"{"type":"server-request","rpcId":"8a99f7c5-0ac9-497b-b0fe-ec76d5beb05d","method":"host/remote-event","payload":{"type":"host/remote-event","event":"commands/change","args":[]}}"#).unwrap();
        match f.frame {
            Frame::RemoteEvent(r) => assert_eq!(r.event, "commands/change"),
            other => panic!("{other:?}"),
        }
        let bad = data("host/remote-event", r#"{"type":"host/remote-event","args":[]}"#);
        assert!(matches!(parse_frame(&bad), Err(FrameError::Schema { .. })), "no event name");
    }

    #[test]
    fn a_valid_frame_keeps_its_envelope_rpc_id() {
        let f =
            parse_frame(&data("session/subscribed", r#"{"type":"session/subscribed","sessionId":"s","lastSeq":-1}"#))
                .unwrap();
        assert_eq!(f.rpc_id, "r1");
        assert!(matches!(f.frame, Frame::Subscribed(SubscribedFrame { last_seq: -1, .. })));
    }

    #[test]
    fn an_event_frame_reads_the_same_whatever_the_member_order_or_escapes() {
        let ev = r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":3,"time":1,"data":{"a":[1,"\u00e9"]}},"view":{"v":1}}"#;
        let frames = [
            data("session/event", ev),
            format!(r#"{{"payload":{ev},"method":"session/event","rpcId":"r1","type":"server-request"}}"#),
            format!(r#"{{"type":"server-request","rpc\u0049d":"r1","method":"session/event","payload":{ev}}}"#),
        ];
        let first = parse_frame(&frames[0]).unwrap();
        assert!(
            matches!(&first.frame, Frame::Event(e) if e.event.seq == 3 && e.view.is_some() && e.event.data.text() == Some(r#"{"a":[1,"\u00e9"]}"#))
        );
        for f in &frames[1..] {
            assert_eq!(parse_frame(f).unwrap(), first, "member order is free: {f}");
        }
        let rare = data(
            "session/event",
            r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":3,"time":1.5,"sourceEventSeqs":[1,2],"surfaceOp":{"k":1}}}"#,
        );
        let rare = parse_frame(&rare).unwrap();
        assert!(
            matches!(&rare.frame, Frame::Event(e) if e.event.source_event_seqs == Some(vec![1.0, 2.0]) && e.event.surface_op.is_some() && e.event.data.is_null())
        );
        let twice =
            format!(r#"{{"type":"server-request","rpcId":"r1","method":"session/event","method":"x","payload":{ev}}}"#);
        assert!(matches!(parse_frame(&twice), Err(FrameError::Envelope(_))), "a repeated key is rejected");
    }

    #[test]
    fn an_event_frame_with_another_payload_type_or_a_bad_event_is_classified_exactly() {
        let other =
            data("session/event", r#"{"type":"session/title","sessionId":"s","title":"t","eventSeq":1,"updatedAt":1}"#);
        assert!(matches!(parse_frame(&other), Err(FrameError::MethodMismatch { .. })));
        let bad =
            data("session/event", r#"{"type":"session/event","sessionId":"s","event":{"type":"x","seq":-1,"time":1}}"#);
        assert!(matches!(parse_frame(&bad), Err(FrameError::Schema { .. })));
    }

    #[test]
    fn malformed_and_unknown_frames_are_told_apart() {
        assert!(matches!(parse_frame("not json"), Err(FrameError::Envelope(_))));
        assert!(matches!(
            parse_frame(r#"{"type":"server-response","rpcId":"x","result":{}}"#),
            Err(FrameError::Envelope(_))
        ));
        assert!(matches!(
            parse_frame(&data("future/thing", r#"{"type":"future/thing"}"#)),
            Err(FrameError::Unknown { .. })
        ));
        assert!(matches!(
            parse_frame(&data("session/title", r#"{"type":"session/subscribed","sessionId":"s","lastSeq":1}"#)),
            Err(FrameError::MethodMismatch { .. })
        ));
        assert!(matches!(
            parse_frame(&data("session/subscribed", r#"{"type":"session/subscribed","sessionId":"s","lastSeq":-2}"#)),
            Err(FrameError::Schema { .. })
        ));
        assert!(matches!(
            parse_frame(&data("session/subscribed", r#"{"type":"session/subscribed","sessionId":"s"}"#)),
            Err(FrameError::Schema { .. })
        ));
        assert!(matches!(
            parse_frame(&data("question/requested", r#"{"type":"question/requested","sessionId":"s","questions":[]}"#)),
            Err(FrameError::Schema { .. })
        ));
    }
}
