//! `PlanModeState = {active, pending?}`: a present `pending` must differ from `active`.

use super::json::Json;
use serde::{de::Error as _, Deserialize, Deserializer, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PlanModeState {
    pub active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<bool>,
}

impl PlanModeState {
    pub fn committed(active: bool) -> Self {
        PlanModeState { active, pending: None }
    }
    /// The selection the host will apply at the next boundary, if any.
    pub fn pending_target(&self) -> Option<bool> {
        match self.pending {
            Some(p) if p != self.active => Some(p),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for PlanModeState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            active: bool,
            #[serde(default)]
            pending: Option<bool>,
        }
        let raw = Raw::deserialize(d)?;
        if raw.pending == Some(raw.active) {
            return Err(D::Error::custom("PlanModeState.pending must differ from active"));
        }
        Ok(PlanModeState { active: raw.active, pending: raw.pending })
    }
}

/// Second-level parse of a `session.planMode` / `session.setPlanMode` value:
/// `null` (capability absent) or a valid `PlanModeState`.
pub fn parse_plan_value(value: &Json) -> Result<Option<PlanModeState>, String> {
    value.parse::<Option<PlanModeState>>().map_err(|e| format!("bad PlanModeState: {e}"))
}

/// The data of a `plan/mode` session event: `{active: boolean}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanModeEvent {
    pub active: bool,
}
