//! Plan-mode service with the origin's semantics.
//!
//! A selection is recorded as pending intent (persisted, so it survives a restart) and is
//! committed — `plan/mode {active}` logged — only at the next model-request boundary, the
//! start of the next prompt's turn. A selection never touches a running turn. Re-selecting
//! the committed value while a different one is pending is net zero (pending cleared, no
//! event). `PlanModeState.pending` carries the *selected value*, so it always differs from
//! `active` when present.

use crate::log::base::Base;
use crate::log::session::{AppendError, LogState, NewEvent, PlanState, Session};
use crate::log::store::{SessionUpdate, StoreError};
use agent_session_wire::{Frame, PlanModeState, ProjectionFrame};
use serde_json::{json, Value};

/// The projection key of the plan value (Extension 1).
pub const PROJECTION_KEY: &str = agent_session_wire::interaction::PROJ_PLAN;

/// What the origin logs when the user leaves plan mode.
const LEAVE_TEXT: &str = "The user switched this session back to the default mode.";

pub fn value(state: PlanModeState) -> Value {
    serde_json::to_value(state).unwrap_or(Value::Null)
}

fn publish_projection(app: &Base, session: &Session, log: &LogState) {
    let frame = Frame::Projection(ProjectionFrame {
        session_id: session.id.clone(),
        key: PROJECTION_KEY.to_string(),
        value: value(log.plan.state()).into(),
        seq: log.last_seq,
    });
    app.hub.mux(app.hub.out(&frame));
}

/// `session.setPlanMode`: record the selection, persist it, announce the new value.
pub async fn select(app: &Base, session: &Session, active: bool) -> Result<PlanModeState, StoreError> {
    let mut log = session.log.lock().await;
    let mut next = log.plan;
    if next.select(active) {
        app.store.update_session(session.pk, &SessionUpdate::PlanPending(next.pending()))?;
        log.plan = next;
        publish_projection(app, session, &log);
    }
    Ok(log.plan.state())
}

/// An approved plan review leaves plan mode at once, inside the running turn (as the 2026-08
/// host does when the user approves `exit_plan_mode`).
pub fn leave_now(app: &Base, session: &Session, log: &mut LogState) -> Result<(), AppendError> {
    if !log.plan.active {
        return Ok(());
    }
    let mut next = PlanState::restore(true, Some(false));
    commit(app, session, log, &mut next)
}

/// The 2026-08 host commits a selection made while no turn runs at once (a running turn
/// still keeps it pending until the next turn starts).
pub async fn commit_if_idle(app: &Base, session: &Session) -> Result<(), AppendError> {
    if session.is_running() {
        return Ok(());
    }
    let mut log = session.log.lock().await;
    commit_at_turn_start(app, session, &mut log)
}

/// At the start of a turn (after `turn/start`): commit a pending selection. Leaving plan
/// mode also tells the model so with a `context/message`, as the origin does.
pub fn commit_at_turn_start(app: &Base, session: &Session, log: &mut LogState) -> Result<(), AppendError> {
    let mut next = log.plan;
    commit(app, session, log, &mut next)
}

fn commit(app: &Base, session: &Session, log: &mut LogState, next: &mut PlanState) -> Result<(), AppendError> {
    let Some(active) = next.take_commit() else { return Ok(()) };
    session.append_locked(
        app,
        log,
        NewEvent::new("plan/mode", json!({ "active": active })),
        &[SessionUpdate::PlanPending(None)],
    )?;
    log.plan = *next;
    if !active {
        session.append_locked(
            app,
            log,
            NewEvent::message(
                "context/message",
                json!({
                    "content": [{ "type": "text", "text": LEAVE_TEXT }],
                    "source": { "kind": "plugin", "plugin": "plan-mode" },
                }),
            ),
            &[],
        )?;
    }
    publish_projection(app, session, log);
    Ok(())
}
