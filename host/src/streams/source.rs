//! The frames of one downlink, independent of the carrier: the mux open prelude, then live
//! frames. A subscriber that falls too far behind, or a frame above the size limit, gets one
//! `stream/error` frame and the source ends (the client then repairs from history); a store
//! reset or the `drop-streams` fault ends it with no frame.

use crate::app::App;
use crate::hub::OutFrame;
use crate::limits::MAX_STREAM_FRAME_BYTES;
use agent_session::core::wire::{Frame, StreamErrorFrame, SubscribedFrame};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
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

pub struct FrameSource {
    prelude: VecDeque<Arc<OutFrame>>,
    live: broadcast::Receiver<Arc<OutFrame>>,
    epoch: watch::Receiver<u64>,
    covered: Covered,
    done: bool,
}

fn stream_error(error: Value) -> Arc<OutFrame> {
    OutFrame::new(&Frame::StreamError(StreamErrorFrame { error: error.into() }))
}

impl FrameSource {
    /// `session/subscribed` for every session, pending questions and approvals, then live
    /// frames.
    pub fn mux(app: &App) -> FrameSource {
        // Subscribe before the snapshot: a frame sent in between is then live *and* covered,
        // never lost.
        let live = app.hub.mux.subscribe();
        let epoch = app.hub.epoch.subscribe();
        let mut covered = Covered::default();
        let mut prelude = VecDeque::new();
        for s in app.sessions() {
            let last_seq = s.last_seq.load(Ordering::SeqCst);
            covered.last_seq.insert(s.id.clone(), last_seq);
            prelude
                .push_back(OutFrame::new(&Frame::Subscribed(SubscribedFrame { session_id: s.id.clone(), last_seq })));
        }
        for f in app.interactions.snapshot() {
            covered.replayed.insert(f.rpc_id.clone());
            prelude.push_back(f);
        }
        FrameSource { prelude, live, epoch, covered, done: false }
    }

    /// Session added/removed/status and agent errors; no prelude.
    pub fn host(app: &App) -> FrameSource {
        let live = app.hub.host.subscribe();
        let epoch = app.hub.epoch.subscribe();
        FrameSource { prelude: VecDeque::new(), live, epoch, covered: Covered::default(), done: false }
    }

    fn checked(&mut self, f: Arc<OutFrame>) -> Arc<OutFrame> {
        if f.json.len() <= MAX_STREAM_FRAME_BYTES {
            return f;
        }
        self.done = true;
        stream_error(json!({
            "code": "frame-too-large",
            "message": format!("frame of {} bytes exceeds the {} byte limit; reload history", f.json.len(), MAX_STREAM_FRAME_BYTES),
        }))
    }

    /// The next frame to send, `None` once the stream is over. Cancel-safe (a carrier may
    /// race it against reading its socket): nothing is taken before the last await.
    pub async fn next(&mut self) -> Option<Arc<OutFrame>> {
        if self.done {
            return None;
        }
        if let Some(f) = self.prelude.pop_front() {
            return Some(self.checked(f));
        }
        loop {
            tokio::select! {
                biased;
                _ = self.epoch.changed() => {
                    self.done = true;
                    return None;
                }
                r = self.live.recv() => match r {
                    Ok(f) if self.covered.covers(&f) => continue,
                    Ok(f) => return Some(self.checked(f)),
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        self.done = true;
                        let message = format!("subscriber fell {n} frames behind; reload history");
                        return Some(stream_error(json!({ "code": "lagged", "message": message })));
                    }
                    Err(broadcast::error::RecvError::Closed) => {
                        self.done = true;
                        return None;
                    }
                },
            }
        }
    }
}
