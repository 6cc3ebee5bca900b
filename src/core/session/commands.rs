//! The 2026-08 host: the session's command list and the settlement of a plan selection
//! sent as `/plan`.
//!
//! The host answers `commands/execute` as soon as the handler is admitted, so the answer can
//! overtake the `plan` projection frames the selection causes (the host writes the pending frame,
//! then the answer, then the settled frame and `command/done`). The handler's end is the
//! `command/done {commandId}` event, logged after every projection change the handler made:
//! a selection resolves once that event is in, with the `plan` projection as it stands then,
//! or after [`PLAN_SETTLE_MS`] with the state known at that point (also when the event came
//! while the connection was down: the rebuilt window's projections are that state).

use super::command_state::{Waiting, MAX_WAITING, RECENT_DONE};
use super::io::{Effect, OpId, Outcome, WakeToken};
use super::{OpenState, Purpose, Session};
use crate::core::wire::{self, read::Obj, Json, SessionEvent};
use std::rc::Rc;

/// Longest wait for a selection's `command/done` after its answer.
pub const PLAN_SETTLE_MS: u32 = 2_000;
/// The `commandId` of a `command/done` event.
fn done_id(ev: &SessionEvent) -> Option<String> {
    if ev.kind != "command/done" {
        return None;
    }
    Obj::parse(ev.data.text()?).ok()?.str("commandId").ok()
}

/// The `commandId` of a `commands/execute` answer (`null` for a command the host lacks).
pub fn answer_id(value: &Json) -> Option<String> {
    Obj::parse(value.text()).ok()?.str("commandId").ok()
}

impl Session {
    /// The command list as the snapshot shows it (`None` until `commands/list` answered).
    pub fn commands(&self) -> Option<&Rc<Json>> {
        self.commands.list.as_ref()
    }
    /// Changes whenever `commands` does (export cache key).
    pub fn commands_rev(&self) -> u64 {
        self.commands.rev
    }

    /// Asks `commands/list` (one request in flight; a change meanwhile asks again after it).
    pub(super) fn send_commands_list(&mut self) {
        if self.in_flight_for(|p| matches!(p, Purpose::PlanCommandKnown)).is_some() {
            self.commands.stale = true;
        } else {
            self.send(super::io::Call::Commands, Purpose::PlanCommandKnown);
        }
    }

    /// `commands/list` answered: keep the list (a failure keeps the last one).
    pub(super) fn on_commands_list(&mut self, value: Option<&Json>) {
        if let Some(v) = value {
            if self.commands.list.as_deref() != Some(v) {
                self.commands.list = Some(Rc::new(v.clone()));
                self.commands.rev = self.stamps.next();
                self.dirty = true;
            }
        }
        if std::mem::take(&mut self.commands.stale) {
            self.send_commands_list();
        }
    }

    /// A forwarded `commands/change`: the host's command registry changed. Sessions that
    /// speak the 2026-08 dialect and are not cold ask for their list again.
    pub fn on_commands_changed(&mut self) {
        if self.plan.is_projected() && self.life.tag() != OpenState::Cold {
            self.send_commands_list();
        }
        self.flush();
    }

    /// Every event that reaches the session (live or buffered): a `command/done` settles the
    /// selection that waits on it.
    pub(super) fn note_command_done(&mut self, ev: &SessionEvent) {
        let Some(id) = done_id(ev) else { return };
        if let Some(at) = self.commands.waiting.iter().position(|w| w.command_id == id) {
            let w = self.commands.waiting.remove(at);
            self.effects.push_back(Effect::Unwake { token: w.token });
            self.settle_selection(w.op);
            return;
        }
        if self.commands.done.len() == RECENT_DONE {
            self.commands.done.remove(0);
        }
        self.commands.done.push(id);
    }

    /// A `/plan` answer: settle now if its handler already finished, else wait (bounded).
    pub(super) fn on_plan_command_answer(&mut self, op: OpId, value: &Json) {
        let Some(id) = answer_id(value) else { return self.settle_selection(op) };
        if let Some(at) = self.commands.done.iter().position(|d| *d == id) {
            self.commands.done.remove(at);
            return self.settle_selection(op);
        }
        if self.commands.waiting.len() == MAX_WAITING {
            let oldest = self.commands.waiting.remove(0);
            self.effects.push_back(Effect::Unwake { token: oldest.token });
            self.settle_selection(oldest.op);
        }
        self.wakes_minted += 1;
        let token = WakeToken(self.wakes_minted);
        self.commands.waiting.push(Waiting { command_id: id, op, token });
        self.effects.push_back(Effect::Wake { token, after_ms: PLAN_SETTLE_MS });
    }

    /// The bound of a waiting selection passed. Returns whether `token` was one.
    pub(super) fn selection_wait_over(&mut self, token: WakeToken) -> bool {
        let Some(at) = self.commands.waiting.iter().position(|w| w.token == token) else { return false };
        let w = self.commands.waiting.remove(at);
        self.settle_selection(w.op);
        true
    }

    /// Resolves a selection with the host-confirmed plan state as it stands now.
    fn settle_selection(&mut self, op: OpId) {
        self.read_plan_projection();
        self.settle(op, Outcome::Result(Ok(wire::plan_json(self.plan.shown()))));
    }

    /// Selections still waiting settle with what is known (the session is closing).
    pub(super) fn settle_waiting_selections(&mut self) {
        for w in std::mem::take(&mut self.commands.waiting) {
            self.effects.push_back(Effect::Unwake { token: w.token });
            self.settle_selection(w.op);
        }
    }

    /// The 2026-08 host writes a `title` projection on every tail page (`null` before
    /// one is set); the seed never does. Knowing the dialect from the page spares the
    /// `session.planMode` probe, which the 2026-08 host answers 404.
    pub(super) fn note_dialect(&mut self, values: &[(String, Json)]) {
        if values.iter().any(|(k, _)| k == wire::interaction::PROJ_TITLE) {
            self.switch_to_plan_projection();
        }
    }
}

impl Session {
    /// Sends one of the 2026-08 verbs (`Call::RunCommand`, `Rename`, `UpdateQueue`, `Attachment`);
    /// it settles with the host's value checked against the method's schema.
    pub fn verb(&mut self, call: super::io::Call) -> OpId {
        let op = self.new_op();
        let method = call.path();
        self.send(call, Purpose::Verb { op, method });
        self.flush();
        op
    }

    /// A slash-command line (`/plan`, `/feedback text`, …) through `commands/execute`. Resolves
    /// with `{commandId, result}`, or `null` for a line the host has no command for.
    pub fn command(&mut self, line: String) -> OpId {
        self.verb(super::io::Call::RunCommand { line })
    }

    /// `session.rename`: resolves with `{title, seq}`, the title as the host normalized it.
    pub fn rename(&mut self, title: String) -> OpId {
        self.verb(super::io::Call::Rename { title })
    }

    /// `session.updateQueue`: `action` is `{kind: 'edit', content}` | `{kind: 'remove'}` |
    /// `{kind: 'steer'}`; the queue changes when the host's next `session/queue` frame says so.
    pub fn update_queue(&mut self, item_id: String, action: Json) -> OpId {
        self.verb(super::io::Call::UpdateQueue { item_id, action })
    }

    /// `session.attachment`: resolves with `{attachment, data}` (base64 bytes).
    pub fn read_attachment(&mut self, attachment_id: String) -> OpId {
        self.verb(super::io::Call::Attachment { attachment_id })
    }
}
