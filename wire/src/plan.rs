//! `PlanModeState = {active, pending?}`: a present `pending` must differ from `active`.

use super::json::Json;
use super::read::{read, ReadError, ReadResult};

record! {
    /// Plan mode as the host reports it: the state in force and the selection waiting for a boundary.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct PlanModeState {
        /// Whether plan mode is in force now.
        pub active: bool = "active",
        /// The state selected to take over at the next boundary (absent when none is waiting).
        pub pending: Option<bool> = opt "pending",
    }
    check = PlanModeState::check;
}

impl PlanModeState {
    /// A state with nothing pending.
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

impl PlanModeState {
    /// A present `pending` differs from `active` (both readings apply it).
    fn check(&self) -> ReadResult<()> {
        match self.pending == Some(self.active) {
            true => Err(ReadError::invalid("PlanModeState.pending must differ from active")),
            false => Ok(()),
        }
    }
}

/// Second-level parse of a `session.planMode` / `session.setPlanMode` value:
/// `null` (capability absent) or a valid `PlanModeState`.
pub fn parse_plan_value(value: &Json) -> ReadResult<Option<PlanModeState>> {
    if value.is_null() {
        return Ok(None);
    }
    read::<PlanModeState>(value.text()).map(Some).map_err(|e| e.context("bad PlanModeState"))
}

/// The 2026-08 `plan` projection, `{active, pending}`: there `pending` is a flag ("a
/// selection of the other state is pending"), not the seed's pending target. Read into the
/// seed's shape so the UI sees one `PlanModeState` from either generation.
pub fn parse_plan_projection(value: &Json) -> ReadResult<PlanModeState> {
    record! {
        /// The 2026-08 shape: `pending` is a flag.
        struct Upstream {
            active: bool = "active",
            pending: Option<bool> = opt "pending",
        }
    }
    let p = read::<Upstream>(value.text()).map_err(|e| e.context("bad plan projection"))?;
    Ok(PlanModeState { active: p.active, pending: p.pending.unwrap_or(false).then_some(!p.active) })
}

/// The `commands/execute` line that selects a plan state on the 2026-08 host.
pub fn plan_command_line(active: bool) -> &'static str {
    if active {
        "/plan"
    } else {
        "/plan off"
    }
}

record! {
    /// The data of a `plan/mode` session event: `{active: boolean}`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct PlanModeEvent {
        /// Whether plan mode is on from this point of the log.
        pub active: bool = "active",
    }
}

#[cfg(test)]
mod readers {
    use super::*;

    /// `parse_plan_value` and the serde reading of `Option<PlanModeState>` agree on `text`.
    fn agree(text: &str) -> ReadResult<Option<PlanModeState>> {
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
            assert!(agree(bad).unwrap_err().to_string().starts_with("bad PlanModeState"), "{bad}");
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
