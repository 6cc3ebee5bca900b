//! The two SSE streams. `: connected` first, then one `data:` line per frame; no ids, no
//! event names, no heartbeats. A subscriber that falls too far behind, or a frame above the
//! size limit, ends the stream after a `stream/error` frame (the client then repairs from
//! history); a store reset or the `drop-streams` fault ends it silently.

use crate::app::App;
use crate::hub::OutFrame;
use crate::limits::MAX_SSE_FRAME_BYTES;
use agent_session::core::wire::{Frame, StreamErrorFrame, SubscribedFrame};
use axum::extract::State;
use axum::response::sse::{Event, Sse};
use futures_util::stream::{self, Stream};
use serde_json::json;
use std::collections::{HashMap, HashSet, VecDeque};
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{broadcast, watch};

/// Live frames already covered by what a mux open sent (its `lastSeq`s and replayed
/// interactions) are skipped, so a frame racing the open is not delivered twice.
#[derive(Default)]
struct Covered {
    last_seq: HashMap<String, i64>,
    replayed: HashSet<String>,
}

impl Covered {
    fn covers(&self, f: &OutFrame) -> bool {
        if self.replayed.contains(&f.rpc_id) {
            return true;
        }
        match (&f.session_id, f.event_seq) {
            (Some(sid), Some(seq)) => self.last_seq.get(sid).is_some_and(|last| seq as i64 <= *last),
            _ => false,
        }
    }
}

struct Feed {
    connected: bool,
    prelude: VecDeque<Arc<OutFrame>>,
    live: broadcast::Receiver<Arc<OutFrame>>,
    epoch: watch::Receiver<u64>,
    covered: Covered,
    done: bool,
}

fn error_event(error: serde_json::Value) -> Event {
    let frame = Frame::StreamError(StreamErrorFrame { error: error.into() });
    Event::default().data(OutFrame::new(&frame).json.as_str())
}

impl Feed {
    fn render(&mut self, f: &OutFrame) -> Event {
        if f.json.len() > MAX_SSE_FRAME_BYTES {
            self.done = true;
            return error_event(json!({
                "code": "frame-too-large",
                "message": format!("frame of {} bytes exceeds the {} byte limit; reload history", f.json.len(), MAX_SSE_FRAME_BYTES),
            }));
        }
        Event::default().data(f.json.as_str())
    }

    async fn next(mut self) -> Option<(Result<Event, Infallible>, Feed)> {
        if self.done {
            return None;
        }
        if !self.connected {
            self.connected = true;
            return Some((Ok(Event::default().comment("connected")), self));
        }
        if let Some(f) = self.prelude.pop_front() {
            let ev = self.render(&f);
            return Some((Ok(ev), self));
        }
        loop {
            tokio::select! {
                biased;
                _ = self.epoch.changed() => return None,
                r = self.live.recv() => match r {
                    Ok(f) if self.covered.covers(&f) => continue,
                    Ok(f) => {
                        let ev = self.render(&f);
                        return Some((Ok(ev), self));
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        self.done = true;
                        let message = format!("subscriber fell {n} frames behind; reload history");
                        return Some((Ok(error_event(json!({ "code": "lagged", "message": message }))), self));
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
        }
    }
}

fn sse(feed: Feed) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    Sse::new(stream::unfold(feed, Feed::next))
}

/// `GET /api/events.mux`: `session/subscribed` (then `session/title` when titled) for every
/// session, pending questions and approvals, then live frames.
pub async fn mux(State(app): State<Arc<App>>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    // Subscribe before the snapshot: a frame sent in between is then live *and* covered,
    // never lost.
    let live = app.hub.mux.subscribe();
    let epoch = app.hub.epoch.subscribe();
    let mut covered = Covered::default();
    let mut prelude = VecDeque::new();
    for s in app.sessions() {
        let last_seq = s.last_seq.load(Ordering::SeqCst);
        covered.last_seq.insert(s.id.clone(), last_seq);
        prelude.push_back(OutFrame::new(&Frame::Subscribed(SubscribedFrame { session_id: s.id.clone(), last_seq })));
        // Read after `last_seq`: the title mirror is written first, so it covers that seq.
        if let Some(t) = s.title() {
            prelude.push_back(OutFrame::new(&t.frame(&s.id)));
        }
    }
    for f in app.interactions.snapshot() {
        covered.replayed.insert(f.rpc_id.clone());
        prelude.push_back(f);
    }
    sse(Feed { connected: false, prelude, live, epoch, covered, done: false })
}

/// `GET /api/events.host`: session added/removed/status and agent errors.
pub async fn host(State(app): State<Arc<App>>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let live = app.hub.host.subscribe();
    let epoch = app.hub.epoch.subscribe();
    sse(Feed { connected: false, prelude: VecDeque::new(), live, epoch, covered: Covered::default(), done: false })
}
