//! `PlanModeState = {active, pending?}`: a present `pending` must differ from `active`.

use super::json::Json;
use super::read::{read, FromObj, Obj, ReadError, ReadResult};
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

/// The client's reading (by name, no derive); same rule as the `Deserialize` impl above.
impl FromObj for PlanModeState {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        let (active, pending) = (o.bool("active")?, o.opt_bool("pending")?);
        if pending == Some(active) {
            return Err(ReadError("PlanModeState.pending must differ from active".into()));
        }
        Ok(PlanModeState { active, pending })
    }
}

/// Second-level parse of a `session.planMode` / `session.setPlanMode` value:
/// `null` (capability absent) or a valid `PlanModeState`.
pub fn parse_plan_value(value: &Json) -> Result<Option<PlanModeState>, String> {
    if value.is_null() {
        return Ok(None);
    }
    read::<PlanModeState>(value.text()).map(Some).map_err(|e| format!("bad PlanModeState: {e}"))
}

/// Today's upstream `plan` projection, `{active, pending}`: there `pending` is a flag ("a
/// selection of the other state is pending"), not the seed's pending target. Read into the
/// seed's shape so the UI sees one `PlanModeState` from either generation.
pub fn parse_plan_projection(value: &Json) -> Result<PlanModeState, String> {
    let o = Obj::parse(value.text()).map_err(|e| format!("bad plan projection: {e}"))?;
    let active = o.bool("active").map_err(|e| format!("bad plan projection: {e}"))?;
    let pending = o.opt_bool("pending").map_err(|e| format!("bad plan projection: {e}"))?.unwrap_or(false);
    Ok(PlanModeState { active, pending: pending.then_some(!active) })
}

/// The `commands/execute` line that selects a plan state on today's upstream host.
pub fn plan_command_line(active: bool) -> &'static str {
    if active {
        "/plan"
    } else {
        "/plan off"
    }
}

/// The data of a `plan/mode` session event: `{active: boolean}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanModeEvent {
    pub active: bool,
}

impl FromObj for PlanModeEvent {
    fn from_obj(o: &Obj<'_>) -> ReadResult<Self> {
        Ok(PlanModeEvent { active: o.bool("active")? })
    }
}

#[cfg(test)]
mod readers_agree_with_serde {
    use super::*;

    /// `parse_plan_value` and the serde reading of `Option<PlanModeState>` agree on `text`.
    fn agree(text: &str) -> Result<Option<PlanModeState>, String> {
        let ours = parse_plan_value(&Json::from_text(text).unwrap());
        let theirs = serde_json::from_str::<Option<PlanModeState>>(text);
        assert_eq!(ours.is_ok(), theirs.is_ok(), "{text}: read {ours:?}, serde {theirs:?}");
        if let (Ok(a), Ok(b)) = (&ours, &theirs) {
            assert_eq!(a, b, "{text}");
        }
        ours
    }

    #[test]
    fn plan_mode_states() {
        for active in [false, true] {
            for pending in [None, Some(!active)] {
                let s = PlanModeState { active, pending };
                assert_eq!(agree(&serde_json::to_string(&s).unwrap()), Ok(Some(s)));
            }
        }
        assert_eq!(agree("null"), Ok(None));
        assert_eq!(agree(r#"{"active":true,"pending":null,"x":[]}"#), Ok(Some(PlanModeState::committed(true))));
        for bad in [
            r#"{"active":true,"pending":true}"#,
            r#"{"active":false,"pending":false}"#,
            r#"{"pending":true}"#,
            r#"{"active":"true"}"#,
            r#"{"active":null}"#,
            r#"{"active":true,"pending":1}"#,
            r#"{"active":true,"active":false}"#,
            "[]",
            "true",
        ] {
            assert!(agree(bad).unwrap_err().starts_with("bad PlanModeState"), "{bad}");
        }
    }

    #[test]
    fn plan_mode_events() {
        let agree = |text: &str| {
            let (a, b) = (read::<PlanModeEvent>(text), serde_json::from_str::<PlanModeEvent>(text));
            assert_eq!(a.as_ref().ok(), b.as_ref().ok(), "{text}");
            assert_eq!(a.is_ok(), b.is_ok(), "{text}");
            a.ok()
        };
        assert_eq!(agree(r#"{"active":true,"turn":3}"#), Some(PlanModeEvent { active: true }));
        assert_eq!(agree(r#"{"active":false}"#), Some(PlanModeEvent { active: false }));
        assert_eq!(agree(r#"{}"#), None);
        assert_eq!(agree(r#"{"active":0}"#), None);
    }
}
