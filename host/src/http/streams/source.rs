//! The frames of one downlink, independent of the carrier: the mux open prelude, then live
//! frames. A subscriber that falls too far behind, or a frame above the size limit, gets one
//! `stream/error` frame and the source ends (the client then repairs from history); a store
//! reset or the `drop-streams` fault ends it with no frame.

use crate::app::App;
use crate::dialect::Wire;
use crate::http::limits::MAX_STREAM_FRAME_BYTES;
use crate::log::hub::OutFrame;
use agent_session_wire::{Frame, StreamErrorFrame, SubscribedFrame};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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

/// Downlinks open now in this process (mux, host), whatever their carrier: the `--faults`
/// status reports them, so a test can count what many tabs hold.
static OPEN: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

/// Counts one downlink as open for as long as its frame source lives.
pub(super) struct Open(usize);

impl Open {
    pub(super) fn new(kind: usize) -> Open {
        OPEN[kind].fetch_add(1, Ordering::Relaxed);
        Open(kind)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        OPEN[self.0].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Frames handed to a downlink's carrier since the process started, every downlink summed:
/// what the host wrote for the tabs (the `--faults` status reports it).
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// The frames written to downlinks so far.
pub fn frames_written() -> u64 {
    WRITTEN.load(Ordering::Relaxed)
}

/// The downlinks open now: `{mux, host}`.
pub fn open_downlinks() -> serde_json::Value {
    serde_json::json!({ "mux": OPEN[0].load(Ordering::Relaxed), "host": OPEN[1].load(Ordering::Relaxed) })
}

pub struct FrameSource {
    prelude: VecDeque<Arc<OutFrame>>,
    live: broadcast::Receiver<Arc<OutFrame>>,
    epoch: watch::Receiver<u64>,
    covered: Covered,
    done: bool,
    /// The wire the stream errors are written in.
    wire: Wire,
    _open: Open,
}

fn stream_error(error: Value, wire: Wire) -> Arc<OutFrame> {
    OutFrame::new(&Frame::StreamError(StreamErrorFrame { error: error.into() }), wire)
}

impl FrameSource {
    /// `session/subscribed` (then `session/title` when titled) for every session, pending
    /// questions and approvals, then live frames.
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
            prelude.push_back(app.hub.out(&Frame::Subscribed(SubscribedFrame { session_id: s.id.clone(), last_seq })));
            // Read after `last_seq`: the title mirror is written first, so it covers that seq.
            // The 2026-08 host sends no title on open: titles ride the list's and the
            // tail page's projection blocks.
            if let Some(t) = s.title().filter(|_| !app.options.wire.is_upstream()) {
                prelude.push_back(app.hub.out(&t.frame(&s.id)));
            }
        }
        for f in app.interactions.snapshot() {
            covered.replayed.insert(f.rpc_id.clone());
            prelude.push_back(f);
        }
        FrameSource { prelude, live, epoch, covered, done: false, wire: app.options.wire, _open: Open::new(0) }
    }

    /// Session added/removed/status and agent errors; no prelude.
    pub fn host(app: &App) -> FrameSource {
        let live = app.hub.host.subscribe();
        let epoch = app.hub.epoch.subscribe();
        FrameSource {
            prelude: VecDeque::new(),
            live,
            epoch,
            covered: Covered::default(),
            done: false,
            wire: app.options.wire,
            _open: Open::new(1),
        }
    }

    fn checked(&mut self, f: Arc<OutFrame>) -> Arc<OutFrame> {
        WRITTEN.fetch_add(1, Ordering::Relaxed);
        if f.json.len() <= MAX_STREAM_FRAME_BYTES {
            return f;
        }
        self.done = true;
        // An `RpcError` like the origin's (`internal`); why is in `details.reason`.
        stream_error(
            json!({
                "code": "internal",
                "message": format!("frame of {} bytes exceeds the {} byte limit; reload history", f.json.len(), MAX_STREAM_FRAME_BYTES),
                "details": { "reason": "frame-too-large" },
            }),
            self.wire,
        )
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
                        let error = json!({ "code": "internal", "message": message, "details": { "reason": "lagged" } });
                        return Some(stream_error(error, self.wire));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Options;
    use crate::dialect::Downlinks;
    use crate::log::hub::CAPACITY;
    use crate::log::store::Store;
    use agent_session_wire::SessionAddedFrame;
    use std::time::Duration;

    fn app(dir: &tempfile::TempDir) -> App {
        let store = Store::open(&dir.path().join("host.sqlite")).expect("store");
        let options = Options {
            plan_mode: true,
            chunk_delay: Duration::ZERO,
            downlinks: Downlinks::Both,
            ticket_ttl: Duration::from_secs(30),
            wire: Wire::Seed,
        };
        App::new(store, options, false, Arc::new(crate::agent::script::Scripted)).expect("app")
    }

    fn added(id: String) -> Arc<OutFrame> {
        OutFrame::new(&Frame::SessionAdded(SessionAddedFrame { session_id: id, ..Default::default() }), Wire::Seed)
    }

    #[tokio::test]
    async fn a_lagging_subscriber_gets_one_stream_error_then_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir);
        let mut source = FrameSource::host(&app);
        for i in 0..CAPACITY + 3 {
            app.hub.host(added(format!("s{i}")));
        }
        let f = source.next().await.expect("an error frame");
        assert!(
            f.json.contains(r#""type":"stream/error""#)
                && f.json.contains(r#""code":"internal""#)
                && f.json.contains(r#""reason":"lagged""#),
            "{}",
            f.json
        );
        assert!(source.next().await.is_none());
    }

    #[tokio::test]
    async fn an_oversized_frame_becomes_a_stream_error_and_ends_the_source() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir);
        let mut source = FrameSource::host(&app);
        app.hub.host(added("x".repeat(MAX_STREAM_FRAME_BYTES)));
        app.hub.host(added("after".into()));
        let f = source.next().await.expect("an error frame");
        assert!(f.json.contains(r#""reason":"frame-too-large""#), "{}", &f.json[..200.min(f.json.len())]);
        assert!(source.next().await.is_none());
    }

    #[tokio::test]
    async fn dropping_streams_ends_the_source_without_a_frame() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(&dir);
        let mut source = FrameSource::mux(&app);
        app.hub.drop_streams();
        assert!(source.next().await.is_none());
    }
}
