//! The provider-agnostic interaction part of the snapshot (Extension 2): whole values read
//! from the projection store, plan prose from the fold, and `answer()`.

use super::io::{Call, Outcome};
use super::nodes::PlanText;
use super::{OpId, Purpose, Session};
use crate::core::wire::interaction::{
    Answer, Capabilities, ModeState, PendingPrompts, PlanSteps, ProposedPlan, UserInputPrompt, PROJ_CAPABILITIES,
    PROJ_MODE, PROJ_PLAN_STEPS, PROJ_PROPOSED_PLAN, PROJ_USER_INPUT,
};
use crate::core::wire::read::{read, FromObj};
use crate::core::wire::{self, ErrorCode, Json, Receipt, RpcError};
use std::rc::Rc;

/// Canonical interaction state. `None` = the host never said (capability absent).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Interaction {
    /// The operating mode (`interaction/mode`).
    pub mode: Option<ModeState>,
    /// What the provider can do (`interaction/capabilities`).
    pub capabilities: Option<Capabilities>,
    /// The structured plan (`interaction/plan`).
    pub plan_steps: Option<PlanSteps>,
    /// The streaming plan prose, from the fold.
    pub plan_text: Option<Rc<PlanText>>,
    /// The plan handed off for review (`interaction/proposedPlan`).
    pub proposed_plan: Option<ProposedPlan>,
    /// The prompts waiting for an answer (`interaction/userInput`; empty when absent).
    pub user_input: Vec<UserInputPrompt>,
}

impl Session {
    /// Typed view of the interaction projections; malformed values read as absent.
    pub fn interaction(&self) -> Interaction {
        Interaction {
            mode: self.projected(PROJ_MODE),
            capabilities: self.projected(PROJ_CAPABILITIES),
            plan_steps: self.projected(PROJ_PLAN_STEPS),
            plan_text: self.fold.plan_text.clone(),
            proposed_plan: self.projected(PROJ_PROPOSED_PLAN),
            user_input: self.projected::<PendingPrompts>(PROJ_USER_INPUT).map_or_else(Vec::new, |p| p.prompts),
        }
    }

    /// Changes whenever any part of [`Session::interaction`] may have changed.
    pub fn interaction_rev(&self) -> u64 {
        self.projections.rev.max(self.fold.plan_text.as_ref().map_or(0, |p| p.rev))
    }

    fn projected<T: FromObj>(&self, key: &str) -> Option<T> {
        read(self.projections.get(key)?.value.text()).ok()
    }

    /// Submits answers to a pending user-input prompt. A second submit for the same prompt
    /// while one is in flight is refused; a prompt the host does not list as pending is
    /// refused locally (`not-pending`) without a request.
    pub fn answer(&mut self, prompt_id: &str, answers: Vec<Answer>) -> OpId {
        let op = self.new_op();
        let in_flight =
            self.inflight.values().any(|p| matches!(p, Purpose::Answer { prompt_id: id, .. } if id == prompt_id));
        if in_flight {
            let id = wire::quote(prompt_id);
            let details = wire::object_text(&[("issues", Some("[]")), ("promptId", Some(&id))]);
            let details = Json::from_text(&details).unwrap_or_default();
            let err = RpcError::with_details(
                ErrorCode::BadRequest,
                format!("an answer to prompt `{prompt_id}` is already in flight"),
                details,
            );
            self.settle(op, Outcome::Result(Err(err)));
        } else if !self.interaction().user_input.iter().any(|p| p.prompt_id == prompt_id) {
            let receipt = Json::from_text(Receipt::NOT_PENDING_TEXT).unwrap_or_default();
            self.settle(op, Outcome::Result(Ok(receipt)));
        } else {
            let call = Call::Answer { prompt_id: prompt_id.to_string(), answers: Json::from_serialize(&answers) };
            self.send(call, Purpose::Answer { op, prompt_id: prompt_id.to_string() });
        }
        self.flush();
        op
    }
}
