//! The live session list: seeded by `session.list` once per established connection
//! generation, kept current by host-stream frames (added, removed, status) and mux
//! `session/title` frames, so a UI never polls.
//!
//! Merge rules. A frame received on the current generation is at least as new as a seed
//! answered on it (the seed may have been computed before the frame's change), so for the
//! fields it carries the frame wins; the seed wins over anything older. Removed sessions
//! drop, and a removal on the current generation keeps a stale seed from bringing them
//! back. Titles also carry their event seq: on one generation a lower seq never replaces a
//! higher one (after a store reset seqs restart, but that ends the generation first).
//! Items are ordered by `updatedAt`, newest first (ties keep their order).
//!
//! A host may list 100k sessions and name as many more in frames: an item is found in O(1)
//! (an id index) and its place in O(log n) (a binary search), and moving it is one shift of
//! pointers between its old and new place (none for the newest, where frames put a session).

use crate::core::strindex::{StrIndex, StrMap};
use crate::core::wire::{self, Frame, RpcError, SessionSummary};
use std::cmp::Ordering;
use std::rc::Rc;

/// An item's place in the order: `updatedAt`, then a tie-break that makes it total (seeded
/// items by their place, then ever larger for new ones and ever smaller for moved ones, so
/// ties keep their order as the list always did).
#[derive(Debug, Clone, Copy)]
struct Place {
    at: f64,
    tie: i64,
}

impl Place {
    fn cmp(self, o: Place) -> Ordering {
        self.at.total_cmp(&o.at).then(self.tie.cmp(&o.tie))
    }
}

/// Ties of seeded items are below this; new and moved items count from it.
const TIE_BASE: i64 = 1 << 40;

/// One session of the live list, as the UI sees it (shared by `Rc`, so an unchanged item
/// exports as the same object).
#[derive(Debug, Clone, PartialEq)]
pub struct ListItem {
    /// The session.
    pub session_id: String,
    /// Its latest title, if the host gave one.
    pub title: Option<String>,
    /// Whether a turn is open.
    pub running: bool,
    /// The open turn waits on the user (reference-host extension; false when absent).
    pub waiting: bool,
    /// When it last changed (epoch milliseconds): the list's order.
    pub updated_at: f64,
    /// The session it was forked or spawned from, if any.
    pub parent_session_id: Option<String>,
    /// Its working directory, if the host gave one.
    pub cwd: Option<String>,
    /// `'subagent'` for a child a turn spawned (the 2026-08 host), as the host wrote it.
    pub origin: Option<String>,
    /// Bumped whenever the item changes (export identity).
    pub rev: u64,
    /// `(generation, eventSeq)` of the title frame that set `title`, if one did.
    title_from: Option<(u64, u64)>,
    /// Generation of the last status frame, and of the last frame of any kind.
    status_gen: Option<u64>,
    touched_gen: Option<u64>,
}

impl ListItem {
    /// Whether the exported fields are equal (bookkeeping aside).
    fn same_view(&self, o: &ListItem) -> bool {
        (&self.session_id, &self.title, self.running, self.waiting, &self.parent_session_id, &self.cwd, &self.origin)
            == (&o.session_id, &o.title, o.running, o.waiting, &o.parent_session_id, &o.cwd, &o.origin)
            && self.updated_at.total_cmp(&o.updated_at).is_eq()
    }

    fn new(session_id: &str) -> ListItem {
        ListItem {
            session_id: session_id.to_string(),
            title: None,
            running: false,
            waiting: false,
            updated_at: 0.0,
            parent_session_id: None,
            cwd: None,
            origin: None,
            rev: 0,
            title_from: None,
            status_gen: None,
            touched_gen: None,
        }
    }
}

/// Where the list's seed stands.
#[derive(Debug, Clone, PartialEq)]
pub enum ListState {
    /// No seed has answered yet.
    Loading,
    /// The last seed answered; items are it merged with the frames since.
    Ready,
    /// The last seed failed; items are what was known before.
    Error(RpcError),
}

impl ListState {
    /// The state's name for JS (`loading`, `ready`, `error`).
    pub fn as_str(&self) -> &'static str {
        match self {
            ListState::Loading => "loading",
            ListState::Ready => "ready",
            ListState::Error(_) => "error",
        }
    }
}

/// The live session list, newest first, with the bookkeeping that merges seeds and frames.
#[derive(Debug)]
pub struct SessionList {
    /// Newest first, as [`SessionList::items`] gives them. A host that announces its sessions
    /// sends them newest first, each older than all before it: each is then a push at the
    /// end (oldest first, each was an insert at the front, and a 100k flood was quadratic).
    items: Vec<Rc<ListItem>>,
    /// Every item's [`Place`], by id. Invariant: `items` is sorted by it, descending, one entry
    /// per item.
    places: StrMap<Place>,
    ties: i64,
    state: ListState,
    /// Bumped on every change of the list (items, order or state).
    pub rev: u64,
    gen: u64,
    /// Sessions removed on the current generation.
    removed: StrIndex,
}

impl Default for SessionList {
    fn default() -> Self {
        SessionList {
            items: Vec::new(),
            places: StrMap::default(),
            ties: 0,
            state: ListState::Loading,
            rev: 0,
            gen: 0,
            removed: StrIndex::default(),
        }
    }
}

impl SessionList {
    /// Newest first.
    pub fn items(&self) -> impl DoubleEndedIterator<Item = &Rc<ListItem>> + ExactSizeIterator {
        self.items.iter()
    }

    fn place_of(&self, item: &ListItem) -> Place {
        self.places.get(&item.session_id).copied().unwrap_or(Place { at: item.updated_at, tie: 0 })
    }

    /// Where `id` is in `items`: O(1) to its place, O(log n) to its index.
    fn position(&self, id: &str) -> Option<usize> {
        self.search(*self.places.get(id)?).ok()
    }

    /// Where `place` is in `items` (`Err`: where it goes). Places are unique; one search for
    /// finding and inserting.
    fn search(&self, place: Place) -> Result<usize, usize> {
        self.items.binary_search_by(|i| place.cmp(self.place_of(i)))
    }

    /// Puts `item` at `place` (not in `items`).
    fn put(&mut self, item: Rc<ListItem>, place: Place) {
        let at = self.search(place).unwrap_or_else(|at| at);
        self.places.insert(&item.session_id, place);
        self.items.insert(at, item);
    }

    fn next_tie(&mut self) -> i64 {
        self.ties += 1;
        TIE_BASE + self.ties
    }

    /// Places every item by its index (a seed replaced them): the last, the oldest, at 0.
    fn reindex(&mut self) {
        self.places.clear();
        let n = self.items.len() as i64;
        for (i, item) in self.items.iter().enumerate() {
            self.places.insert(&item.session_id, Place { at: item.updated_at, tie: n - 1 - i as i64 });
        }
    }

    /// Where the seed stands.
    pub fn state(&self) -> &ListState {
        &self.state
    }

    /// Connection generation `gen` starts: frames from now on belong to it.
    pub fn begin(&mut self, gen: u64) {
        self.gen = gen;
        self.removed.clear();
    }

    fn bump(&mut self) -> u64 {
        self.rev += 1;
        self.rev
    }

    /// Applies `f` to the item for `id` (created when `create`); re-sorts on change.
    /// Generic only in a thin shim: the work is in [`SessionList::update_dyn`], one copy for
    /// every kind of frame.
    fn update(&mut self, id: &str, create: bool, f: impl FnOnce(&mut ListItem, u64)) -> bool {
        let mut f = Some(f);
        self.update_dyn(id, create, &mut |item, gen| {
            if let Some(f) = f.take() {
                f(item, gen)
            }
        })
    }

    #[inline(never)]
    fn update_dyn(&mut self, id: &str, create: bool, f: &mut dyn FnMut(&mut ListItem, u64)) -> bool {
        let pos = self.position(id);
        let mut item = match pos {
            Some(p) => (*self.items[p]).clone(),
            None if create && !self.removed.contains(id) => ListItem::new(id),
            None => return false,
        };
        f(&mut item, self.gen);
        item.touched_gen = Some(self.gen);
        let changed = pos.is_none_or(|p| !item.same_view(&self.items[p]));
        if changed {
            item.rev = self.bump();
        }
        let item = Rc::new(item);
        match pos {
            // `updatedAt` only grows: an item that moves goes up, behind the ties there.
            Some(p) if item.updated_at.total_cmp(&self.items[p].updated_at).is_gt() => {
                self.items.remove(p);
                let place = Place { at: item.updated_at, tie: -self.next_tie() };
                self.put(item, place);
            }
            Some(p) => self.items[p] = item,
            // A new session goes first among its ties.
            None => {
                let place = Place { at: item.updated_at, tie: self.next_tie() };
                self.put(item, place);
            }
        }
        changed
    }

    /// A stream frame of the current generation. Returns whether the list changed.
    pub fn on_frame(&mut self, frame: &Frame) -> bool {
        match frame {
            Frame::SessionAdded(f) => self.update(&f.session_id, true, |i, _| {
                i.parent_session_id = f.parent_session_id.clone().or(i.parent_session_id.take());
                i.cwd = f.cwd.clone().or(i.cwd.take());
                i.origin = f.origin.clone().or(i.origin.take());
                i.updated_at = i.updated_at.max(f.updated_at.unwrap_or(0.0));
            }),
            Frame::SessionRemoved(f) => {
                let at = self.position(&f.session_id);
                if let Some(p) = at {
                    self.items.remove(p);
                    self.places.remove(&f.session_id);
                    self.bump();
                }
                self.removed.add(&f.session_id);
                at.is_some()
            }
            Frame::SessionStatus(f) => self.update(&f.session_id, true, |i, gen| {
                i.running = f.running;
                i.waiting = f.running && f.waiting.unwrap_or(false);
                i.updated_at = i.updated_at.max(f.updated_at.unwrap_or(0.0));
                i.status_gen = Some(gen);
            }),
            Frame::Title(f) => self.update(&f.session_id, true, |i, gen| {
                if matches!(i.title_from, Some((g, seq)) if g == gen && seq > f.event_seq) {
                    return;
                }
                i.title = Some(f.title.clone());
                i.title_from = Some((gen, f.event_seq));
                i.updated_at = i.updated_at.max(f.updated_at);
            }),
            // The 2026-08 host keeps the title as a projection (a string, or null).
            Frame::Projection(p) if p.key == wire::interaction::PROJ_TITLE => {
                let Some(title) = p.value.as_string() else { return false };
                let at = u64::try_from(p.seq).unwrap_or(0);
                self.update(&p.session_id, true, |i, gen| {
                    if matches!(i.title_from, Some((g, seq)) if g == gen && seq > at) {
                        return;
                    }
                    i.title = Some(title);
                    i.title_from = Some((gen, at));
                })
            }
            _ => false,
        }
    }

    /// The `session.list` answer of generation `gen` (ignored when a newer one began).
    pub fn seed(&mut self, gen: u64, result: Result<Vec<SessionSummary>, RpcError>) -> bool {
        if gen != self.gen {
            return false;
        }
        let seeded = match result {
            Err(e) => {
                self.state = ListState::Error(e);
                self.bump();
                return true;
            }
            Ok(s) => s,
        };
        let mut next: Vec<Rc<ListItem>> = Vec::with_capacity(seeded.len());
        // The ids in `next`: a duplicate and an old item are found in O(1) and O(log n), so a
        // 100k-session seed is not quadratic.
        let mut taken = StrIndex::default();
        for s in seeded {
            if self.removed.contains(&s.session_id) || !taken.add(&s.session_id).1 {
                continue;
            }
            let old = self.position(&s.session_id).map(|p| self.items[p].clone());
            let mut item = old.as_ref().map_or_else(|| ListItem::new(&s.session_id), |o| (**o).clone());
            // A seed never erases a known title it lacks (the 2026-08 host puts titles where an
            // older reader saw none; a title, once set, is never unset by a host).
            if let Some(title) = s.title_text().filter(|_| item.title_from.is_none_or(|(g, _)| g != gen)) {
                item.title = Some(title);
                item.title_from = None;
            }
            if item.status_gen != Some(gen) {
                item.running = s.running;
                item.waiting = s.running && s.waiting.unwrap_or(false);
            }
            item.updated_at = item.updated_at.max(s.updated_at);
            item.parent_session_id = s.parent_session_id.clone();
            item.cwd = s.cwd.clone();
            item.origin = s.origin.clone();
            if !old.is_some_and(|o| o.same_view(&item)) {
                item.rev = self.bump();
            }
            next.push(Rc::new(item));
        }
        // Sessions the seed does not know stay only when a frame of this generation named
        // them (added after the list was computed).
        for old in &self.items {
            if old.touched_gen == Some(gen) && taken.add(&old.session_id).1 {
                next.push(old.clone());
            }
        }
        sort_newest_first(&mut next);
        let same = next.len() == self.items.len()
            && next.iter().zip(&self.items).all(|(a, b)| a.rev == b.rev && a.session_id == b.session_id);
        self.items = next;
        self.reindex();
        if same && self.state == ListState::Ready {
            return false;
        }
        self.state = ListState::Ready;
        self.bump();
        true
    }
}

/// Stable insertion sort, newest first: the list is nearly sorted whenever this runs (a seed
/// arrives ordered, a frame moves one item), and it is far smaller code than `sort_by`.
fn sort_newest_first(items: &mut [Rc<ListItem>]) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && items[j - 1].updated_at < items[j].updated_at {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::wire::{ErrorCode, Json, SessionAddedFrame, SessionIdFrame, SessionStatusFrame, TitleFrame};

    fn summary(id: &str, updated_at: f64, running: bool, title: Option<&str>) -> SessionSummary {
        SessionSummary {
            session_id: id.into(),
            updated_at,
            running,
            parent_session_id: None,
            cwd: Some("/w".into()),
            origin: None,
            title: title.map(Into::into),
            waiting: None,
            projections: None,
        }
    }
    fn status(id: &str, running: bool, waiting: bool, at: f64) -> Frame {
        Frame::SessionStatus(SessionStatusFrame {
            session_id: id.into(),
            running,
            waiting: Some(waiting),
            updated_at: Some(at),
        })
    }
    fn title(id: &str, t: &str, seq: u64, at: f64) -> Frame {
        Frame::Title(TitleFrame { session_id: id.into(), title: t.into(), event_seq: seq, updated_at: at })
    }
    fn added(id: &str, at: f64) -> Frame {
        Frame::SessionAdded(SessionAddedFrame { session_id: id.into(), updated_at: Some(at), ..Default::default() })
    }
    fn removed(id: &str) -> Frame {
        Frame::SessionRemoved(SessionIdFrame { session_id: id.into() })
    }
    fn ids(l: &SessionList) -> Vec<&str> {
        l.items().map(|i| i.session_id.as_str()).collect()
    }
    fn get<'a>(l: &'a SessionList, id: &str) -> &'a Rc<ListItem> {
        l.items().find(|i| i.session_id == id).expect(id)
    }

    #[test]
    fn a_seed_then_live_frames_keep_the_list_current_and_ordered() {
        let mut l = SessionList::default();
        l.begin(1);
        assert_eq!(l.state(), &ListState::Loading);
        assert!(l.seed(1, Ok(vec![summary("b", 20.0, false, Some("B")), summary("a", 10.0, false, None)])));
        assert_eq!((l.state().as_str(), ids(&l)), ("ready", vec!["b", "a"]));
        let a_before = get(&l, "a").clone();
        assert!(l.on_frame(&added("c", 30.0)));
        assert_eq!(ids(&l), ["c", "b", "a"], "a new session goes first");
        assert!(Rc::ptr_eq(&a_before, get(&l, "a")), "an unchanged item keeps its identity");
        assert!(l.on_frame(&status("a", true, false, 40.0)));
        assert_eq!(ids(&l), ["a", "c", "b"], "activity moves a session up");
        assert!(get(&l, "a").running && !get(&l, "a").waiting);
        assert!(l.on_frame(&title("c", "Fix the bug", 3, 35.0)));
        assert_eq!(get(&l, "c").title.as_deref(), Some("Fix the bug"));
        let rev = l.rev;
        assert!(!l.on_frame(&status("a", true, false, 40.0)), "a repeated status changes nothing");
        assert_eq!(l.rev, rev);
        assert!(l.on_frame(&status("a", true, true, 41.0)));
        assert!(get(&l, "a").waiting, "waiting on the user");
        assert!(l.on_frame(&status("a", false, true, 42.0)));
        assert!(!get(&l, "a").waiting, "an idle session never reads as waiting");
        assert!(l.on_frame(&removed("b")));
        assert_eq!(ids(&l), ["a", "c"]);
        assert!(!l.on_frame(&removed("b")), "removing twice is no change");
        assert!(!l.on_frame(&Frame::SessionRemoved(SessionIdFrame { session_id: "zz".into() })));
    }

    #[test]
    fn a_subagent_child_shows_its_origin_from_its_frame_and_from_the_seed() {
        let mut l = SessionList::default();
        l.begin(1);
        let child = SummaryOrigin { id: "child", parent: "p", origin: "subagent" };
        assert!(l.seed(1, Ok(vec![summary("p", 10.0, false, None), child.summary(5.0)])));
        assert_eq!(get(&l, "child").origin.as_deref(), Some("subagent"));
        assert_eq!(get(&l, "p").origin, None, "a top-level session has none");
        assert!(l.on_frame(&child.added("live", 20.0)), "a child spawned live");
        let live = get(&l, "live");
        assert_eq!((live.origin.as_deref(), live.parent_session_id.as_deref()), (Some("subagent"), Some("p")));
        // A later frame without one (a status) keeps it.
        assert!(l.on_frame(&status("live", true, false, 21.0)));
        assert_eq!(get(&l, "live").origin.as_deref(), Some("subagent"));
    }

    struct SummaryOrigin {
        id: &'static str,
        parent: &'static str,
        origin: &'static str,
    }
    impl SummaryOrigin {
        fn summary(&self, at: f64) -> SessionSummary {
            SessionSummary {
                parent_session_id: Some(self.parent.into()),
                origin: Some(self.origin.into()),
                ..summary(self.id, at, false, None)
            }
        }
        fn added(&self, id: &str, at: f64) -> Frame {
            Frame::SessionAdded(SessionAddedFrame {
                session_id: id.into(),
                parent_session_id: Some(self.parent.into()),
                origin: Some(self.origin.into()),
                updated_at: Some(at),
                ..Default::default()
            })
        }
    }

    #[test]
    fn frames_of_the_current_generation_win_over_its_seed() {
        let mut l = SessionList::default();
        l.begin(1);
        // Frames arrive while the seed is in flight; the seed was computed before them.
        l.on_frame(&status("a", true, true, 50.0));
        l.on_frame(&title("a", "Live title", 7, 45.0));
        l.on_frame(&added("new", 60.0));
        l.on_frame(&removed("gone"));
        l.seed(
            1,
            Ok(vec![
                summary("a", 40.0, false, Some("Old title")),
                summary("gone", 30.0, false, None),
                summary("b", 20.0, true, Some("B")),
            ]),
        );
        assert_eq!(ids(&l), ["new", "a", "b"], "the removal is not undone and the added session stays");
        let a = get(&l, "a");
        assert_eq!((a.title.as_deref(), a.running, a.waiting, a.updated_at), (Some("Live title"), true, true, 50.0));
        assert_eq!(get(&l, "b").title.as_deref(), Some("B"), "the seed fills what no frame said");
        assert_eq!(get(&l, "a").cwd.as_deref(), Some("/w"));
        // A lower title seq on the same generation is older: ignored.
        assert!(!l.on_frame(&title("a", "Stale", 6, 1.0)));
        assert_eq!(get(&l, "a").title.as_deref(), Some("Live title"));
    }

    #[test]
    fn a_reconnect_reseeds_and_drops_what_the_host_forgot() {
        let mut l = SessionList::default();
        l.begin(1);
        l.seed(1, Ok(vec![summary("a", 10.0, true, None), summary("b", 5.0, false, None)]));
        l.on_frame(&title("a", "Titled", 9, 11.0));
        l.begin(2);
        assert!(!l.seed(1, Ok(vec![])), "a seed of an older generation is ignored");
        assert_eq!(ids(&l), ["a", "b"]);
        // The host was reset keeping sessions: "a" lost its title, "b" is gone, seqs restart.
        l.seed(2, Ok(vec![summary("a", 12.0, false, None)]));
        assert_eq!(ids(&l), ["a"]);
        let a = get(&l, "a");
        assert_eq!(
            (a.title.as_deref(), a.running),
            (Some("Titled"), false),
            "the seed's status wins; its missing title erases nothing"
        );
        assert!(l.on_frame(&title("a", "Again", 2, 13.0)), "a new generation's title applies whatever its seq");
        assert_eq!(get(&l, "a").title.as_deref(), Some("Again"));
        l.begin(3);
        l.seed(3, Ok(vec![summary("a", 14.0, false, Some("Renamed"))]));
        assert_eq!(get(&l, "a").title.as_deref(), Some("Renamed"), "a seed's own title beats an older generation's");
    }

    /// The 2026-08 host lists titles only in `projections.values.title`; they survive a
    /// reconnect and a seed without them (capture 04's `session.list` item).
    #[test]
    fn titles_of_a_2026_08_list_come_from_the_projection_block_and_survive_a_reseed() {
        let item: SessionSummary = wire::read::read(
            r#"{"sessionId":"a","updatedAt":1796042828108,"running":false,"blank":false,"agentPreset":"standard","projections":{"asOfSeq":87,"values":{"title":"Hello world plan","goal":null}}}"#,
        )
        .unwrap();
        let mut l = SessionList::default();
        l.begin(1);
        l.seed(1, Ok(vec![item.clone(), summary("b", 1.0, false, None)]));
        assert_eq!(get(&l, "a").title.as_deref(), Some("Hello world plan"));
        l.on_frame(&title("b", "Live", 4, 2.0));
        l.begin(2);
        l.seed(2, Ok(vec![item, summary("b", 2.0, false, None)]));
        assert_eq!(get(&l, "a").title.as_deref(), Some("Hello world plan"));
        assert_eq!(get(&l, "b").title.as_deref(), Some("Live"), "a title shown live stays after a reconnect");
    }

    /// The 2026-08 host sends no `session/title`; its `title` projection names the session.
    #[test]
    fn the_title_projection_of_a_2026_08_host_names_a_session() {
        let projection = |id: &str, value: serde_json::Value, seq: i64| {
            Frame::Projection(wire::ProjectionFrame {
                session_id: id.into(),
                key: "title".into(),
                value: Json::from_value(&value),
                seq,
            })
        };
        let mut l = SessionList::default();
        l.begin(1);
        l.seed(1, Ok(vec![summary("a", 10.0, false, None)]));
        assert!(!l.on_frame(&projection("a", serde_json::Value::Null, 2)), "null: still untitled");
        assert!(l.on_frame(&projection("a", serde_json::json!("Plan a hello world script."), 12)));
        assert!(l.on_frame(&projection("a", serde_json::json!("Hello world plan"), 21)));
        assert!(!l.on_frame(&projection("a", serde_json::json!("Older"), 12)), "an older one does not win");
        assert!(!l.on_frame(&projection("a", serde_json::json!(7), 30)), "not a string: ignored");
        assert_eq!(get(&l, "a").title.as_deref(), Some("Hello world plan"));
    }

    /// A 100k-session seed repeating every id once, over a list that already holds them and
    /// a frame-named session the seed lacks: duplicates drop, old items are found through the
    /// index (a scan per item was quadratic) and the frame's session stays.
    #[test]
    fn a_100k_session_seed_with_repeats_merges_through_the_index() {
        let n = 100_000;
        let seed = |l: &mut SessionList, gen| {
            let items = (0..2 * n).map(|i| summary(&format!("s{}", i % n), (n - i % n) as f64, false, None));
            l.seed(gen, Ok(items.collect()))
        };
        let mut l = SessionList::default();
        l.begin(1);
        assert!(seed(&mut l, 1));
        l.begin(2);
        l.on_frame(&added("live", 0.5));
        let s7 = get(&l, "s7").clone();
        assert!(!seed(&mut l, 2), "the same sessions (and the live one kept) are no change");
        assert_eq!(l.items().len(), n + 1);
        assert_eq!(ids(&l)[..2], ["s0", "s1"]);
        assert_eq!(ids(&l)[n], "live", "named by a frame of this generation, older than all");
        assert_eq!(get(&l, "s7").rev, s7.rev, "an unchanged old item keeps its rev");
    }

    #[test]
    fn a_failed_seed_keeps_the_items_and_the_next_one_recovers() {
        let mut l = SessionList::default();
        l.begin(1);
        l.seed(1, Ok(vec![summary("a", 1.0, false, None)]));
        l.begin(2);
        let err = RpcError::with_details(ErrorCode::Internal, "session.list: down", Json::empty_object());
        assert!(l.seed(2, Err(err.clone())));
        assert_eq!((l.state(), ids(&l)), (&ListState::Error(err), vec!["a"]));
        l.begin(3);
        let item = get(&l, "a").clone();
        assert!(l.seed(3, Ok(vec![summary("a", 1.0, false, None)])));
        assert_eq!(l.state(), &ListState::Ready);
        assert_eq!(item.rev, get(&l, "a").rev, "an unchanged item keeps its rev (and so its exported object)");
        let rev = l.rev;
        l.begin(4);
        assert!(!l.seed(4, Ok(vec![summary("a", 1.0, false, None)])), "an identical reseed is no change");
        assert_eq!(l.rev, rev);
    }
}
