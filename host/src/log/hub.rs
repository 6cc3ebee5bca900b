//! Fan-out of stream frames. Each frame is serialized once into its `server-request`
//! envelope and shared (`Arc`) by every subscriber of its stream.

use crate::dialect::Wire;
use agent_session_wire::Frame;
use std::sync::Arc;
use tokio::sync::{broadcast, watch};

/// Frames a subscriber may fall behind by before its stream is ended (it then repairs
/// from history, which is cheaper than buffering without bound).
pub const CAPACITY: usize = 8192;

pub struct OutFrame {
    /// The whole envelope JSON (`data:` payload).
    pub json: String,
    pub rpc_id: String,
    pub session_id: Option<String>,
    /// Seq of the carried session event (`session/event`) or title event (`session/title`).
    pub event_seq: Option<u64>,
}

impl OutFrame {
    /// The frame as `wire` writes it, under a fresh rpcId.
    pub fn new(frame: &Frame, wire: Wire) -> Arc<OutFrame> {
        OutFrame::with_rpc_id(frame, uuid::Uuid::new_v4().to_string(), wire)
    }

    /// Question and approval frames keep their rpcId: `/api/respond` answers by it.
    pub fn with_rpc_id(frame: &Frame, rpc_id: String, wire: Wire) -> Arc<OutFrame> {
        let event_seq = match frame {
            Frame::Event(e) => Some(e.event.seq),
            // A title frame is as new as its title event: a mux open at or past that seq
            // already sent it.
            Frame::Title(t) => Some(t.event_seq),
            _ => None,
        };
        Arc::new(OutFrame {
            json: wire.frame_out(frame).to_envelope_text(&rpc_id),
            rpc_id,
            session_id: frame.session_id().map(str::to_owned),
            event_seq,
        })
    }
}

pub struct Hub {
    pub mux: broadcast::Sender<Arc<OutFrame>>,
    pub host: broadcast::Sender<Arc<OutFrame>>,
    /// Bumped to end every open stream (fault injection, store reset, shutdown).
    pub epoch: watch::Sender<u64>,
    /// The generation of the wire every frame is written in.
    pub wire: Wire,
}

impl Hub {
    pub fn new(wire: Wire) -> Self {
        Hub {
            mux: broadcast::channel(CAPACITY).0,
            host: broadcast::channel(CAPACITY).0,
            epoch: watch::channel(0).0,
            wire,
        }
    }

    /// The frame as this host's wire writes it.
    pub fn out(&self, frame: &Frame) -> Arc<OutFrame> {
        OutFrame::new(frame, self.wire)
    }

    /// The same under a given rpcId (questions and approvals are answered by it).
    pub fn out_with_rpc_id(&self, frame: &Frame, rpc_id: String) -> Arc<OutFrame> {
        OutFrame::with_rpc_id(frame, rpc_id, self.wire)
    }

    pub fn mux(&self, frame: Arc<OutFrame>) {
        // No receivers is not an error: nobody is listening yet.
        let _ = self.mux.send(frame);
    }
    pub fn host(&self, frame: Arc<OutFrame>) {
        let _ = self.host.send(frame);
    }
    pub fn drop_streams(&self) {
        self.epoch.send_modify(|e| *e += 1);
    }
}
