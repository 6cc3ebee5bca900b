//! The test driver of the sans-IO host client: no network, it records what the client asks
//! and the tests answer by hand (shared by the host and retention tests).

use super::*;
use serde_json::{json, Value};

pub(super) const DESCRIBE: &str =
    r#"{"version":"1","cwd":"/w","provider":"scripted","model":"none","attachedSessions":0}"#;

/// The 2026-08 host's description (capture websocket/04): `home` and `canOpenPath` tell it.
pub(super) const DESCRIBE_2026_08: &str = r#"{"version":"0.0.1","cwd":"/w","provider":"deepseek-official","model":"deepseek-v4-flash","attachedSessions":0,"home":"/h","canOpenPath":false}"#;

/// A driver with no network: it records what the client asks and answers by hand.
pub(super) struct Driver {
    pub(super) client: HostClient,
    pub(super) now: f64,
    pub(super) sent: Vec<(CallId, String, Value)>,
    pub(super) opened: Vec<(StreamId, StreamKind, Carrier, Option<String>)>,
    pub(super) closed: Vec<StreamId>,
    pub(super) aborted: Vec<CallId>,
    pub(super) settled: Vec<(OpHandle, Settlement)>,
    pub(super) session_changes: Vec<String>,
    /// Frames of types the client does not read, as handed on.
    pub(super) unread: Vec<String>,
}

impl Driver {
    pub(super) fn new(cfg: Config) -> Driver {
        let mut d = Driver {
            client: HostClient::new(cfg),
            now: 1_000.0,
            sent: Vec::new(),
            opened: Vec::new(),
            closed: Vec::new(),
            aborted: Vec::new(),
            settled: Vec::new(),
            session_changes: Vec::new(),
            unread: Vec::new(),
        };
        d.input(Input::Timeout);
        d
    }

    pub(super) fn sse() -> Driver {
        Driver::new(Config { transport: Transport::Only(Carrier::Sse), ..Config::default() })
    }

    pub(super) fn input(&mut self, input: Input) {
        self.client.handle_input(Instant::from_ms(self.now), input);
        while let Some(out) = self.client.poll_output() {
            match out {
                Output::Send { call, path, body } => {
                    self.sent.push((call, path, serde_json::from_str(&body).expect("bodies are JSON")))
                }
                Output::Abort { call } => self.aborted.push(call),
                Output::OpenStream { stream, kind, carrier, ticket } => {
                    self.opened.push((stream, kind, carrier, ticket))
                }
                Output::CloseStream { stream } => self.closed.push(stream),
                Output::Settle { handle, settlement } => self.settled.push((handle, settlement)),
                Output::HostChanged => {}
                Output::SessionChanged(id) => self.session_changes.push(id),
                Output::Unread(text) => self.unread.push(text),
            }
        }
    }

    /// The latest request on `path` not answered yet: (call, its envelope).
    pub(super) fn take(&mut self, path: &str) -> (CallId, Value) {
        let i = self.sent.iter().rposition(|s| s.1 == path).unwrap_or_else(|| panic!("no {path} request"));
        let (call, _, body) = self.sent.remove(i);
        (call, body)
    }

    pub(super) fn answer(&mut self, path: &str, value: &str) {
        let (call, body) = self.take(path);
        let text =
            format!(r#"{{"type":"server-response","rpcId":{},"result":{{"ok":true,"value":{value}}}}}"#, body["rpcId"]);
        self.input(Input::Response { call, reply: Reply::Body(text) });
    }

    pub(super) fn streams_of_last_generation(&self) -> Vec<StreamId> {
        self.opened.iter().rev().take(2).map(|o| o.0).collect()
    }

    /// Opens the newest pair of streams and answers `host.describe` as the seed host.
    pub(super) fn establish(&mut self) {
        self.establish_as(DESCRIBE);
    }

    /// The same, answering `host.describe` with `description`.
    pub(super) fn establish_as(&mut self, description: &str) {
        for s in self.streams_of_last_generation() {
            self.input(Input::StreamOpened { stream: s });
        }
        self.answer("host.describe", description);
    }

    /// Answers the `session.list` seed of the generation (an empty list): no call of the
    /// generation is left waiting, so no call deadline is left in the timer table.
    pub(super) fn seed(&mut self) {
        self.answer("session.list", r#"{"items":[]}"#);
    }

    pub(super) fn mux(&self) -> StreamId {
        self.opened.iter().rev().find(|o| o.1 == StreamKind::Mux).expect("a mux stream").0
    }

    pub(super) fn frame(&mut self, frame: Value) {
        let stream = self.mux();
        let text = format!("data: {frame}\n\n");
        self.input(Input::StreamBytes { stream, bytes: text.into_bytes() });
    }

    pub(super) fn advance_to_timeout(&mut self) {
        let at = self.client.poll_timeout().expect("a timer is armed");
        self.now = self.now.max(at.as_ms());
        self.input(Input::Timeout);
    }

    /// Subscribes to the session (as a UI does) and opens it.
    pub(super) fn open(&mut self, handle: u64, session: &str) {
        self.input(Input::Watch { session: session.into(), listeners: true });
        self.input(Input::Session { handle: OpHandle(handle), session: session.into(), op: SessionOp::Open });
    }

    pub(super) fn settlement(&self, handle: u64) -> Option<&Settlement> {
        self.settled.iter().find(|s| s.0 == OpHandle(handle)).map(|s| &s.1)
    }
}

pub(super) fn tail_page(seq_from: u64, n: u64) -> String {
    use crate::core::wire::{HistoryItem, HistoryValue, SessionEvent};
    let events = (seq_from..seq_from + n)
        .map(|s| {
            let data = json!({"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}});
            HistoryItem { event: SessionEvent::new("user/message", s, 1.0, data), view: None }
        })
        .collect();
    serde_json::to_string(&HistoryValue { events, has_more: false, projections: None }).unwrap()
}
