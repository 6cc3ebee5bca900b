//! The host-level router: the registry of resident sessions, frame routing by `sessionId`,
//! connection-loss fan-out and the generation resync rules (API.md):
//!
//! > A session opened on an established connection is not resynced by it; every later
//! > generation resyncs every session that is not cold (and re-queries plan state).
//!
//! A session counts as "opened on" the connection generation that was live (in flight or
//! established) when `open()` moved it out of `cold`/`error`. When that generation becomes
//! established, the session is left alone; every generation established after it resyncs
//! the session (unless it is cold).

use super::retention::{decide, Retention, Watch, WatchOrder};
use crate::core::session::{OpId, OpenState, Session};
use crate::core::strindex::StrMap;
use crate::core::time::Instant;
use crate::core::vecmap::VecMap;
use crate::core::wire::{Frame, InboundFrame};

/// Most interaction frames held for a session that is not resident yet.
pub const MAX_STASHED: usize = 256;
/// Most sessions frames are held for: a host naming 100k unknown ids holds at most this many.
pub const MAX_STASHED_IDS: usize = 1024;
/// Most bytes (of frame text) held for all of them together.
pub const MAX_STASH_BYTES: usize = 4 << 20;

/// Interaction and status frames for sessions not resident yet, with their text sizes.
/// Invariant: at most [`MAX_STASHED_IDS`] ids, [`MAX_STASHED`] frames per id and
/// [`MAX_STASH_BYTES`] in all; every operation is O(1) in the number of ids.
#[derive(Debug, Default)]
struct Stash {
    by_id: StrMap<Vec<(InboundFrame, usize)>>,
    bytes: usize,
}

impl Stash {
    /// Holds `frame` for `id`; `false` when a bound refused it.
    fn hold(&mut self, id: &str, frame: InboundFrame, bytes: usize) -> bool {
        let status = matches!(frame.frame, Frame::SessionStatus(_));
        if !self.by_id.contains(id) && self.by_id.len() >= MAX_STASHED_IDS {
            return false;
        }
        let list = self.by_id.get_or_insert_with(id, Vec::new);
        if status {
            // Only the newest status matters.
            self.bytes -= drop_where(list, &|f| matches!(f.frame, Frame::SessionStatus(_)));
        }
        let fits = list.len() < MAX_STASHED && self.bytes + bytes <= MAX_STASH_BYTES;
        if fits {
            list.push((frame, bytes));
            self.bytes += bytes;
        } else if list.is_empty() {
            self.by_id.remove(id);
        }
        fits
    }

    /// Drops the frames of `id` that `gone` matches.
    fn forget(&mut self, id: &str, gone: &dyn Fn(&InboundFrame) -> bool) {
        let Some(list) = self.by_id.get_mut(id) else { return };
        self.bytes -= drop_where(list, gone);
        if list.is_empty() {
            self.by_id.remove(id);
        }
    }

    /// Takes the frames held for `id` (with their sizes).
    fn take(&mut self, id: &str) -> Vec<(InboundFrame, usize)> {
        let list = self.by_id.remove(id).unwrap_or_default();
        self.bytes -= list.iter().map(|f| f.1).sum::<usize>();
        list
    }

    fn clear(&mut self) {
        self.by_id.clear();
        self.bytes = 0;
    }
}

/// Drops the frames `gone` matches from `list`; returns their bytes. One copy of `retain`
/// for every kind of removal.
fn drop_where(list: &mut Vec<(InboundFrame, usize)>, gone: &dyn Fn(&InboundFrame) -> bool) -> usize {
    let mut freed = 0;
    list.retain(|f| {
        let drop = gone(&f.0);
        freed += if drop { f.1 } else { 0 };
        !drop
    });
    freed
}

#[derive(Debug)]
struct Entry {
    session: Session,
    /// The connection generation live when the session was last opened from cold/error.
    opened_on: Option<u64>,
    watch: Watch,
}

impl Entry {
    /// Someone watches the session now: it is no longer counted as unwatched, and one that
    /// missed a generation resyncs if a generation is established (`live`).
    fn watched(&mut self, live: bool) {
        self.watch.unwatched = None;
        if self.watch.missed && live {
            self.watch.missed = false;
            self.session.resync();
        }
    }
}

/// The resident sessions by id, with the frames held for sessions not resident yet; routes
/// each stream frame to the session it names.
#[derive(Debug, Default)]
pub struct Router {
    sessions: VecMap<String, Entry>,
    /// Interaction and status frames for sessions not resident yet, replayed on creation
    /// (the host replays pending questions only on a mux open).
    stash: Stash,
    /// Frames that named no resident session and were not stashed.
    pub unrouted: u64,
    order: WatchOrder,
}

impl Router {
    /// An empty router.
    pub fn new() -> Self {
        Router::default()
    }

    /// Sessions frames are held for, and the bytes held (diagnostics).
    pub fn stashed(&self) -> (usize, usize) {
        (self.stash.by_id.len(), self.stash.bytes)
    }

    /// Whether `id` is resident.
    pub fn contains(&self, id: &str) -> bool {
        self.sessions.contains_key(id)
    }

    /// The resident sessions' ids.
    pub fn ids(&self) -> Vec<String> {
        self.sessions.keys().cloned().collect()
    }

    /// How many sessions are resident.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session is resident.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// The resident session for `id`.
    pub fn get(&self, id: &str) -> Option<&Session> {
        self.sessions.get(id).map(|e| &e.session)
    }

    /// The resident session for `id`, to drive it.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Session> {
        self.sessions.get_mut(id).map(|e| &mut e.session)
    }

    /// Every resident session with its id.
    pub fn sessions_mut_ref(&self) -> impl Iterator<Item = (&String, &Session)> {
        self.sessions.iter().map(|(k, e)| (k, &e.session))
    }

    /// Every resident session with its id, to drive them all (a connection change fans out).
    pub fn sessions_mut(&mut self) -> impl Iterator<Item = (&String, &mut Session)> {
        self.sessions.iter_mut().map(|(k, e)| (k, &mut e.session))
    }

    /// The resident session for `id` (created cold on first use; the same one afterwards).
    /// Returns whether it was created now.
    pub fn ensure(&mut self, id: &str) -> bool {
        if self.sessions.contains_key(id) {
            return false;
        }
        let mut session = Session::new(id);
        for (frame, _) in self.stash.take(id) {
            session.on_frame(frame);
        }
        self.sessions.insert(id.to_string(), Entry { session, opened_on: None, watch: Watch::default() });
        true
    }

    /// `open()` on session `id` while connection generation `live_gen` is live (`None` while
    /// no generation runs).
    pub fn open(&mut self, id: &str, live_gen: Option<u64>) -> OpId {
        self.ensure(id);
        // Cannot fail: the session was ensured above.
        let entry = self.sessions.get_mut(id).unwrap();
        if matches!(entry.session.open_state(), OpenState::Cold | OpenState::Error) {
            entry.opened_on = live_gen;
        }
        entry.session.open()
    }

    /// Which generation the session was opened on (for tests and diagnostics).
    pub fn opened_on(&self, id: &str) -> Option<u64> {
        self.sessions.get(id).and_then(|e| e.opened_on)
    }

    /// Routes one decoded frame (`bytes`: the length of its text, for the stash's bound).
    /// Returns whether a resident session took it.
    pub fn on_frame(&mut self, inbound: InboundFrame, bytes: usize) -> bool {
        let Some(id) = inbound.frame.session_id() else { return false };
        if let Some(entry) = self.sessions.get_mut(id) {
            entry.session.on_frame(inbound);
            return true;
        }
        let id = id.to_string();
        match &inbound.frame {
            Frame::ApprovalRequested(_) | Frame::QuestionRequested(_) | Frame::SessionStatus(_) => {
                if !self.stash.hold(&id, inbound, bytes) {
                    self.unrouted += 1;
                }
            }
            Frame::ApprovalResolved(r) => self
                .stash
                .forget(&id, &|f| matches!(&f.frame, Frame::ApprovalRequested(a) if a.approval_id == r.approval_id)),
            Frame::QuestionResolved(r) => self
                .stash
                .forget(&id, &|f| matches!(f.frame, Frame::QuestionRequested(_)) && f.rpc_id == r.question_rpc_id),
            Frame::SessionRemoved(_) => self.stash.forget(&id, &|_| true),
            _ => self.unrouted += 1,
        }
        false
    }

    /// The connection generation ended: every session's connection is lost.
    pub fn connection_lost(&mut self) {
        for entry in self.sessions.values_mut() {
            entry.session.connection_lost();
        }
    }

    /// Generation `gen` is established: resync every watched session that is not cold,
    /// except those opened on `gen` itself; an unwatched one is marked as having missed the
    /// generation (it resyncs when watched again). `busy` names the sessions with operations
    /// in flight. Returns the ids resynced.
    pub fn established(&mut self, gen: u64, busy: &[String]) -> Vec<String> {
        let mut resynced = Vec::new();
        for (id, entry) in self.sessions.iter_mut() {
            if entry.session.open_state() == OpenState::Cold || entry.opened_on == Some(gen) {
                continue;
            }
            if !(entry.watch.listeners || busy.contains(id)) {
                entry.watch.missed = true;
                continue;
            }
            entry.watch.missed = false;
            entry.session.resync();
            resynced.push(id.clone());
        }
        resynced
    }

    /// The shell's listeners for `id` went from none to some (`true`) or back (`false`).
    pub fn set_listeners(&mut self, id: &str, listeners: bool) {
        if let Some(e) = self.sessions.get_mut(id) {
            e.watch.listeners = listeners;
        }
    }

    /// `id` is being watched now (an operation starts, or a listener came): a session that
    /// missed a generation resyncs, if a generation is established (`live`).
    pub fn watched(&mut self, id: &str, live: bool) {
        if let Some(e) = self.sessions.get_mut(id) {
            e.watched(live);
        }
    }

    /// `Session.resync()` on `id`: it also answers a generation it missed.
    pub fn resync(&mut self, id: &str) {
        if let Some(e) = self.sessions.get_mut(id) {
            e.watch.missed = false;
            e.session.resync();
        }
    }

    /// What a session's watchers are (tests and diagnostics).
    pub fn watch(&self, id: &str) -> Option<Watch> {
        self.sessions.get(id).map(|e| e.watch)
    }

    /// Applies the retention policy at `now`: records when sessions stopped being
    /// watched, releases the unwatched ones past the warm set or their grace, and resyncs
    /// watched ones that missed a generation (`live`: one is established now). `busy` names
    /// the sessions with operations in flight. Returns when to sweep again, if ever.
    pub fn sweep(&mut self, now: Instant, busy: &[String], policy: Retention, live: bool) -> Option<Instant> {
        // The orders of the candidates: unwatched, releasable sessions.
        let mut candidates: Vec<WatchOrder> = Vec::new();
        for (id, e) in self.sessions.iter_mut() {
            if e.watch.listeners || busy.contains(id) {
                e.watched(live);
                continue;
            }
            let (_, order) = *e.watch.unwatched.get_or_insert_with(|| (now, self.order.bump()));
            if e.session.is_releasable() {
                candidates.push(order);
            }
        }
        // Rank = how many candidates stopped being watched later. Counted, not sorted: the
        // candidates are the few warm sessions plus the ones that just lost their watcher, and
        // a sort would link kilobytes of generic code into the module. Every rank is taken
        // before the first release, so releasing one does not move another's.
        let mut next: Option<Instant> = None;
        for e in self.sessions.values_mut() {
            let Some((since, order)) = e.watch.unwatched.filter(|_| e.session.is_releasable()) else { continue };
            let rank = candidates.iter().filter(|&&c| c > order).count();
            match decide(policy, rank, since, now) {
                Ok(()) => {
                    e.watch.missed = false;
                    e.session.release();
                }
                Err(due) => next = Some(next.map_or(due, |n| n.min(due))),
            }
        }
        next
    }

    /// Closes every session (settles their operations) and forgets them.
    pub fn close_all(&mut self) -> Vec<(String, Session)> {
        self.stash.clear();
        let sessions = std::mem::take(&mut self.sessions);
        sessions
            .into_iter()
            .map(|(id, mut e)| {
                e.session.close();
                (id, e.session)
            })
            .collect()
    }
}
