//! A provider session's interaction state: its adapter (guarded by the log lock, like
//! everything that changes with the log), the Extension 2 projections, and the glue that turns
//! canonical outputs into logged events (`turn` added) and `session/projection` frames.
//!
//! - At create: the adapter is primed with the session's mode (events dropped, the log stays
//!   empty) and `interaction/capabilities` + `interaction/mode` are published.
//! - At each turn start (plan service on): the profile's native mode payload goes through the
//!   adapter, so `interaction/mode` follows the committed plan mode; once plan mode is
//!   committed inactive, `interaction/proposedPlan` is set to `null` (the handoff is done).
//! - `session.answer`: the adapter checks and maps the answer; the waiting turn gets the
//!   native reply.
//! - Projections persist (SQLite `projections`); a prompt left pending by a killed process is
//!   resolved `cancelled` at startup.

use crate::log::base::Base;
use crate::log::session::{AppendError, LogState, NewEvent, Session};
use crate::log::store::SessionUpdate;
use crate::providers::adapters::Canonical;
use crate::providers::scripted::{self as profiles, Ctx};
use agent_session_wire::interaction::{
    AnswerPayload, PendingPrompts, PromptOutcome, PromptResolvedEvent, EV_PROMPT_RESOLVED, PROJ_PROPOSED_PLAN,
    PROJ_USER_INPUT,
};
use agent_session_wire::{Frame, ProjectionFrame, Receipt, ReceiptReason, SessionEvent};
use serde_json::Value;

/// Sets a projection value (persisted) and announces it at the log's last seq. No-op when
/// unchanged.
pub fn set_projection(app: &Base, s: &Session, log: &mut LogState, key: &str, value: Value) -> Result<(), AppendError> {
    if log.projections.get(key) == Some(&value) {
        return Ok(());
    }
    app.store
        .update_session(s.pk, &SessionUpdate::Projection(key.to_string(), value.clone()))
        .map_err(AppendError::Store)?;
    log.projections.insert(key.to_string(), value.clone());
    publish(app, s, key, value, log.last_seq);
    Ok(())
}

pub fn publish(app: &Base, s: &Session, key: &str, value: Value, seq: i64) {
    let frame =
        Frame::Projection(ProjectionFrame { session_id: s.id.clone(), key: key.to_string(), value: value.into(), seq });
    app.hub.mux(app.hub.out(&frame));
}

/// Logs a canonical event of the current turn (`turn` added to its data).
pub fn log_event(
    app: &Base,
    s: &Session,
    log: &mut LogState,
    kind: &'static str,
    mut data: Value,
) -> Result<SessionEvent, AppendError> {
    if let Some(d) = data.as_object_mut() {
        d.insert("turn".into(), Value::from(log.turn));
    }
    s.append_locked(app, log, NewEvent::new(kind, data), &[])
}

/// Applies the outputs that are events or projections; anything else is reported on stderr
/// (only turn scripts produce assistant text and tool calls, and they apply those themselves).
pub fn apply_basic(app: &Base, s: &Session, log: &mut LogState, outs: Vec<Canonical>) -> Result<(), AppendError> {
    for o in outs {
        match o {
            Canonical::Event { kind, data } => {
                log_event(app, s, log, kind, data)?;
            }
            Canonical::Projection { key, value } => set_projection(app, s, log, key, value)?,
            Canonical::Diagnostic { message } => eprintln!("agent-session-host: {}: {message}", s.id),
            other => eprintln!("agent-session-host: {}: output not applied here: {other:?}", s.id),
        }
    }
    Ok(())
}

/// At a turn start, after the plan commit: the mode payload through the adapter, and the
/// proposed plan cleared once plan mode is off.
pub fn at_turn_start(app: &Base, s: &Session, log: &mut LogState, prompt: &str) -> Result<(), AppendError> {
    let Some(ps) = log.provider.as_ref() else { return Ok(()) };
    let ctx = Ctx { session_id: &s.id, turn: log.turn, prompt };
    let payload = profiles::mode_payload(ps.profile, &ctx, log.plan.active);
    mode_at_turn_start(app, s, log, &payload)
}

/// The same with the native request that carries the mode (a real agent's `turn/start`).
pub fn mode_at_turn_start(app: &Base, s: &Session, log: &mut LogState, payload: &Value) -> Result<(), AppendError> {
    let active = log.plan.active;
    let Some(ps) = log.provider.as_mut() else { return Ok(()) };
    let outs = ps.adapter.ingest(payload);
    apply_basic(app, s, log, outs)?;
    if !active && log.projections.get(PROJ_PROPOSED_PLAN).is_some_and(|v| !v.is_null()) {
        set_projection(app, s, log, PROJ_PROPOSED_PLAN, Value::Null)?;
    }
    Ok(())
}

/// `session.answer`.
pub async fn answer(app: &Base, s: &Session, p: AnswerPayload) -> Result<Receipt, AppendError> {
    let mut log = s.log.lock().await;
    let Some(ps) = log.provider.as_mut() else { return Ok(Receipt::refused(ReceiptReason::NotPending)) };
    let answered = match ps.adapter.answer(&p.prompt_id, &p.answers) {
        Ok(a) => a,
        Err(e) => return Ok(Receipt::refused(e.reason())),
    };
    let waiter = ps.waiters.remove(&p.prompt_id);
    let outs = answered.outputs.clone();
    apply_basic(app, s, &mut log, outs)?;
    if let Some(w) = waiter {
        let _ = w.send(answered);
    }
    Ok(Receipt::accepted())
}

/// Startup: prompts a killed process left pending are resolved `cancelled` (their turn is
/// closed as interrupted right after).
pub fn drop_stale_prompts(app: &Base, s: &Session, log: &mut LogState) -> Result<(), AppendError> {
    let Some(v) = log.projections.get(PROJ_USER_INPUT).cloned() else { return Ok(()) };
    let Ok(pending) = serde_json::from_value::<PendingPrompts>(v) else { return Ok(()) };
    if pending.prompts.is_empty() {
        return Ok(());
    }
    for prompt in pending.prompts {
        let ev = PromptResolvedEvent { prompt, answers: Vec::new(), outcome: PromptOutcome::Cancelled };
        log_event(app, s, log, EV_PROMPT_RESOLVED, serde_json::to_value(ev).unwrap_or(Value::Null))?;
    }
    let empty = serde_json::to_value(PendingPrompts { prompts: Vec::new() }).unwrap_or(Value::Null);
    set_projection(app, s, log, PROJ_USER_INPUT, empty)
}
