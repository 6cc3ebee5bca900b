//! Incremental fold of session events into conversation nodes.
//!
//! Appending an event is O(1) amortised in the window size: nodes are pushed, a tool result
//! finds its call through an index, and nothing already folded is revisited. Only a
//! replacement window (open, resync, repair) or a prepended page re-folds, and then unchanged
//! nodes keep their `Rc` (and so their JS identity).

use super::event_run::EventRun;
use super::nodes::{same_node, Node, NodeKind, Partial, PlanText, RunningToolCall, Stamps, ToolStatus};
use crate::core::wire::{Chunk, ChunkKind, EventBody, EventData, Json, Seq, SessionEvent};
use std::rc::Rc;

/// Which parts of the fold an event touched.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Touched {
    /// The nodes changed.
    pub nodes: bool,
    /// The streaming partial changed.
    pub partial: bool,
    /// The running tool calls changed.
    pub running_calls: bool,
    /// The streaming plan prose changed.
    pub plan_text: bool,
    /// `Some(active)` for a valid `plan/mode` commit.
    pub plan_commit: Option<bool>,
    /// `Some(running)` for a turn start/end.
    pub turn_running: Option<bool>,
}

/// The window's events folded into what the UI renders; appending is O(1) amortised.
#[derive(Debug, Default, Clone)]
pub struct Fold {
    /// The rendered conversation, oldest first.
    pub nodes: Vec<Rc<Node>>,
    /// Changes whenever `nodes` does (export cache key).
    pub nodes_rev: u64,
    /// The streaming assistant text, while a step streams.
    pub partial: Option<Rc<Partial>>,
    /// Tool calls without their result yet.
    pub running: Vec<Rc<RunningToolCall>>,
    /// Changes whenever `running` does (export cache key).
    pub running_rev: u64,
    /// callId -> index into `nodes` of its tool node.
    tool_index: ToolIndex,
    /// Every valid plan commit folded, in seq order: (seq, active). The window's commits
    /// are read here, never by scanning the window's events again.
    pub plan_commits: Vec<(Seq, bool)>,
    /// Whether the last turn folded is open (`None`: no turn boundary folded yet).
    pub turn_open: Option<bool>,
    /// The newest plan-text item, accumulating deltas until its done event.
    pub plan_text: Option<Rc<PlanText>>,
}

impl Fold {
    /// The empty fold of a released session; its revisions are new, so every export of the
    /// old nodes is replaced.
    pub fn released(rev: u64) -> Fold {
        Fold { nodes_rev: rev, running_rev: rev, ..Fold::default() }
    }

    /// The newest valid plan commit folded.
    pub fn newest_plan(&self) -> Option<(Seq, bool)> {
        self.plan_commits.last().copied()
    }

    /// Folds one appended event; says what it touched.
    pub fn apply(&mut self, ev: &SessionEvent, stamps: &mut Stamps) -> Touched {
        let mut t = Touched::default();
        let seq = ev.seq();
        // A chunk the frame reader already read: folded from where it lies (no copy).
        if let EventData::Chunk(c) = &ev.data {
            t.partial = self.chunk(seq, c.turn, c.step, &c.chunk, stamps);
            return t;
        }
        let Some(body) = agent_session_onepass::event_body(ev) else { return t };
        match body {
            EventBody::TurnStart(_) => {
                t.turn_running = Some(true);
                self.turn_open = Some(true);
            }
            EventBody::UserMessage(m) | EventBody::SteeringMessage(m) => {
                let steering = ev.kind == "steering/message";
                let client_id = source_rpc_id(m.source.text());
                let kind = NodeKind::User { content: m.content, source: m.source, steering, client_id };
                self.push(seq, None, kind, stamps);
                t.nodes = true;
            }
            EventBody::ContextMessage(m) => {
                self.push(seq, None, NodeKind::Context { content: m.content, source: m.source }, stamps);
                t.nodes = true;
            }
            EventBody::StepStart(_) | EventBody::StepEnd(_) => {}
            EventBody::AssistantChunk(c) => {
                t.partial = self.chunk(seq, c.turn, c.step, &c.chunk, stamps);
            }
            EventBody::AssistantMessage(m) => {
                if self.partial.take().is_some() {
                    t.partial = true;
                }
                let kind = NodeKind::Assistant { step: m.step, content: m.content, provenance: m.provenance };
                self.push(seq, Some(m.turn), kind, stamps);
                t.nodes = true;
            }
            EventBody::ToolCall(c) => {
                let rev = stamps.next();
                self.running.push(Rc::new(RunningToolCall {
                    call_id: c.call_id.clone(),
                    name: c.name.clone(),
                    turn: c.turn,
                    step: c.step,
                    seq,
                    rev,
                }));
                self.running_rev = stamps.next();
                self.tool_index.insert(c.call_id.clone(), self.nodes.len());
                let kind = NodeKind::Tool {
                    step: c.step,
                    call_id: c.call_id,
                    name: c.name,
                    arguments: c.arguments,
                    status: ToolStatus::Running,
                    result: None,
                    is_error: false,
                };
                self.push(seq, Some(c.turn), kind, stamps);
                t.nodes = true;
                t.running_calls = true;
            }
            EventBody::ToolResult(r) => {
                t.nodes |= self.update_tool(&r.call_id, stamps, |status, result, is_error| {
                    *status = ToolStatus::Completed;
                    *result = Some(r.content);
                    *is_error = r.is_error;
                });
                if self.remove_running(|c| c.call_id == r.call_id, stamps) {
                    t.running_calls = true;
                }
            }
            EventBody::TurnEnd(end) => {
                t.turn_running = Some(false);
                self.turn_open = Some(false);
                let reason = end.reason.kind;
                // A content-bearing partial of this turn is frozen; other turns' are untouched.
                if let Some(p) = self.partial.as_ref().filter(|p| p.turn == end.turn).cloned() {
                    self.partial = None;
                    t.partial = true;
                    if !p.text.is_empty() || !p.reasoning.is_empty() {
                        let kind = NodeKind::Interrupted { step: p.step, text: p.text.clone(), reason: reason.clone() };
                        self.push(p.first_seq, Some(p.turn), kind, stamps);
                        t.nodes = true;
                    }
                }
                // Orphan tool calls of this turn become interrupted.
                let mut orphans: Vec<String> = Vec::new();
                for c in &self.running {
                    if c.turn == end.turn {
                        orphans.push(c.call_id.clone());
                    }
                }
                for call_id in &orphans {
                    t.nodes |= self.update_tool(call_id, stamps, |status, _, _| *status = ToolStatus::Interrupted);
                }
                if self.remove_running(|c| c.turn == end.turn, stamps) {
                    t.running_calls = true;
                }
            }
            EventBody::PlanMode(p) => {
                if self.newest_plan().is_none_or(|(s, _)| seq > s) {
                    self.plan_commits.push((seq, p.active));
                }
                self.push(seq, None, NodeKind::PlanMode { active: p.active }, stamps);
                t.nodes = true;
                t.plan_commit = Some(p.active);
            }
            EventBody::PlanTextDelta(d) => {
                t.plan_text = true;
                let rev = stamps.next();
                match self.plan_text.as_mut().filter(|p| p.item_id == d.body.item_id && !p.done) {
                    Some(p) => {
                        let p = Rc::make_mut(p);
                        p.text.push_str(&d.body.text);
                        p.rev = rev;
                    }
                    None => {
                        let text =
                            PlanText { item_id: d.body.item_id, turn: d.turn, text: d.body.text, done: false, rev };
                        self.plan_text = Some(Rc::new(text));
                    }
                }
            }
            EventBody::PlanTextDone(d) => {
                t.plan_text = true;
                let rev = stamps.next();
                let text = PlanText { item_id: d.body.item_id, turn: d.turn, text: d.body.text, done: true, rev };
                self.plan_text = Some(Rc::new(text));
            }
            EventBody::PlanProposed(p) => {
                self.push(seq, p.turn, NodeKind::ProposedPlan { plan: p.body }, stamps);
                t.nodes = true;
            }
            EventBody::PromptResolved(r) => {
                let kind = NodeKind::Interaction { prompt: Rc::new(r.prompt), answers: r.answers, outcome: r.outcome };
                self.push(seq, None, kind, stamps);
                t.nodes = true;
            }
        }
        t
    }

    fn push(&mut self, seq: Seq, turn: Option<u64>, kind: NodeKind, stamps: &mut Stamps) {
        let rev = stamps.next();
        self.nodes.push(Rc::new(Node { id: format!("s{seq}"), seq, turn, kind, rev }));
        self.nodes_rev = stamps.next();
    }

    /// Replaces the tool node of `call_id` with an edited copy under a new revision (the
    /// old `Rc` stays intact for whoever still holds it). Returns whether the call was found.
    fn update_tool(
        &mut self,
        call_id: &str,
        stamps: &mut Stamps,
        edit: impl FnOnce(&mut ToolStatus, &mut Option<Json>, &mut bool),
    ) -> bool {
        let Some(i) = self.tool_index.get(call_id) else { return false };
        let mut node = (*self.nodes[i]).clone();
        if let NodeKind::Tool { status, result, is_error, .. } = &mut node.kind {
            edit(status, result, is_error);
        }
        node.rev = stamps.next();
        self.nodes[i] = Rc::new(node);
        self.nodes_rev = stamps.next();
        true
    }

    fn remove_running(&mut self, pred: impl Fn(&RunningToolCall) -> bool, stamps: &mut Stamps) -> bool {
        let before = self.running.len();
        self.running.retain(|c| !pred(c));
        let changed = self.running.len() != before;
        if changed {
            self.running_rev = stamps.next();
        }
        changed
    }

    fn chunk(&mut self, seq: Seq, turn: u64, step: u64, chunk: &Chunk, stamps: &mut Stamps) -> bool {
        let (text, reasoning) = match (chunk.kind, chunk.text.as_deref()) {
            (ChunkKind::TextDelta, Some(t)) => (t, ""),
            (ChunkKind::ReasoningDelta, Some(t)) => ("", t),
            _ => ("", ""),
        };
        let same_step = self.partial.as_ref().is_some_and(|p| p.turn == turn && p.step == step);
        if !same_step {
            // A chunk of a new step starts a new partial; an older step's unfinished text
            // would have been finalized by its own message.
            self.partial = Some(Rc::new(Partial {
                turn,
                step,
                text: text.to_string(),
                reasoning: reasoning.to_string(),
                first_seq: seq,
                last_seq: seq,
                rev: stamps.next(),
            }));
            return true;
        }
        if text.is_empty() && reasoning.is_empty() {
            return false;
        }
        // Cannot fail: same_step implies a partial.
        let p = Rc::make_mut(self.partial.as_mut().unwrap());
        p.text.push_str(text);
        p.reasoning.push_str(reasoning);
        p.last_seq = seq;
        p.rev = stamps.next();
        true
    }

    /// Folds a whole window from scratch, then hands back the previous fold's `Rc`s for every
    /// value that came out identical, so React children of unchanged nodes survive.
    pub fn rebuild<'a>(
        events: impl IntoIterator<Item = &'a SessionEvent>,
        previous: &Fold,
        stamps: &mut Stamps,
    ) -> Fold {
        let mut fresh = Fold::default();
        for ev in events {
            fresh.apply(ev, stamps);
        }
        fresh.adopt(previous)
    }

    /// [`Fold::rebuild`]'s second half, not generic (one copy for every kind of event list).
    fn adopt(mut self, previous: &Fold) -> Fold {
        let fresh = &mut self;
        fresh.nodes.reserve(fresh.nodes.len().max(64));
        let old = BySeq::new(&previous.nodes);
        for node in fresh.nodes.iter_mut() {
            if let Some(prev) = old.get(node.seq).filter(|prev| same_node(prev, node)) {
                *node = Rc::clone(prev);
            }
        }
        let all_same = fresh.nodes.len() == previous.nodes.len()
            && fresh.nodes.iter().zip(&previous.nodes).all(|(a, b)| Rc::ptr_eq(a, b));
        if all_same {
            fresh.nodes_rev = previous.nodes_rev;
        }
        if let (Some(a), Some(b)) = (&fresh.partial, &previous.partial) {
            if a.turn == b.turn
                && a.step == b.step
                && a.text == b.text
                && a.reasoning == b.reasoning
                && a.first_seq == b.first_seq
                && a.last_seq == b.last_seq
            {
                fresh.partial = Some(Rc::clone(b));
            }
        }
        if let (Some(a), Some(b)) = (&fresh.plan_text, &previous.plan_text) {
            if a.item_id == b.item_id && a.text == b.text && a.done == b.done && a.turn == b.turn {
                fresh.plan_text = Some(Rc::clone(b));
            }
        }
        let running_same = fresh.running.len() == previous.running.len()
            && fresh.running.iter().zip(&previous.running).all(|(a, b)| a.call_id == b.call_id && a.seq == b.seq);
        if running_same {
            fresh.running = previous.running.clone();
            fresh.running_rev = previous.running_rev;
        }
        self
    }

    /// Prepends an older `page` to a window whose fold, `current`, started from nothing.
    ///
    /// Why: re-folding the whole window for every older page made paging back through a long
    /// session quadratic. The page is folded alone; if it leaves something pending across the
    /// boundary (a partial, a running tool call, open plan prose — the normal shape of one
    /// long agent turn), the fold goes on into the window only until those are settled, at
    /// window event `k`. From there on the window folds the same with or without the page,
    /// so `current`'s nodes made by events `k..` are reused as they are, and its nodes made
    /// before `k` are taken in their latest version (a later result may have updated them).
    /// Only a page whose pending items outlive the whole window, or a page call cut short by
    /// a turn end (a late result could still complete it), re-folds everything.
    pub fn prepend(page: &EventRun, window: &EventRun, current: &Fold, stamps: &mut Stamps) -> Fold {
        let mut head = Fold::default();
        for ev in page {
            head.apply(ev, stamps);
        }
        let page_last = page.last().map_or(-1, SessionEvent::seq);
        let open_item = head.plan_text.as_ref().filter(|p| !p.done).map(|p| p.item_id.clone());
        let mut page_calls: Vec<String> = Vec::with_capacity(head.running.len());
        for c in &head.running {
            page_calls.push(c.call_id.clone());
        }
        let settled = |f: &Fold| {
            f.partial.as_ref().is_none_or(|p| p.first_seq > page_last)
                && f.running.iter().all(|c| c.seq > page_last)
                && open_item.as_ref().is_none_or(|id| f.plan_text.as_ref().is_none_or(|p| p.done || &p.item_id != id))
        };
        let mut k = 0;
        let mut rest = window.iter();
        while !settled(&head) {
            let Some(ev) = rest.next() else {
                return Fold::rebuild(page.iter().chain(window), current, stamps);
            };
            head.apply(ev, stamps);
            k += 1;
        }
        let cut_short = page_calls.iter().any(|id| {
            head.tool_index
                .get(id)
                .is_some_and(|i| matches!(head.nodes[i].kind, NodeKind::Tool { status: ToolStatus::Interrupted, .. }))
        });
        if cut_short {
            return Fold::rebuild(page.iter().chain(window), current, stamps);
        }
        // `current` made its first `made` nodes from window events before `k`.
        let made = if k == 0 { 0 } else { Fold::rebuild(window.iter().take(k), &Fold::default(), stamps).nodes.len() };
        let latest = BySeq::new(&current.nodes[..made]);
        let offset = head.nodes.len();
        let mut nodes = Vec::with_capacity(offset + current.nodes.len() - made);
        for n in head.nodes {
            nodes.push(match latest.get(n.seq) {
                Some(cur) => Rc::clone(cur),
                None => n,
            });
        }
        nodes.extend(current.nodes[made..].iter().cloned());
        // The index of the joined nodes, as folding them one by one would have left it
        // (a later call with a repeated callId wins).
        let mut tool_index = ToolIndex::default();
        for (i, n) in nodes.iter().enumerate() {
            if let NodeKind::Tool { call_id, .. } = &n.kind {
                tool_index.insert(call_id.clone(), i);
            }
        }
        let same =
            nodes.len() == current.nodes.len() && nodes.iter().zip(&current.nodes).all(|(a, b)| Rc::ptr_eq(a, b));
        // The head may have folded into the window while settling: its commits there are
        // `current`'s too.
        let mut plan_commits = Vec::with_capacity(head.plan_commits.len() + current.plan_commits.len());
        for &(s, c) in &head.plan_commits {
            if window.first().is_none_or(|w| s < w.seq()) {
                plan_commits.push((s, c));
            }
        }
        for &commit in &current.plan_commits {
            plan_commits.push(commit);
        }
        Fold {
            nodes_rev: if same { current.nodes_rev } else { stamps.next() },
            nodes,
            partial: current.partial.clone(),
            running: current.running.clone(),
            running_rev: current.running_rev,
            tool_index,
            plan_commits,
            plan_text: current.plan_text.clone().or(head.plan_text),
            turn_open: current.turn_open.or(head.turn_open),
        }
    }
}

/// Nodes by seq (a node's id is `s<seq>`, so a seq names one node), for the identity
/// hand-over of a re-fold. A `Vec` sorted by insertion, not a hash map (KBs of wasm): nodes
/// come almost in seq order, so nearly every insert is a push at the end.
struct BySeq<'a>(Vec<(Seq, &'a Rc<Node>)>);

impl<'a> BySeq<'a> {
    fn new(nodes: &'a [Rc<Node>]) -> Self {
        let mut v: Vec<(Seq, &Rc<Node>)> = Vec::with_capacity(nodes.len());
        for n in nodes {
            match v.binary_search_by_key(&n.seq, |e| e.0) {
                Ok(i) => v[i].1 = n,
                Err(i) => v.insert(i, (n.seq, n)),
            }
        }
        BySeq(v)
    }

    fn get(&self, seq: Seq) -> Option<&'a Rc<Node>> {
        self.0.binary_search_by_key(&seq, |e| e.0).ok().map(|i| self.0[i].1)
    }
}

/// callId -> node index: open addressing with linear probing over FNV-1a hashes, O(1) per
/// tool call and result. Not `std`'s `HashMap`: it and its `RandomState` cost KBs of wasm.
#[derive(Debug, Default, Clone)]
struct ToolIndex {
    /// A power-of-two table (or empty); a slot holding `FREE` as its index is free.
    slots: Vec<(String, usize)>,
    len: usize,
}

const FREE: usize = usize::MAX;

fn fnv1a(s: &str) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    h as usize
}

impl ToolIndex {
    /// The slot holding `key`, or the free slot where it belongs. The table is not empty
    /// and never full (at most half used).
    fn slot(&self, key: &str) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = fnv1a(key) & mask;
        while self.slots[i].1 != FREE && self.slots[i].0 != key {
            i = (i + 1) & mask;
        }
        i
    }

    fn get(&self, key: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        Some(self.slots[self.slot(key)].1).filter(|&i| i != FREE)
    }

    /// Inserts or replaces.
    fn insert(&mut self, key: String, index: usize) {
        if (self.len + 1) * 2 > self.slots.len() {
            let cap = (self.slots.len() * 2).max(16);
            let old = std::mem::replace(&mut self.slots, Vec::with_capacity(cap));
            self.slots.resize_with(cap, || (String::new(), FREE));
            self.len = 0;
            for (k, i) in old {
                if i != FREE {
                    self.insert(k, i);
                }
            }
        }
        let at = self.slot(&key);
        if self.slots[at].1 == FREE {
            self.len += 1;
        }
        self.slots[at] = (key, index);
    }
}

/// `source.rpcId` of a user message, when its source is an object that has one.
pub fn source_rpc_id(source: &str) -> Option<String> {
    // A window scan, not `str::contains` (its searcher costs the package 1.2 KB).
    if !source.as_bytes().windows(5).any(|w| w == b"rpcId") {
        return None;
    }
    crate::core::wire::read::Obj::parse(source).ok()?.opt_str("rpcId").ok()?
}

#[cfg(test)]
mod tests {
    use super::ToolIndex;

    #[test]
    fn the_tool_index_finds_replaces_and_grows() {
        let mut t = ToolIndex::default();
        assert_eq!(t.get("x"), None);
        for i in 0..1000 {
            t.insert(format!("call_{i}"), i);
        }
        t.insert("call_7".into(), 5000);
        t.insert(String::new(), 1);
        assert_eq!(
            (t.get("call_7"), t.get("call_999"), t.get(""), t.get("call_1000")),
            (Some(5000), Some(999), Some(1), None)
        );
        assert_eq!(t.len, 1001);
    }
}
