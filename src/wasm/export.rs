//! The snapshot export cache: frozen JS objects keyed by the core's `rev` stamps, so that
//! unchanged nodes, arrays and sub-objects keep their JS identity across snapshots and
//! `getSnapshot()` returns the identical object until something changes.

use super::js::{frozen, frozen_array, json_js, opt_str, ser_js};
use crate::core::client::{Carrier, Connection};
use crate::core::session::pending::PendingKind;
use crate::core::session::{Node, NodeKind, Partial, PendingInteraction, PromptOp, RunningToolCall, Session};
use crate::core::wire::{result_text, Json, RpcError};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// Everything the top-level snapshot object depends on.
#[derive(Clone, PartialEq)]
struct Key {
    changes: u64,
    meta: u64,
    nodes: u64,
    partial: u64,
    running_calls: u64,
    pending: u64,
    plan: u64,
    projections: u64,
    interaction: u64,
    queue: u64,
    state: &'static str,
    base: i64,
    tail: i64,
    has_more: bool,
    loading_older: bool,
    running: bool,
}

/// A per-item cache: (id, rev) → object. Items not seen in a rebuild are dropped.
///
/// The last export's items with their objects, found by rev through a small open-addressing
/// table of positions (revs are stamps: an equal rev is rare, and then the id decides). No
/// hash map or sort (their code costs KBs of wasm) and no key string allocated per item.
pub(super) struct Items<T> {
    prev: Vec<(Rc<T>, JsValue)>,
    /// A power-of-two table at most half full: position in `prev` + 1, or 0 for free.
    slots: Vec<u32>,
    array: Option<(u64, JsValue)>,
}

impl<T> Default for Items<T> {
    fn default() -> Self {
        Items { prev: Vec::new(), slots: Vec::new(), array: None }
    }
}

/// The first slot for `rev` in a table of `len` slots (a power of two).
fn rev_slot(rev: u64, len: usize) -> usize {
    (rev.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & (len - 1)
}

impl<T> Items<T> {
    pub(super) fn export(
        &mut self,
        rev: u64,
        items: &[Rc<T>],
        id: impl Fn(&T) -> &str,
        item_rev: impl Fn(&T) -> u64,
        build: impl Fn(&T) -> JsValue,
    ) -> JsValue {
        if let Some((r, a)) = &self.array {
            if *r == rev {
                return a.clone();
            }
        }
        let cached = |it: &T| {
            if self.slots.is_empty() {
                return None;
            }
            let r = item_rev(it);
            let mut at = rev_slot(r, self.slots.len());
            while let Some(&s) = self.slots.get(at).filter(|&&s| s != 0) {
                let (p, obj) = &self.prev[s as usize - 1];
                if item_rev(p) == r && id(p) == id(it) {
                    return Some(obj.clone());
                }
                at = (at + 1) & (self.slots.len() - 1);
            }
            None
        };
        let mut next = Vec::with_capacity(items.len());
        let arr = frozen_array(items.iter().map(|it| {
            let obj = cached(it).unwrap_or_else(|| build(it));
            next.push((Rc::clone(it), obj.clone()));
            obj
        }));
        let len = (next.len() * 2).next_power_of_two().max(8);
        let mut slots = vec![0u32; len];
        for (i, (it, _)) in next.iter().enumerate() {
            let mut at = rev_slot(item_rev(it), len);
            while slots[at] != 0 {
                at = (at + 1) & (len - 1);
            }
            slots[at] = i as u32 + 1;
        }
        self.slots = slots;
        self.prev = next;
        self.array = Some((rev, arr.clone()));
        arr
    }
}

#[derive(Default)]
pub struct SessionExport {
    /// Bumped by the driver for every `Changed` effect of the session.
    pub changes: u64,
    snapshot: Option<(Key, JsValue)>,
    nodes: Items<Node>,
    running_calls: Items<RunningToolCall>,
    pending: Items<PendingInteraction>,
    partial: Option<(u64, JsValue)>,
    plan: Option<(u64, JsValue)>,
    projections: Option<(u64, JsValue)>,
    interaction: Option<(u64, JsValue)>,
    queue: Option<(u64, JsValue)>,
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

fn node_js(n: &Node) -> JsValue {
    let mut f: Vec<(&str, JsValue)> = vec![
        ("id", n.id.as_str().into()),
        ("type", n.kind.type_name().into()),
        ("seq", num(n.seq as f64)),
        ("turn", opt_num(n.turn)),
    ];
    match &n.kind {
        NodeKind::User { content, source, .. } | NodeKind::Context { content, source } => {
            f.push(("content", json_js(content)));
            f.push(("source", json_js(source)));
        }
        NodeKind::Assistant { step, content, provenance } => {
            f.push(("step", num(*step as f64)));
            f.push(("content", json_js(content)));
            f.push(("provenance", json_js(provenance)));
        }
        NodeKind::Tool { step, call_id, name, arguments, status, result, is_error } => {
            f.push(("step", num(*step as f64)));
            f.push(("callId", call_id.as_str().into()));
            f.push(("name", name.as_str().into()));
            f.push(("arguments", json_js(arguments)));
            f.push(("status", status.as_str().into()));
            f.push(("result", result.as_ref().map_or(JsValue::NULL, json_js)));
            f.push(("isError", (*is_error).into()));
        }
        NodeKind::Interrupted { step, text, reason } => {
            f.push(("step", num(*step as f64)));
            f.push(("text", text.as_str().into()));
            f.push(("reason", reason.as_str().into()));
        }
        NodeKind::PlanMode { active } => f.push(("active", (*active).into())),
        NodeKind::Interaction { prompt, answers, outcome } => {
            f.push(("prompt", ser(&**prompt)));
            f.push(("answers", ser(answers)));
            f.push(("outcome", ser(outcome)));
        }
        NodeKind::ProposedPlan { plan } => f.push(("plan", ser(plan))),
        #[allow(unreachable_patterns)]
        _ => {}
    }
    frozen(&f)
}

fn ser<T: serde::Serialize>(v: &T) -> JsValue {
    ser_js(v)
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
    pub fn snapshot(&mut self, s: &Session) -> JsValue {
        let key = Key {
            changes: self.changes,
            meta: s.meta_rev(),
            nodes: s.nodes_rev(),
            partial: s.partial().map_or(0, |p| p.rev),
            running_calls: s.running_calls_rev(),
            pending: s.pending_rev(),
            plan: s.plan_rev(),
            projections: s.projections().rev,
            interaction: s.interaction_rev(),
            queue: s.queue_rev(),
            state: s.open_state().as_str(),
            base: s.base_seq(),
            tail: s.tail_seq(),
            has_more: s.has_more(),
            loading_older: s.loading_older(),
            running: s.running(),
        };
        if let Some((k, snap)) = &self.snapshot {
            if *k == key {
                return snap.clone();
            }
        }
        let nodes = self.nodes.export(s.nodes_rev(), s.nodes(), |n| &n.id, |n| n.rev, node_js);
        let running_calls =
            self.running_calls.export(s.running_calls_rev(), s.running_calls(), |r| &r.call_id, |r| r.rev, running_js);
        let pending = self.pending.export(s.pending_rev(), s.pending(), |p| &p.key, |p| p.rev, pending_js);
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
                    v if v.is_null() => frozen_array(std::iter::empty()),
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
        let queue = match (&self.queue, s.queue()) {
            (_, None) => JsValue::NULL,
            (Some((rev, obj)), Some(_)) if *rev == s.queue_rev() => obj.clone(),
            (_, Some(items)) => {
                let obj = json_js(items);
                self.queue = Some((s.queue_rev(), obj.clone()));
                obj
            }
        };
        let snap = frozen(&[
            ("sessionId", s.id().into()),
            ("openState", key.state.into()),
            ("openError", open_error),
            ("baseSeq", num(key.base as f64)),
            ("tailSeq", num(key.tail as f64)),
            ("hasMore", key.has_more.into()),
            ("loadingOlder", key.loading_older.into()),
            ("nodes", nodes),
            ("partial", partial),
            ("runningCalls", running_calls),
            ("pending", pending),
            ("planMode", plan),
            ("running", key.running.into()),
            ("promptError", prompt_error),
            ("lastAgentError", opt_str(s.last_agent_error())),
            ("projections", projections),
            ("interaction", interaction),
            ("title", opt_str(s.title().as_deref())),
            ("queue", queue),
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

/// What a connection snapshot shows: state, generation, attempt, retryAt bits, lastError, transport.
type ConnKey = (&'static str, u64, u32, Option<u64>, Option<String>, Option<Carrier>);

/// The cached connection snapshot.
#[derive(Default)]
pub struct ConnExport {
    snapshot: Option<(ConnKey, JsValue)>,
}

impl ConnExport {
    pub fn snapshot(&mut self, c: &Connection, transport: Option<Carrier>) -> JsValue {
        let key = (
            c.state().as_str(),
            c.generation(),
            c.attempt(),
            c.retry_at().map(f64::to_bits),
            c.last_error().map(ToString::to_string),
            transport,
        );
        if let Some((k, snap)) = &self.snapshot {
            if *k == key {
                return snap.clone();
            }
        }
        let snap = frozen(&[
            ("state", key.0.into()),
            ("generation", num(key.1 as f64)),
            ("attempt", num(key.2)),
            ("retryAt", c.retry_at().map_or(JsValue::NULL, JsValue::from_f64)),
            ("lastError", opt_str(c.last_error().map(ToString::to_string).as_deref())),
            ("transport", opt_str(transport.map(Carrier::as_str))),
        ]);
        self.snapshot = Some((key, snap.clone()));
        snap
    }
}

/// An `RpcResult` as its wire object (not frozen-sensitive: a fresh object per call).
pub fn result_js(r: &Result<Json, RpcError>) -> JsValue {
    json_js(&Json::from_text(&result_text(r)).unwrap_or_default())
}
