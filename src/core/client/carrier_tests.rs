//! Native tests of the carrier choice ([`Carriers`]) driven together with the connection
//! controller exactly as the wasm shell drives them, plus the downlink URL and ticket helpers.

use super::carrier::REPROBE_AFTER;
use super::downlink::{read_ticket, ws_url};
use super::*;
use crate::core::wire::Json;

/// The shell's wiring: `Connect` asks for a carrier, `Established`/`Lost` report back, a
/// refusal either reopens the streams on the fallback carrier or fails the generation.
struct Driver {
    conn: Connection,
    carriers: Carriers,
    now: Instant,
    /// Every (generation, carrier) the streams were opened on, in order.
    opened: Vec<(u64, Carrier)>,
}

impl Driver {
    fn new(transport: Transport) -> Driver {
        let mut d = Driver {
            conn: Connection::new(Backoff::default(), 15_000.0),
            carriers: Carriers::new(transport),
            now: Instant::from_ms(0.0),
            opened: Vec::new(),
        };
        d.conn.start(Instant::from_ms(0.0));
        d.pump();
        d
    }

    fn pump(&mut self) {
        for cmd in self.conn.drain_commands() {
            match cmd {
                ConnCommand::Connect { gen } => {
                    let c = self.carriers.start(gen);
                    self.opened.push((gen, c));
                }
                ConnCommand::Established { gen, .. } => self.carriers.established(gen),
                ConnCommand::Lost { gen } => self.carriers.ended(gen),
                _ => {}
            }
        }
    }

    fn gen(&self) -> u64 {
        self.conn.generation()
    }

    fn last(&self) -> (u64, Carrier) {
        *self.opened.last().expect("something was opened")
    }

    fn refuse(&mut self) {
        let gen = self.gen();
        match self.carriers.refused(gen) {
            Some(c) => {
                self.conn.streams_restarted(gen);
                self.opened.push((gen, c));
            }
            None => self.conn.failed(gen, GenerationEnd::Describe("refused".into()), self.now, 0.0),
        }
        self.pump();
    }

    fn establish(&mut self) {
        let gen = self.gen();
        self.conn.stream_opened(gen, StreamKind::Mux);
        self.conn.stream_opened(gen, StreamKind::Host);
        self.conn.described(gen);
        self.pump();
        assert_eq!(self.conn.state(), ConnState::Open);
    }

    /// Ends the current generation (established or not) and starts the next one.
    fn fail_and_retry(&mut self) {
        self.conn.failed(self.gen(), GenerationEnd::Describe("ended".into()), self.now, 0.0);
        self.pump();
        self.now = self.conn.retry_at().expect("retry scheduled");
        self.conn.tick(self.now, 0.0);
        self.pump();
    }
}

use Carrier::{Sse, WebSocket as Ws};

#[test]
fn auto_tries_websocket_first_and_keeps_it_once_a_generation_is_established() {
    let mut d = Driver::new(Transport::Auto);
    assert_eq!(d.last(), (1, Ws));
    assert_eq!(d.carriers.active(), None, "unknown before the first establishment");
    d.establish();
    assert_eq!(d.carriers.active(), Some(Ws));
    for gen in 2..=4 {
        d.fail_and_retry();
        assert_eq!(d.last(), (gen, Ws));
        d.establish();
    }
    // A refusal on the kept carrier is a failed generation, not a fallback.
    d.fail_and_retry();
    d.refuse();
    assert_eq!(d.conn.state(), ConnState::Reconnecting);
    assert_eq!(d.opened.iter().filter(|(g, _)| *g == 5).count(), 1, "no SSE reopen: {:?}", d.opened);
}

#[test]
fn auto_falls_back_to_sse_within_the_same_generation_without_a_backoff() {
    let mut d = Driver::new(Transport::Auto);
    // The mux socket opened, the host socket was refused: both streams reopen over SSE.
    d.conn.stream_opened(1, StreamKind::Mux);
    d.conn.described(1);
    d.refuse();
    assert_eq!(d.opened, vec![(1, Ws), (1, Sse)]);
    assert_eq!(d.conn.generation(), 1, "same generation");
    assert_eq!(d.conn.attempt(), 0, "no failed attempt counted");
    assert_eq!(d.conn.retry_at(), None, "no backoff");
    assert_eq!(d.conn.state(), ConnState::Connecting);
    // The WebSocket mux no longer counts: only the SSE streams establish the generation.
    d.conn.stream_opened(1, StreamKind::Host);
    assert_eq!(d.conn.state(), ConnState::Connecting, "the SSE mux has not opened yet");
    d.conn.stream_opened(1, StreamKind::Mux);
    d.pump();
    assert_eq!(d.conn.state(), ConnState::Open);
    assert_eq!(d.carriers.active(), Some(Sse));
    assert_eq!(d.carriers.kept(), Some(Sse));
}

#[test]
fn auto_sticks_to_sse_once_it_established_and_never_falls_back_from_it() {
    let mut d = Driver::new(Transport::Auto);
    d.refuse();
    d.establish();
    d.fail_and_retry();
    assert_eq!(d.last(), (2, Sse), "later generations start on SSE");
    d.refuse();
    assert_eq!(d.conn.state(), ConnState::Reconnecting, "an SSE refusal fails the generation");
    assert_eq!(d.opened.iter().filter(|(g, _)| *g == 2).count(), 1);
}

#[test]
fn a_second_refusal_in_one_generation_fails_it() {
    let mut d = Driver::new(Transport::Auto);
    d.refuse();
    assert_eq!(d.last(), (1, Sse));
    d.refuse();
    assert_eq!(d.conn.state(), ConnState::Reconnecting);
    assert_eq!(d.conn.attempt(), 1);
    // Still probing: the next generation tries WebSocket again, then SSE.
    d.now = d.conn.retry_at().unwrap();
    d.conn.tick(d.now, 0.0);
    d.pump();
    assert_eq!(d.last(), (2, Ws));
    d.refuse();
    assert_eq!(d.last(), (2, Sse));
}

#[test]
fn the_kept_carrier_is_forgotten_after_consecutive_unestablished_generations() {
    let mut d = Driver::new(Transport::Auto);
    d.refuse();
    d.establish();
    assert_eq!(d.carriers.kept(), Some(Sse));
    // Misses are counted only consecutively: an establishment in between resets them.
    for _ in 0..REPROBE_AFTER {
        d.fail_and_retry();
    }
    assert_eq!(d.last().1, Sse, "{} misses", REPROBE_AFTER - 1);
    d.establish();
    for _ in 0..REPROBE_AFTER {
        d.fail_and_retry();
        assert_eq!(d.last().1, Sse, "kept while misses < {REPROBE_AFTER}");
    }
    // REPROBE_AFTER - 1 misses so far (the current generation is still running); one more.
    d.fail_and_retry();
    assert_eq!(d.carriers.kept(), None);
    assert_eq!(d.last().1, Ws, "probing again, WebSocket first");
    assert_eq!(d.carriers.active(), Some(Sse), "transport still reports the last established carrier");
    d.establish();
    assert_eq!(d.carriers.kept(), Some(Ws));
    assert_eq!(d.carriers.active(), Some(Ws));
}

#[test]
fn forced_carriers_are_always_used_and_never_fall_back() {
    for c in [Ws, Sse] {
        let mut d = Driver::new(Transport::Only(c));
        assert_eq!(d.last(), (1, c));
        d.refuse();
        assert_eq!(d.conn.state(), ConnState::Reconnecting, "{c:?}: a refusal fails the generation");
        for _ in 0..5 {
            d.fail_and_retry();
        }
        assert!(d.opened.iter().all(|(_, x)| *x == c), "{c:?}: {:?}", d.opened);
        assert_eq!(d.carriers.active(), None);
        d.establish();
        assert_eq!(d.carriers.active(), Some(c));
    }
}

#[test]
fn stale_generations_cannot_change_the_choice() {
    let mut c = Carriers::new(Transport::Auto);
    assert_eq!(c.start(1), Ws);
    c.ended(1);
    assert_eq!(c.start(2), Ws);
    assert_eq!(c.refused(1), None, "a late refusal of generation 1");
    assert_eq!(c.current(2), Some(Ws));
    c.established(1);
    assert_eq!(c.active(), None, "a late establishment of generation 1");
    c.ended(1);
    assert_eq!(c.current(2), Some(Ws), "a late end of generation 1");
    c.established(2);
    assert_eq!(c.refused(2), None, "nothing falls back once established");
    assert_eq!(c.current(2), Some(Ws));
    assert_eq!(c.current(1), None);
}

#[test]
fn streams_restarted_is_ignored_for_stale_or_established_generations() {
    let mut c = Connection::new(Backoff::default(), 15_000.0);
    c.start(Instant::from_ms(0.0));
    c.stream_opened(1, StreamKind::Mux);
    c.stream_opened(1, StreamKind::Host);
    c.streams_restarted(7);
    c.described(1);
    assert_eq!(c.state(), ConnState::Open, "a stale restart reset nothing");
    c.streams_restarted(1);
    assert_eq!(c.state(), ConnState::Open, "an established generation is not reset");
    c.drain_commands();
    c.failed(1, GenerationEnd::Describe("x".into()), Instant::from_ms(0.0), 0.0);
    assert!(c.drain_commands().contains(&ConnCommand::Lost { gen: 1 }));
}

#[test]
fn the_transport_option_accepts_exactly_three_names() {
    assert_eq!(Transport::parse("auto"), Some(Transport::Auto));
    assert_eq!(Transport::parse("websocket"), Some(Transport::Only(Ws)));
    assert_eq!(Transport::parse("sse"), Some(Transport::Only(Sse)));
    for bad in ["", "ws", "WebSocket", "SSE", "auto ", "http"] {
        assert_eq!(Transport::parse(bad), None, "{bad:?}");
    }
    assert_eq!(Ws.as_str(), "websocket");
    assert_eq!(Sse.as_str(), "sse");
}

#[test]
fn upgrade_urls_swap_the_scheme_and_carry_only_an_encoded_ticket() {
    assert_eq!(ws_url("http://127.0.0.1:7878", "events.mux", None), "ws://127.0.0.1:7878/api/events.mux");
    assert_eq!(ws_url("https://agent.example/x", "events.host", None), "wss://agent.example/x/api/events.host");
    assert_eq!(ws_url("HTTPS://A.example", "events.mux", None), "wss://A.example/api/events.mux");
    assert_eq!(ws_url("ws://h:1", "events.mux", None), "ws://h:1/api/events.mux");
    assert_eq!(ws_url("/prefix", "events.mux", None), "/prefix/api/events.mux", "relative: the browser resolves it");
    assert_eq!(ws_url("", "events.mux", None), "/api/events.mux");
    assert_eq!(
        ws_url("http://h", "events.mux", Some("a+b/c=d é~")),
        "ws://h/api/events.mux?ticket=a%2Bb%2Fc%3Dd%20%C3%A9~"
    );
}

#[test]
fn tickets_are_read_from_the_value_and_bad_values_are_errors() {
    let v = |t: &str| Json::from_text(t).unwrap();
    assert_eq!(read_ticket(&v(r#"{"ticket":"t-1","expiresInMs":30000}"#)).as_deref(), Ok("t-1"));
    for bad in [r#"{}"#, r#"{"ticket":7}"#, r#"{"ticket":""}"#, r#"{"ticket":null}"#, r#"[]"#, r#""t""#] {
        let e = read_ticket(&v(bad)).unwrap_err();
        assert!(e.to_string().starts_with("stream.ticket:"), "{bad}: {e}");
    }
}
