//! A session's plan-mode selection (the plan service, `crate::log::plan`, commits it at turn
//! starts): a selection is pending intent until the next turn start commits it.

use agent_session_wire::PlanModeState;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanState {
    pub active: bool,
    pending: Option<bool>,
}

impl PlanState {
    pub fn restore(active: bool, pending: Option<bool>) -> Self {
        PlanState { active, pending: pending.filter(|p| *p != active) }
    }

    pub fn state(&self) -> PlanModeState {
        PlanModeState { active: self.active, pending: self.pending }
    }

    pub fn pending(&self) -> Option<bool> {
        self.pending
    }

    /// Records a selection; true when the readable state changed.
    pub fn select(&mut self, want: bool) -> bool {
        let before = *self;
        self.pending = (want != self.active).then_some(want);
        *self != before
    }

    /// At a turn start: the selection to commit, if any.
    pub fn take_commit(&mut self) -> Option<bool> {
        let p = self.pending.take()?;
        self.active = p;
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_semantics_match_the_captures() {
        let mut p = PlanState::default();
        assert!(p.select(true));
        assert_eq!(p.state(), PlanModeState { active: false, pending: Some(true) });
        assert_eq!(p.take_commit(), Some(true));
        assert_eq!(p.state(), PlanModeState::committed(true));
        assert!(p.select(false));
        assert_eq!(p.state(), PlanModeState { active: true, pending: Some(false) });
        // Re-selecting the committed value is net zero.
        assert!(p.select(true));
        assert_eq!(p.state(), PlanModeState::committed(true));
        assert!(!p.select(true));
        assert_eq!(p.take_commit(), None);
    }
}
