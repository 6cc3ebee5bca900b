//! TEMPORARY until the plan readers merge.
use super::read::*;
use super::plan::PlanModeEvent;
impl FromObj for PlanModeEvent { fn from_obj(o: &Obj<'_>) -> ReadResult<Self> { Ok(PlanModeEvent { active: o.bool("active")? }) } }
