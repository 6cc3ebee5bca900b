//! The connection: generations, the carrier of their two downlinks (tickets, refusals,
//! upgrade deadlines), the frames they carry, and the session-list seed.

use super::client::*;
use super::io::*;
use crate::core::client::carrier::Carrier;
use crate::core::client::connection::{ConnCommand, GenerationEnd, StreamKind};
use crate::core::client::downlink::{read_ticket, STREAM_TICKET};
use crate::core::session::io::schema_error;
use crate::core::sse::{SseItem, SseParser};
use crate::core::wire::{self, Frame, Json, ListValue, RpcResult};
use agent_session_onepass::parse_frame;

impl HostClient {
    pub(super) fn on_conn_command(&mut self, cmd: ConnCommand) {
        match cmd {
            ConnCommand::Connect { gen } => {
                self.list.begin(gen);
                let carrier = self.carriers.start(gen);
                self.open_streams(gen, carrier);
                self.send(CallFor::Describe { gen }, wire::HOST_DESCRIBE, "{}");
            }
            ConnCommand::Abort { gen } => self.abort_generation(gen),
            ConnCommand::Established { gen, .. } => {
                self.carriers.established(gen);
                self.seed_sessions(gen);
                // The resync rules: every watched session not cold and not opened on `gen`
                // resyncs (its `Changed` effect reports it); unwatched ones wait to be watched.
                let busy = self.busy();
                self.router.established(gen, &busy);
                // The outbox of every session may send again.
                for (_, s) in self.router.sessions_mut() {
                    s.set_online(true);
                }
            }
            ConnCommand::Lost { gen } => {
                self.carriers.ended(gen);
                self.router.connection_lost();
                for (_, s) in self.router.sessions_mut() {
                    s.set_online(false);
                }
            }
            ConnCommand::Changed => self.outputs.push_back(Output::HostChanged),
        }
    }

    /// Closes every stream of `gen` and gives up its describe and ticket calls.
    pub(super) fn abort_generation(&mut self, gen: u64) {
        self.close_streams(&|s| s.gen == gen);
        self.abort_calls(&|c| matches!(c, CallFor::Describe { gen: g } | CallFor::Ticket { gen: g, .. } if *g == gen));
    }

    /// Gives up the calls in flight that `which` picks (the driver aborts them).
    pub(super) fn abort_calls(&mut self, which: &dyn Fn(&CallFor) -> bool) {
        let mut calls: Vec<CallId> = Vec::new();
        for (id, c) in self.calls.iter() {
            if which(&c.what) {
                calls.push(*id);
            }
        }
        for call in calls {
            self.calls.remove(&call);
            self.timers.cancel(&Timer::Call(call));
            self.outputs.push_back(Output::Abort { call });
        }
    }

    pub(super) fn close_streams(&mut self, which: &dyn Fn(&Stream) -> bool) {
        let mut gone: Vec<Stream> = Vec::new();
        for s in std::mem::take(&mut self.streams) {
            if which(&s) {
                gone.push(s);
            } else {
                self.streams.push(s);
            }
        }
        self.timers
            .cancel_where(&|t| matches!(t, Timer::Upgrade { stream, .. } if gone.iter().any(|s| s.id == *stream)));
        for s in gone {
            if s.state != StreamState::Ticketing {
                self.outputs.push_back(Output::CloseStream { stream: s.id });
            }
        }
    }

    /// Both downlinks of `gen` on `carrier` (a WebSocket with a token mints its ticket first).
    pub(super) fn open_streams(&mut self, gen: u64, carrier: Carrier) {
        for kind in [StreamKind::Mux, StreamKind::Host] {
            let id = StreamId(self.next_id());
            let ticketing = carrier == Carrier::WebSocket && self.cfg.authenticated;
            let state = if ticketing { StreamState::Ticketing } else { StreamState::Opening };
            let sse = (carrier == Carrier::Sse).then(SseParser::default);
            self.streams.push(Stream { id, gen, kind, carrier, state, sse });
            if ticketing {
                self.send(CallFor::Ticket { gen, stream: id }, STREAM_TICKET, "{}");
            } else {
                self.open_stream(gen, id, kind, carrier, None);
            }
        }
    }

    /// Asks the driver to open a downlink; a WebSocket also gets its upgrade deadline.
    pub(super) fn open_stream(
        &mut self,
        gen: u64,
        stream: StreamId,
        kind: StreamKind,
        carrier: Carrier,
        ticket: Option<String>,
    ) {
        if carrier == Carrier::WebSocket {
            self.timers.set(Timer::Upgrade { gen, stream }, self.now.after_ms(UPGRADE_TIMEOUT_MS));
        }
        self.outputs.push_back(Output::OpenStream { stream, kind, carrier, ticket });
    }

    pub(super) fn stream_index(&self, id: StreamId) -> Option<usize> {
        self.streams.iter().position(|s| s.id == id)
    }

    /// Stream `id`'s index and generation if it is still wanted (its generation is current;
    /// none is after `close()`).
    pub(super) fn live_stream(&self, id: StreamId) -> Option<(usize, u64)> {
        let i = self.stream_index(id)?;
        let gen = self.streams[i].gen;
        self.conn.is_current(gen).then_some((i, gen))
    }

    pub(super) fn on_stream_opened(&mut self, id: StreamId) {
        let Some((i, gen)) = self.live_stream(id) else { return };
        self.streams[i].state = StreamState::Open;
        self.timers.cancel(&Timer::Upgrade { gen, stream: id });
        self.conn.stream_opened(gen, self.streams[i].kind);
    }

    pub(super) fn on_stream_bytes(&mut self, id: StreamId, bytes: &[u8]) {
        let Some((i, gen)) = self.live_stream(id) else { return };
        let mut items = Vec::new();
        match self.streams[i].sse.as_mut() {
            Some(parser) => parser.push(bytes, &mut items),
            None => return,
        }
        for item in items {
            match item {
                SseItem::Comment(_) => {}
                SseItem::Oversize(_) => self.diag.malformed_frames += 1,
                SseItem::Data(data) => {
                    // A `stream/error` frame ends the generation: the rest is not read.
                    if !self.on_frame_text(gen, &data) {
                        return;
                    }
                }
            }
        }
    }

    /// One frame document of generation `gen`. Returns false when it ended the generation.
    pub(super) fn on_frame_text(&mut self, gen: u64, data: &str) -> bool {
        match parse_frame(data) {
            Ok(inbound) => {
                self.diag.frames += 1;
                if let Frame::StreamError(f) = &inbound.frame {
                    let why = GenerationEnd::StreamError(f.error.text().to_string());
                    self.fail_generation(gen, why);
                    return false;
                }
                if self.list.on_frame(&inbound.frame) {
                    self.outputs.push_back(Output::HostChanged);
                }
                if let Frame::RemoteEvent(r) = &inbound.frame {
                    // The 2026-08 host forwards `commands/change`: every command list is stale.
                    if r.event == wire::RemoteEventFrame::COMMANDS_CHANGE {
                        self.router.sessions_mut().for_each(|(_, s)| s.on_commands_changed());
                    }
                    return true;
                }
                self.router.on_frame(inbound, data.len());
            }
            Err(wire::FrameError::Unknown { .. }) => {
                self.diag.frames += 1;
                self.outputs.push_back(Output::Unread(data.to_string()));
            }
            Err(_) => self.diag.malformed_frames += 1,
        }
        true
    }

    pub(super) fn on_stream_ended(&mut self, id: StreamId, why: String) {
        let Some((i, gen)) = self.live_stream(id) else { return };
        let (kind, carrier, opened) =
            (self.streams[i].kind, self.streams[i].carrier, self.streams[i].state == StreamState::Open);
        match carrier {
            Carrier::WebSocket if !opened => self.refused(gen, GenerationEnd::Refused { kind, why }),
            _ => {
                self.fail_generation(gen, GenerationEnd::Stream { kind, websocket: carrier == Carrier::WebSocket, why })
            }
        }
    }

    /// A WebSocket of `gen` was refused (closed before it opened, or no ticket): the carrier
    /// policy says whether to reopen both streams over SSE in the same generation.
    pub(super) fn refused(&mut self, gen: u64, why: GenerationEnd) {
        match self.carriers.refused(gen) {
            Some(carrier) => {
                self.close_streams(&|s| s.gen == gen);
                self.abort_calls(&|c| matches!(c, CallFor::Ticket { gen: g, .. } if *g == gen));
                self.conn.streams_restarted(gen);
                self.open_streams(gen, carrier);
            }
            None => self.fail_generation(gen, why),
        }
    }

    pub(super) fn on_ticket(&mut self, gen: u64, stream: StreamId, result: RpcResult<Json>) {
        let Some((i, gen)) = self.live_stream(stream).filter(|l| l.1 == gen) else { return };
        let (kind, carrier) = (self.streams[i].kind, self.streams[i].carrier);
        match result.map_err(|e| e.message).and_then(|v| read_ticket(&v).map_err(|e| e.to_string())) {
            Ok(ticket) => {
                self.streams[i].state = StreamState::Opening;
                self.open_stream(gen, stream, kind, carrier, Some(ticket));
            }
            Err(why) => self.refused(gen, GenerationEnd::Refused { kind, why }),
        }
    }

    /// Asks `session.list` to seed the live list for generation `gen`.
    pub(super) fn seed_sessions(&mut self, gen: u64) {
        if self.conn.is_current(gen) {
            self.send(CallFor::Seed { gen }, wire::SESSION_LIST, "{}");
        }
    }

    pub(super) fn on_seed(&mut self, gen: u64, result: RpcResult<Json>) {
        let items = result.and_then(|v| {
            wire::read::read::<ListValue>(v.text()).map(|l| l.items).map_err(|e| schema_error(wire::SESSION_LIST, e))
        });
        let failed = items.is_err();
        if self.list.seed(gen, items) {
            self.outputs.push_back(Output::HostChanged);
        }
        if failed && self.conn.is_current(gen) {
            self.timers.set(Timer::Reseed { gen }, self.now.after_ms(RESEED_MS));
        }
    }
}
