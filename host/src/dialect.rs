//! Which generation of the origin's wire this host speaks (`--wire`).
//!
//! The log is stored in one shape, the seed's; a host started with `--wire 2026-08` speaks
//! the 2026-08 generation at its edges instead, so the client's tests can run the same
//! scenarios against both:
//! - event payloads: `assistant/message {message: {role, content, source, id}}`,
//!   `tool/result {message: {source, content: [tool-result part], role, id}}`, `user/message`
//!   with `role` and `id`, context as a plugin-sourced `user/message`, steering as a
//!   `user/message`, `turn/start` without `trigger`;
//! - plan state only as the `plan` projection `{active, pending}` (`pending` a flag), the plan
//!   RPCs answer 404 and a selection is the `/plan` / `/plan off` command
//!   (`POST /api/commands/execute`);
//! - the title as the `title` projection instead of `session/title` frames.

use agent_session_wire::interaction::PROJ_PLAN;
use agent_session_wire::{Frame, Json, ProjectionFrame, SessionEvent};
use clap::ValueEnum;
use serde_json::{json, Map, Value};
use std::borrow::Cow;

/// Which carriers serve the two downlinks (`/api/events.mux`, `/api/events.host`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Downlinks {
    /// WebSocket only, like the 2026-08 host: a plain GET answers 426.
    Ws,
    /// SSE only, like the seed host: an upgrade request just gets the SSE stream (no 101).
    Sse,
    /// An upgrade gets a WebSocket, a plain GET gets SSE.
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Wire {
    /// The seed commit's wire (July 2026): plan RPCs, `session/title` frames.
    #[default]
    #[value(name = "seed")]
    Seed,
    /// The 2026-08 wire (August 2026): plan and title as projections, new event shapes.
    #[value(name = "2026-08")]
    Upstream202608,
}

impl Wire {
    /// The August 2026 generation (plan and title as projections, `/plan` commands).
    pub fn is_upstream(self) -> bool {
        self == Wire::Upstream202608
    }

    /// The event as this generation writes it.
    pub fn event_out(self, ev: &SessionEvent) -> Cow<'_, SessionEvent> {
        match self.is_upstream().then(|| upstream_event(ev)).flatten() {
            Some(out) => Cow::Owned(out),
            None => Cow::Borrowed(ev),
        }
    }

    /// The same for an owned event (a history page): moved through unchanged on the seed wire.
    pub fn event_into(self, ev: SessionEvent) -> SessionEvent {
        match self.is_upstream().then(|| upstream_event(&ev)).flatten() {
            Some(out) => out,
            None => ev,
        }
    }

    /// A projection value as this generation writes it: the August 2026 `plan` carries
    /// `pending` as a flag (a selection of the other state is pending), not the selected value.
    pub fn projection_out(self, key: &str, value: &Json) -> Json {
        if !self.is_upstream() || key != PROJ_PLAN {
            return value.clone();
        }
        upstream_plan(value)
    }

    /// A stream frame as this generation writes it.
    pub fn frame_out(self, frame: &Frame) -> Cow<'_, Frame> {
        if !self.is_upstream() {
            return Cow::Borrowed(frame);
        }
        match frame {
            Frame::Event(f) => match self.event_out(&f.event) {
                Cow::Borrowed(_) => Cow::Borrowed(frame),
                Cow::Owned(event) => {
                    let mut f = f.clone();
                    f.event = event;
                    Cow::Owned(Frame::Event(f))
                }
            },
            Frame::Projection(f) => {
                let mut f = f.clone();
                f.value = self.projection_out(&f.key, &f.value);
                Cow::Owned(Frame::Projection(f))
            }
            // The August 2026 host keeps the title as a projection.
            Frame::Title(t) => Cow::Owned(Frame::Projection(ProjectionFrame {
                session_id: t.session_id.clone(),
                key: "title".into(),
                value: Json::from_value(&json!(t.title)),
                seq: t.event_seq as i64,
            })),
            _ => Cow::Borrowed(frame),
        }
    }
}

/// The 2026-08 shape of a seed event, when it differs.
fn upstream_event(ev: &SessionEvent) -> Option<SessionEvent> {
    let data = ev.data_value();
    let Value::Object(d) = &data else { return None };
    let id = || json!(format!("m-{}", ev.seq));
    let (kind, data) = match ev.kind.as_str() {
        "assistant/message" => {
            let message = json!({
                "role": "assistant",
                "content": d.get("content").cloned().unwrap_or(Value::Null),
                "source": d.get("provenance").cloned().unwrap_or(json!({})),
                "id": id(),
            });
            let mut out = pick(d, &["turn", "step"]);
            out.insert("message".into(), message);
            ("assistant/message", Value::Object(out))
        }
        "tool/result" => {
            let call_id = d.get("callId").cloned().unwrap_or(Value::Null);
            let part = json!({
                "type": "tool-result",
                "toolCallId": call_id,
                "content": d.get("content").cloned().unwrap_or(Value::Null),
                "isError": d.get("isError").cloned().unwrap_or(json!(false)),
            });
            let message = json!({ "source": { "kind": "tool", "callId": call_id }, "content": [part], "role": "user", "id": id() });
            let mut out = pick(d, &["turn", "step"]);
            out.insert("message".into(), message);
            ("tool/result", Value::Object(out))
        }
        "user/message" | "context/message" | "steering/message" => {
            let mut out = d.clone();
            out.insert("role".into(), json!("user"));
            out.insert("id".into(), id());
            ("user/message", Value::Object(out))
        }
        "turn/start" => ("turn/start", Value::Object(pick(d, &["turn"]))),
        _ => return None,
    };
    let mut out = ev.clone();
    out.kind = kind.to_string();
    out.data = Json::from_value(&data).into();
    Some(out)
}

fn pick(d: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    keys.iter().filter_map(|k| d.get(*k).map(|v| (k.to_string(), v.clone()))).collect()
}

fn upstream_plan(value: &Json) -> Json {
    let v = value.value();
    let active = v.get("active").and_then(Value::as_bool).unwrap_or(false);
    let pending = v.get("pending").and_then(Value::as_bool).is_some_and(|p| p != active);
    Json::from_value(&json!({ "active": active, "pending": pending }))
}

/// The 2026-08 `session.list` item keeps its title in a projection block (`null` while untitled).
pub fn summary_projections(title: Option<String>) -> Json {
    Json::from_value(&json!({ "values": { "title": title } }))
}

/// The reply text of a `/plan` command.
pub fn plan_command_text(active: bool) -> &'static str {
    if active {
        "Plan mode on. Use /plan off to leave."
    } else {
        "Plan mode off."
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_events_take_the_2026_08_shapes() {
        let event_out = |ev: &SessionEvent| upstream_event(ev).unwrap_or_else(|| ev.clone());
        let projection_out = |_: &str, v: &Json| upstream_plan(v);
        {
            let ev = SessionEvent::new(
                "assistant/message",
                7,
                1.0,
                json!({"turn": 1, "step": 2, "content": [{"type": "text", "text": "hi"}], "provenance": {"kind": "model"}}),
            );
            let out = event_out(&ev);
            assert_eq!(
                out.data_value(),
                json!({"turn": 1, "step": 2, "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "source": {"kind": "model"}, "id": "m-7"}})
            );
            let ev = SessionEvent::new(
                "tool/result",
                8,
                1.0,
                json!({"turn": 1, "step": 2, "callId": "c", "content": "ok", "isError": true}),
            );
            assert_eq!(
                event_out(&ev).data_value()["message"]["content"][0],
                json!({"type": "tool-result", "toolCallId": "c", "content": "ok", "isError": true})
            );
            let ev = SessionEvent::new("turn/start", 9, 1.0, json!({"turn": 3, "trigger": {"kind": "message"}}));
            assert_eq!(event_out(&ev).data_value(), json!({"turn": 3}));
            let ev =
                SessionEvent::new("context/message", 10, 1.0, json!({"content": [], "source": {"kind": "plugin"}}));
            assert_eq!(event_out(&ev).kind, "user/message");
            let plan = projection_out("plan", &Json::from_value(&json!({"active": false, "pending": true})));
            assert_eq!(plan.value(), json!({"active": false, "pending": true}));
            let plan = projection_out("plan", &Json::from_value(&json!({"active": true})));
            assert_eq!(plan.value(), json!({"active": true, "pending": false}));
        }
        assert_eq!(Wire::default(), Wire::Seed);
    }
}
