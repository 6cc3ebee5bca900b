//! A driver with no network for the hostile-host tests: it records what the client asks,
//! answers by hand with raw text (so every value goes through the client's readers), and
//! checks the window invariants.

use agent_session::core::client::{
    CallId, Carrier, Config, HostClient, Input, Instant, OpHandle, Output, Reply, SessionOp, StreamId, StreamKind,
    Transport,
};
use agent_session::core::session::Session;
use agent_session::core::wire::seq::MAX_SEQ;
use serde_json::Value;

pub const DESCRIBE: &str = r#"{"version":"1","cwd":"/w","provider":"scripted","model":"none","attachedSessions":0}"#;
pub const SID: &str = "s1";

pub struct Driver {
    pub client: HostClient,
    pub now: f64,
    pub sent: Vec<(CallId, String, Value)>,
    opened: Vec<(StreamId, StreamKind)>,
    /// How many of `opened` were reported open.
    reported: usize,
    next_handle: u64,
}

impl Driver {
    pub fn new() -> Driver {
        let cfg = Config { transport: Transport::Only(Carrier::Sse), ..Config::default() };
        let mut d = Driver {
            client: HostClient::new(cfg),
            now: 1_000.0,
            sent: Vec::new(),
            opened: Vec::new(),
            reported: 0,
            next_handle: 0,
        };
        d.input(Input::Timeout);
        d
    }

    /// A client with both streams open, `describe` answered and session `s1` watched (as a
    /// UI showing it would) and opened (its tail-page request is left unanswered).
    pub fn established() -> Driver {
        let mut d = Driver::new();
        d.open_pending_streams();
        d.answer("host.describe", DESCRIBE);
        d.input(Input::Watch { session: SID.into(), listeners: true });
        d.op(SID, SessionOp::Open);
        d
    }

    /// Reports every stream asked for since the last call as open.
    pub fn open_pending_streams(&mut self) {
        while self.reported < self.opened.len() {
            let stream = self.opened[self.reported].0;
            self.reported += 1;
            self.input(Input::StreamOpened { stream });
        }
    }

    pub fn input(&mut self, input: Input) {
        self.client.handle_input(Instant::from_ms(self.now), input);
        while let Some(out) = self.client.poll_output() {
            match out {
                Output::Send { call, path, body } => {
                    self.sent.push((call, path, serde_json::from_str(&body).expect("bodies are JSON")))
                }
                Output::OpenStream { stream, kind, .. } => self.opened.push((stream, kind)),
                _ => {}
            }
        }
    }

    pub fn op(&mut self, session: &str, op: SessionOp) {
        self.next_handle += 1;
        self.input(Input::Session { handle: OpHandle(self.next_handle), session: session.into(), op });
    }

    /// The oldest request on `path` not answered yet: (call, its envelope).
    pub fn take(&mut self, path: &str) -> Option<(CallId, Value)> {
        let i = self.sent.iter().position(|s| s.1 == path)?;
        let (call, _, body) = self.sent.remove(i);
        Some((call, body))
    }

    pub fn pending(&self, path: &str) -> usize {
        self.sent.iter().filter(|s| s.1 == path).count()
    }

    /// Answers the oldest `path` request with `{ok: true, value}` (`value` raw JSON text).
    pub fn answer(&mut self, path: &str, value: &str) -> Option<Value> {
        let (call, body) = self.take(path)?;
        let text =
            format!(r#"{{"type":"server-response","rpcId":{},"result":{{"ok":true,"value":{value}}}}}"#, body["rpcId"]);
        self.input(Input::Response { call, reply: Reply::Body(text) });
        Some(body)
    }

    pub fn mux(&self) -> StreamId {
        self.opened.iter().rev().find(|o| o.1 == StreamKind::Mux).expect("a mux stream").0
    }

    /// One SSE frame on the mux: `payload` is the frame's payload object (raw text).
    pub fn frame(&mut self, method: &str, payload: &str) {
        let text = format!(r#"data: {{"type":"server-request","rpcId":"f","method":"{method}","payload":{payload}}}"#);
        let stream = self.mux();
        self.input(Input::StreamBytes { stream, bytes: format!("{text}\n\n").into_bytes() });
    }

    pub fn session(&self) -> &Session {
        self.client.session(SID).expect("resident")
    }

    pub fn advance(&mut self, ms: f64) {
        self.now += ms;
        self.input(Input::Timeout);
    }
}

/// One event as a host writes it (raw text, so seqs past `i64` are sayable).
pub fn event(seq: &str, kind: &str, data: &str) -> String {
    format!(r#"{{"type":"{kind}","seq":{seq},"time":1,"data":{data}}}"#)
}

pub fn user(seq: &str) -> String {
    event(seq, "user/message", r#"{"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}}"#)
}

pub fn page(events: &[String], has_more: bool) -> String {
    let items: Vec<String> = events.iter().map(|e| format!(r#"{{"event":{e}}}"#)).collect();
    format!(r#"{{"events":[{}],"hasMore":{has_more}}}"#, items.join(","))
}

pub fn live(seq: &str) -> String {
    format!(r#"{{"type":"session/event","sessionId":"{SID}","event":{}}}"#, user(seq))
}

/// The window is contiguous, ascending, within the wire bound, and `baseSeq <= tailSeq`
/// (or empty, base 0 and tail -1); node ids name seqs of the window.
pub fn assert_window(s: &Session) {
    let w = s.window().to_vec();
    for pair in w.windows(2) {
        assert_eq!(pair[0].seq + 1, pair[1].seq, "window not contiguous: {} -> {}", pair[0].seq, pair[1].seq);
    }
    assert!(w.iter().all(|e| e.seq <= MAX_SEQ), "a seq past the wire bound");
    if w.is_empty() {
        assert_eq!((s.base_seq(), s.tail_seq()), (0, -1));
    } else {
        assert!(s.base_seq() >= 0 && s.base_seq() <= s.tail_seq(), "base {} tail {}", s.base_seq(), s.tail_seq());
        assert_eq!((s.base_seq(), s.tail_seq()), (w[0].seq as i64, w[w.len() - 1].seq as i64));
    }
    assert!(s.nodes().iter().all(|n| n.seq >= 0 && n.seq <= MAX_SEQ as i64), "a node outside the bound");
}
