//! A session's snapshot export cache: frozen JS objects keyed by the core's `rev` stamps, so
//! that unchanged nodes, arrays and sub-objects keep their JS identity across snapshots and
//! `getSnapshot()` returns the identical object until something changes.

use super::items::{each, Items};
use crate::core::session::pending::PendingKind;
use crate::core::session::{Node, NodeKind, Partial, PendingInteraction, PromptOp, RunningToolCall, Session};
use crate::core::wire::{Json, RpcError};
use crate::wasm::js::{frozen, frozen_array, join_frozen, json_js, opt_str, ser_js};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// Everything the top-level snapshot object depends on.
#[derive(Clone, PartialEq)]
struct Key {
    changes: u64,
    /// Moves whenever `stale`, `baseSeq`, `tailSeq`, `hasMore` or `running` does (every change of the window or of
    /// its freshness is a meta change), so those are read, not kept here.
    meta: u64,
    nodes: u64,
    partial: u64,
    running_calls: u64,
    pending: u64,
    plan: u64,
    projections: u64,
    interaction: u64,
    queue: u64,
    commands: u64,
    state: &'static str,
    loading_older: bool,
}

#[derive(Default)]
pub(crate) struct SessionExport {
    /// Bumped by the driver for every `Changed` effect of the session.
    pub changes: u64,
    snapshot: Option<(Key, JsValue)>,
    nodes: Items,
    running_calls: Items,
    pending: Items,
    partial: Option<(u64, JsValue)>,
    plan: Option<(u64, JsValue)>,
    projections: Option<(u64, JsValue)>,
    interaction: Option<(u64, JsValue)>,
    queue: Option<(u64, JsValue)>,
    commands: Option<(u64, JsValue)>,
    /// The projection values exported last, in key order (the store's row order).
    projection_values: Vec<(String, Rc<Json>, JsValue)>,
    open_error: Option<(RpcError, JsValue)>,
    prompt_error: Option<((PromptOp, RpcError), JsValue)>,
}

fn error_js(e: &RpcError) -> JsValue {
    ser_js(e)
}

fn num(n: impl Into<f64>) -> JsValue {
    JsValue::from_f64(n.into())
}

fn opt_num(n: Option<u64>) -> JsValue {
    n.map_or(JsValue::NULL, |n| JsValue::from_f64(n as f64))
}

/// A node as the snapshot shows it, written as JSON: a page of new nodes crosses into JS as
/// one text and one `JSON.parse` (per-field object building cost more than the parse).
struct NodeView<'a>(&'a Node, &'a str);

impl serde::Serialize for NodeView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let n = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &n.id)?;
        m.serialize_entry("type", n.kind.type_name())?;
        m.serialize_entry("seq", &n.seq)?;
        m.serialize_entry("turn", &n.turn)?;
        match &n.kind {
            NodeKind::User { content, source, client_id, .. } => {
                // The id of the echo it replaced: `clientId ?? id` is the node's stable key.
                let mine = client_id.as_ref().filter(|id| !self.1.is_empty() && id.starts_with(self.1));
                said(&mut m, content, source, mine, None)?;
            }
            NodeKind::Context { content, source } => said(&mut m, content, source, None, None)?,
            NodeKind::Echo { content, source, delivery, error, .. } => {
                said(&mut m, content, source, Some(&n.id), Some((delivery, error)))?
            }
            NodeKind::Assistant { step, content, provenance } => {
                m.serialize_entry("step", step)?;
                m.serialize_entry("content", content)?;
                m.serialize_entry("provenance", provenance)?;
            }
            NodeKind::Tool { step, call_id, name, arguments, status, result, is_error } => {
                m.serialize_entry("step", step)?;
                m.serialize_entry("callId", call_id)?;
                m.serialize_entry("name", name)?;
                m.serialize_entry("arguments", arguments)?;
                m.serialize_entry("status", status.as_str())?;
                m.serialize_entry("result", result)?;
                m.serialize_entry("isError", is_error)?;
            }
            NodeKind::Interrupted { step, text, reason } => {
                m.serialize_entry("step", step)?;
                m.serialize_entry("text", text)?;
                m.serialize_entry("reason", reason.as_str())?;
            }
            NodeKind::PlanMode { active } => m.serialize_entry("active", active)?,
            NodeKind::Interaction { prompt, answers, outcome } => {
                m.serialize_entry("prompt", &**prompt)?;
                m.serialize_entry("answers", answers)?;
                m.serialize_entry("outcome", outcome)?;
            }
            NodeKind::ProposedPlan { plan } => m.serialize_entry("plan", plan)?,
            #[allow(unreachable_patterns)]
            _ => {}
        }
        m.end()
    }
}

/// The members of a message node (user, steering, context, echo): one copy for all of them.
fn said<M: serde::ser::SerializeMap>(
    m: &mut M,
    content: &Json,
    source: &Json,
    client_id: Option<&String>,
    echo: Option<(&'static str, &Option<RpcError>)>,
) -> Result<(), M::Error> {
    m.serialize_entry("content", content)?;
    m.serialize_entry("source", source)?;
    if let Some(id) = client_id {
        m.serialize_entry("clientId", id)?;
    }
    if let Some((delivery, error)) = echo {
        m.serialize_entry("delivery", delivery)?;
        if let Some(error) = error {
            m.serialize_entry("error", error)?;
        }
    }
    Ok(())
}

/// Nodes per JSON text of [`nodes_js`].
const NODES_PER_TEXT: usize = 2048;

/// Frozen node objects for `nodes`, parsed from JSON texts of [`NODES_PER_TEXT`] nodes.
///
/// Why batches: one text of a whole window (5,000 nodes: 0.8 MB) grew wasm memory by 2.2 MB
/// while it was written (a string growing by doubling), and wasm memory never shrinks.
fn nodes_js(nodes: &[Rc<Node>], mine: &str) -> JsValue {
    struct All<'a>(&'a [Rc<Node>], &'a str);
    impl serde::Serialize for All<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().map(|n| NodeView(n, self.1)))
        }
    }
    let mut parts = Vec::with_capacity(nodes.len().div_ceil(NODES_PER_TEXT));
    for batch in nodes.chunks(NODES_PER_TEXT) {
        parts.push(json_js(&Json::from_serialize(&All(batch, mine))));
    }
    join_frozen(parts)
}

/// A JSON value's frozen object (`null` without one), the one exported last while its rev
/// stands (the queue, the command list).
fn json_by_rev(slot: &mut Option<(u64, JsValue)>, rev: u64, value: Option<&Json>) -> JsValue {
    match (&*slot, value) {
        (_, None) => JsValue::NULL,
        (Some((r, obj)), Some(_)) if *r == rev => obj.clone(),
        (_, Some(v)) => {
            let obj = json_js(v);
            *slot = Some((rev, obj.clone()));
            obj
        }
    }
}

fn partial_js(p: &Partial) -> JsValue {
    frozen(&[
        ("turn", num(p.turn as f64)),
        ("step", num(p.step as f64)),
        ("text", p.text.as_str().into()),
        ("reasoning", p.reasoning.as_str().into()),
        ("firstSeq", num(p.first_seq as f64)),
        ("lastSeq", num(p.last_seq as f64)),
    ])
}

fn running_js(r: &RunningToolCall) -> JsValue {
    frozen(&[
        ("callId", r.call_id.as_str().into()),
        ("name", r.name.as_str().into()),
        ("turn", num(r.turn as f64)),
        ("step", num(r.step as f64)),
        ("seq", num(r.seq as f64)),
    ])
}

fn pending_js(p: &PendingInteraction) -> JsValue {
    let mut f: Vec<(&str, JsValue)> =
        vec![("key", p.key.as_str().into()), ("kind", p.kind_name().into()), ("rpcId", p.rpc_id.as_str().into())];
    match &p.kind {
        PendingKind::Approval { approval_id, tool_name, call_id, reason } => {
            f.push(("approvalId", approval_id.as_str().into()));
            f.push(("toolName", tool_name.as_str().into()));
            if let Some(c) = call_id {
                f.push(("callId", c.as_str().into()));
            }
            if let Some(r) = reason {
                f.push(("reason", r.as_str().into()));
            }
        }
        PendingKind::Question { questions } => {
            f.push(("questions", ser_js(questions)));
        }
    }
    frozen(&f)
}

impl SessionExport {
    /// The nodes of the last snapshot replaced by `nodes` (see [`Items::adopt`]); the next
    /// snapshot is built anew around them.
    pub fn adopt_nodes(&mut self, nodes: JsValue) {
        if self.nodes.adopt(nodes) {
            self.snapshot = None;
        }
    }

    /// Lets go of the JS objects of a window that went (a released session is `cold`) now,
    /// not at its next snapshot: nobody may ask for one, as an unwatched session is what
    /// gets released, and its nodes would stay alive here for the tab's life. Only parts
    /// whose rev moved go, so the next snapshot would have built them anew anyway.
    pub fn let_go(&mut self, s: &Session) {
        if s.open_state() != crate::core::session::OpenState::Cold {
            return;
        }
        self.snapshot = None;
        self.nodes.let_go(s.shown_rev());
    }

    pub fn snapshot(&mut self, s: &Session) -> JsValue {
        let key = Key {
            changes: self.changes,
            meta: s.meta_rev(),
            nodes: s.shown_rev(),
            partial: s.partial().map_or(0, |p| p.rev),
            running_calls: s.running_calls_rev(),
            pending: s.pending_rev(),
            plan: s.plan_rev(),
            projections: s.projections().rev,
            interaction: s.interaction_rev(),
            queue: s.queue_rev(),
            commands: s.commands_rev(),
            state: s.open_state().as_str(),
            loading_older: s.loading_older(),
        };
        if let Some((k, snap)) = &self.snapshot {
            if *k == key {
                return snap.clone();
            }
        }
        let mine = s.client_prefix();
        let shown = s.shown_nodes();
        let nodes = self.nodes.export(s.shown_rev(), &shown, |n| n.rev, |n| nodes_js(n, mine));
        let running_calls =
            self.running_calls.export(s.running_calls_rev(), s.running_calls(), |r| r.rev, |i| each(i, running_js));
        let pending = self.pending.export(s.pending_rev(), s.pending(), |p| p.rev, |i| each(i, pending_js));
        let partial = match s.partial() {
            None => {
                self.partial = None;
                JsValue::NULL
            }
            Some(p) => match &self.partial {
                Some((rev, obj)) if *rev == p.rev => obj.clone(),
                _ => {
                    let obj = partial_js(p);
                    self.partial = Some((p.rev, obj.clone()));
                    obj
                }
            },
        };
        let plan = match &self.plan {
            Some((rev, obj)) if *rev == s.plan_rev() => obj.clone(),
            _ => {
                let obj = match s.plan_mode() {
                    None => JsValue::NULL,
                    Some(p) => {
                        let mut f: Vec<(&str, JsValue)> = vec![("active", p.active.into())];
                        if let Some(pending) = p.pending {
                            f.push(("pending", pending.into()));
                        }
                        frozen(&f)
                    }
                };
                self.plan = Some((s.plan_rev(), obj.clone()));
                obj
            }
        };
        let projections = self.export_projections(s);
        let interaction = match &self.interaction {
            Some((rev, obj)) if *rev == s.interaction_rev() => obj.clone(),
            _ => {
                // Presence and validity come from the core's typed view; the values are the
                // projection store's own JS objects (same shape, and they keep identity).
                let it = s.interaction();
                let values = &self.projection_values;
                let value = |key: &str| values.binary_search_by(|(k, ..)| k.as_str().cmp(key)).ok().map(|i| &values[i]);
                let raw = |key: &str, present: bool| match (present, value(key)) {
                    (true, Some((_, _, obj))) => obj.clone(),
                    _ => JsValue::NULL,
                };
                use crate::core::wire::interaction as ix;
                let user_input = match raw(ix::PROJ_USER_INPUT, !it.user_input.is_empty()) {
                    v if v.is_null() => frozen_array(Vec::new().into_iter()),
                    v => js_sys::Reflect::get(&v, &"prompts".into()).unwrap_or(JsValue::NULL),
                };
                let obj = frozen(&[
                    ("mode", raw(ix::PROJ_MODE, it.mode.is_some())),
                    ("capabilities", raw(ix::PROJ_CAPABILITIES, it.capabilities.is_some())),
                    ("planSteps", raw(ix::PROJ_PLAN_STEPS, it.plan_steps.is_some())),
                    (
                        "planText",
                        it.plan_text.as_ref().map_or(JsValue::NULL, |p| {
                            frozen(&[
                                ("itemId", p.item_id.as_str().into()),
                                ("turn", opt_num(p.turn)),
                                ("text", p.text.as_str().into()),
                                ("done", p.done.into()),
                            ])
                        }),
                    ),
                    ("proposedPlan", raw(ix::PROJ_PROPOSED_PLAN, it.proposed_plan.is_some())),
                    ("userInput", user_input),
                ]);
                self.interaction = Some((s.interaction_rev(), obj.clone()));
                obj
            }
        };
        let open_error = match (s.open_error(), &self.open_error) {
            (None, _) => {
                self.open_error = None;
                JsValue::NULL
            }
            (Some(e), Some((cached, obj))) if cached == e => obj.clone(),
            (Some(e), _) => {
                let obj = error_js(e);
                self.open_error = Some((e.clone(), obj.clone()));
                obj
            }
        };
        let prompt_error = match (s.prompt_error(), &self.prompt_error) {
            (None, _) => {
                self.prompt_error = None;
                JsValue::NULL
            }
            (Some((op, e)), Some(((cop, ce), obj))) if *cop == op && ce == e => obj.clone(),
            (Some((op, e)), _) => {
                let obj = frozen(&[("op", op.as_str().into()), ("error", error_js(e))]);
                self.prompt_error = Some(((op, e.clone()), obj.clone()));
                obj
            }
        };
        let queue = json_by_rev(&mut self.queue, s.queue_rev(), s.queue().map(|j| &**j));
        let commands = json_by_rev(&mut self.commands, s.commands_rev(), s.commands().map(|j| &**j));
        let snap = frozen(&[
            ("sessionId", s.id().into()),
            ("openState", key.state.into()),
            ("openError", open_error),
            ("stale", s.stale().into()),
            ("baseSeq", num(s.base_seq() as f64)),
            ("tailSeq", num(s.tail_seq() as f64)),
            ("hasMore", s.has_more().into()),
            ("loadingOlder", key.loading_older.into()),
            ("nodes", nodes),
            ("partial", partial),
            ("runningCalls", running_calls),
            ("pending", pending),
            ("planMode", plan),
            ("running", s.running().into()),
            ("promptError", prompt_error),
            ("lastAgentError", opt_str(s.last_agent_error())),
            ("projections", projections),
            ("interaction", interaction),
            ("title", opt_str(s.title().as_deref())),
            ("queue", queue),
            ("commands", commands),
            // Only the shell's local cache paints a snapshot with `cached: true`.
            ("cached", false.into()),
        ]);
        self.snapshot = Some((key, snap.clone()));
        snap
    }

    fn export_projections(&mut self, s: &Session) -> JsValue {
        let store = s.projections();
        if let Some((rev, obj)) = &self.projections {
            if *rev == store.rev {
                return obj.clone();
            }
        }
        let mut next = Vec::with_capacity(store.len());
        let mut fields = Vec::new();
        for (k, row) in store.rows() {
            let cached = self.projection_values.binary_search_by(|(key, ..)| key.cmp(k)).ok();
            let obj = match cached.map(|i| &self.projection_values[i]) {
                Some((_, v, obj)) if Rc::ptr_eq(v, &row.value) => obj.clone(),
                _ => json_js(&row.value),
            };
            next.push((k.clone(), Rc::clone(&row.value), obj.clone()));
            fields.push((k.as_str(), obj));
        }
        let obj = frozen(&fields);
        self.projection_values = next;
        self.projections = Some((store.rev, obj.clone()));
        obj
    }
}
