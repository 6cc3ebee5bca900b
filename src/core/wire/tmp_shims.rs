//! TEMPORARY until the interaction/plan readers merge.
use super::read::*;
use super::interaction::*;
use super::plan::PlanModeEvent;
impl FromObj for PlanModeEvent { fn from_obj(o: &Obj<'_>) -> ReadResult<Self> { Ok(PlanModeEvent { active: o.bool("active")? }) } }
impl FromObj for PlanTextDelta { fn from_obj(o: &Obj<'_>) -> ReadResult<Self> { Ok(PlanTextDelta { item_id: o.str("itemId")?, text: o.str("text")? }) } }
impl FromObj for PlanTextDone { fn from_obj(o: &Obj<'_>) -> ReadResult<Self> { Ok(PlanTextDone { item_id: o.str("itemId")?, text: o.str("text")? }) } }
impl FromObj for ProposedPlan { fn from_obj(_: &Obj<'_>) -> ReadResult<Self> { Err(ReadError("shim".into())) } }
impl FromObj for PromptResolvedEvent { fn from_obj(_: &Obj<'_>) -> ReadResult<Self> { Err(ReadError("shim".into())) } }
