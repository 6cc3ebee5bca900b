//! Property tests over the captured wire (`tests/fixtures/wire/`), mutated: members repeated,
//! dropped, reordered or given hostile values, texts cut short.
//!
//! - the SSE parser's output does not depend on how the bytes are split (empty chunks too);
//! - the one-pass readers and the general readers agree on every input;
//! - `HostClient` driven with mutated frames, pages and hostile values never panics (debug
//!   builds: overflow checks on) and every resident session keeps a contiguous window with
//!   `baseSeq <= tailSeq` after every input.
//!
//! Each runs a bounded count from a fixed seed (a failure reproduces) and prints it; `npm test`
//! runs them in their own layer (`scripts/test.sh`), the workspace layer skips them by their
//! `hostile_property_` prefix.

use super::driver::{assert_window, page, user, Driver, SID};
use agent_session::core::client::{Input, SessionOp};
use agent_session::core::session::{joined, PageReader};
use agent_session::core::sse::{SseItem, SseParser};
use agent_session::core::wire::envelope::{parse_unary_response, ResponseForm};
use agent_session::core::wire::event::{ChunkData, EventData};
use agent_session::core::wire::frames::Frame;
use agent_session::core::wire::methods::{HistoryItem, HistoryValue};
use agent_session::core::wire::{inbound, read::read};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;

// ---- the captured corpus --------------------------------------------------------------

struct Corpus {
    /// Raw SSE bodies of the captured streams.
    sse_bodies: Vec<Vec<u8>>,
    /// Every captured frame document (SSE `data:` payloads, WebSocket messages).
    frames: Vec<Tree>,
    /// Every captured `session.history` value.
    pages: Vec<Tree>,
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wire");
        let mut files = Vec::new();
        let mut dirs = vec![dir];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p)
                } else {
                    files.push(p)
                }
            }
        }
        files.sort();
        let mut c = Corpus { sse_bodies: Vec::new(), frames: Vec::new(), pages: Vec::new() };
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".sse.txt") {
                let body = text.replace("\r\n", "\n");
                let body = body.split_once("\n\n").map_or(String::new(), |(_, b)| b.to_string());
                for line in body.lines() {
                    if let Some(d) = line.strip_prefix("data: ").and_then(Tree::parse) {
                        c.frames.push(d);
                    }
                }
                c.sse_bodies.push(body.into_bytes());
            } else {
                for line in text.lines() {
                    let Some(at) = line.find('{') else { continue };
                    let Some(t) = Tree::parse(&line[at..]) else { continue };
                    if line.starts_with("< [") {
                        c.frames.push(t);
                    } else if let Some(v) =
                        t.get("result").and_then(|r| r.get("value")).filter(|v| v.get("events").is_some())
                    {
                        c.pages.push(v.clone());
                    }
                }
            }
        }
        assert!(c.frames.len() > 50 && !c.pages.is_empty() && !c.sse_bodies.is_empty(), "the captures are read");
        c
    })
}

// ---- a JSON tree that keeps member order (and so can repeat a member) -----------------

#[derive(Debug, Clone)]
enum Tree {
    /// A scalar as JSON text.
    Leaf(String),
    Arr(Vec<Tree>),
    Obj(Vec<(String, Tree)>),
}

impl Tree {
    fn parse(text: &str) -> Option<Tree> {
        serde_json::from_str(text).ok()
    }

    fn get(&self, key: &str) -> Option<&Tree> {
        match self {
            Tree::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Tree::Leaf(s) => out.push_str(s),
            Tree::Arr(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Tree::Obj(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    fn text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn count_objects(&self) -> usize {
        match self {
            Tree::Leaf(_) => 0,
            Tree::Arr(a) => a.iter().map(Tree::count_objects).sum(),
            Tree::Obj(m) => 1 + m.iter().map(|(_, v)| v.count_objects()).sum::<usize>(),
        }
    }

    /// The `n`th object in pre-order.
    fn nth_object(&mut self, n: &mut usize) -> Option<&mut Vec<(String, Tree)>> {
        match self {
            Tree::Leaf(_) => None,
            Tree::Arr(a) => a.iter_mut().find_map(|t| t.nth_object(n)),
            Tree::Obj(m) => {
                if *n == 0 {
                    return Some(m);
                }
                *n -= 1;
                m.iter_mut().find_map(|(_, v)| v.nth_object(n))
            }
        }
    }

    /// A member list picked by `at`, if the tree has objects.
    fn pick_object(&mut self, at: &Index) -> Option<&mut Vec<(String, Tree)>> {
        let n = self.count_objects();
        if n == 0 {
            return None;
        }
        self.nth_object(&mut at.index(n))
    }

    fn leaves<'a>(&'a mut self, out: &mut Vec<&'a mut String>) {
        match self {
            Tree::Leaf(s) => out.push(s),
            Tree::Arr(a) => a.iter_mut().for_each(|t| t.leaves(out)),
            Tree::Obj(m) => m.iter_mut().for_each(|(_, v)| v.leaves(out)),
        }
    }

    /// Sets every `sessionId` member to `id`.
    fn route_to(&mut self, id: &str) {
        match self {
            Tree::Leaf(_) => {}
            Tree::Arr(a) => a.iter_mut().for_each(|t| t.route_to(id)),
            Tree::Obj(m) => {
                for (k, v) in m.iter_mut() {
                    if k == "sessionId" {
                        *v = Tree::Leaf(serde_json::to_string(id).unwrap());
                    } else {
                        v.route_to(id);
                    }
                }
            }
        }
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Tree;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Tree, E> {
                Ok(Tree::Leaf(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Tree, E> {
                Ok(Tree::Leaf(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Tree, E> {
                Ok(Tree::Leaf(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Tree, E> {
                Ok(Tree::Leaf(serde_json::to_string(&v).unwrap()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Tree, E> {
                Ok(Tree::Leaf(serde_json::to_string(v).unwrap()))
            }
            fn visit_unit<E>(self) -> Result<Tree, E> {
                Ok(Tree::Leaf("null".into()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Tree, A::Error> {
                let mut v = Vec::new();
                while let Some(t) = a.next_element()? {
                    v.push(t);
                }
                Ok(Tree::Arr(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Tree, A::Error> {
                let mut m = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, Tree>()? {
                    m.push((k, v));
                }
                Ok(Tree::Obj(m))
            }
        }
        d.deserialize_any(V)
    }
}

// ---- mutations ---------------------------------------------------------------------------

/// Numbers a hostile host may send where the client expects a seq, a turn or a time.
const HOSTILE: &[&str] = &[
    "0",
    "1",
    "2",
    "5",
    "-1",
    "-2",
    "1.5",
    "1e3",
    "9007199254740991",
    "9007199254740992",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "1e300",
    "null",
    "\"7\"",
    "true",
    "[]",
    "{}",
];

#[derive(Debug, Clone)]
enum Mutation {
    None,
    /// A leaf becomes a hostile value.
    Value(Index, Index),
    /// A member is written twice (the copy with a hostile value half the time).
    Repeat(Index, Index, Option<Index>),
    Drop(Index, Index),
    Reverse(Index),
    /// The text is cut at this share of its length.
    Cut(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        2 => Just(Mutation::None),
        4 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Value(a, b)),
        3 => (any::<Index>(), any::<Index>(), any::<Option<Index>>()).prop_map(|(a, b, c)| Mutation::Repeat(a, b, c)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Drop(a, b)),
        1 => any::<Index>().prop_map(Mutation::Reverse),
        1 => any::<Index>().prop_map(Mutation::Cut),
    ]
}

fn mutate(tree: &Tree, m: &Mutation) -> String {
    let mut t = tree.clone();
    match m {
        Mutation::None => {}
        Mutation::Value(at, v) => {
            let mut leaves = Vec::new();
            t.leaves(&mut leaves);
            if !leaves.is_empty() {
                let i = at.index(leaves.len());
                *leaves[i] = v.get(HOSTILE).to_string();
            }
        }
        Mutation::Repeat(at, member, value) => {
            if let Some(obj) = t.pick_object(at).filter(|o| !o.is_empty()) {
                let j = member.index(obj.len());
                let mut copy = obj[j].clone();
                if let Some(v) = value {
                    copy.1 = Tree::Leaf(v.get(HOSTILE).to_string());
                }
                obj.insert(j + 1, copy);
            }
        }
        Mutation::Drop(at, member) => {
            if let Some(obj) = t.pick_object(at).filter(|o| !o.is_empty()) {
                let j = member.index(obj.len());
                obj.remove(j);
            }
        }
        Mutation::Reverse(at) => {
            if let Some(obj) = t.pick_object(at) {
                obj.reverse();
            }
        }
        Mutation::Cut(at) => {
            let text = t.text();
            let mut n = at.index(text.len().max(1));
            while !text.is_char_boundary(n) {
                n -= 1;
            }
            return text[..n].to_string();
        }
    }
    t.text()
}

fn runner(cases: u32) -> TestRunner {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

// ---- 1. the SSE parser is split-independent ---------------------------------------------

fn owned(items: Vec<SseItem<'_>>) -> Vec<String> {
    items
        .into_iter()
        .map(|i| match i {
            SseItem::Comment(c) => format!("comment {c}"),
            SseItem::Data(d) => format!("data {d}"),
            SseItem::Oversize(n) => format!("oversize {n}"),
        })
        .collect()
}

fn feed(body: &[u8], cuts: &[usize]) -> Vec<String> {
    let mut p = SseParser::default();
    let mut out = Vec::new();
    let mut at = 0;
    for &c in cuts {
        let c = c.clamp(at, body.len());
        p.push(&body[at..c], &mut out);
        at = c;
    }
    p.push(&body[at..], &mut out);
    owned(out)
}

#[test]
fn hostile_property_sse_output_does_not_depend_on_how_the_captures_are_split() {
    let bodies = &corpus().sse_bodies;
    // Captured bodies with `\n` and with `\r\n` line ends, and small bodies of SSE's own
    // alphabet, where every split lands next to a CR or LF.
    let alphabet =
        prop::collection::vec(prop::sample::select(vec![b'd', b'a', b't', b':', b' ', b'x', b'\r', b'\n']), 0..48);
    let body = prop_oneof![
        (any::<Index>(), any::<bool>()).prop_map(move |(i, crlf)| {
            let b = i.get(bodies).clone();
            if crlf {
                String::from_utf8(b).unwrap().replace('\n', "\r\n").into_bytes()
            } else {
                b
            }
        }),
        alphabet.prop_map(|a| [b"data: ".as_slice(), &a, b"\r\n\r\n"].concat()),
    ];
    let case = body.prop_flat_map(|b| {
        let n = b.len();
        (Just(b), prop::collection::vec(0..=n, 0..12))
    });
    let checked = Cell::new(0u64);
    runner(1_000)
        .run(&case, |(body, mut cuts)| {
            cuts.sort_unstable();
            let whole = feed(&body, &[]);
            prop_assert_eq!(feed(&body, &cuts), whole.clone(), "cuts {:?}", cuts);
            // Byte by byte, with an empty chunk after every byte (small bodies: the captures
            // get this once, below).
            if body.len() < 256 {
                let every: Vec<usize> = (0..=body.len()).flat_map(|i| [i, i]).collect();
                prop_assert_eq!(feed(&body, &every), whole);
            }
            checked.set(checked.get() + 1);
            Ok(())
        })
        .unwrap();
    for body in bodies {
        let every: Vec<usize> = (0..=body.len()).flat_map(|i| [i, i]).collect();
        assert_eq!(feed(body, &every), feed(body, &[]), "a capture fed byte by byte");
    }
    println!("sse split property: {} bodies split at random, small ones and the captures at every byte", checked.get());
}

// ---- 2. one-pass and general readers agree ----------------------------------------------

/// An event as the one-pass reader holds it (chunks read), for comparing readings.
fn frame_as_read(f: Frame) -> Frame {
    match f {
        Frame::Event(mut e) => {
            e.event = e.event.chunk_read();
            Frame::Event(e)
        }
        f => f,
    }
}

fn page_as_read(mut p: HistoryValue) -> HistoryValue {
    for i in &mut p.events {
        i.event = i.event.chunk_read();
    }
    p
}

#[test]
fn hostile_property_one_pass_and_general_readers_agree_on_mutated_captures() {
    let c = corpus();
    let case = (any::<bool>(), any::<Index>(), mutation());
    let (frames, one_pass) = (Cell::new(0u64), Cell::new(0u64));
    runner(10_000)
        .run(&case, |(is_page, pick, m)| {
            if is_page {
                let body = format!(
                    r#"{{"type":"server-response","rpcId":"r1","result":{{"ok":true,"value":{}}}}}"#,
                    mutate(pick.get(&c.pages), &m)
                );
                let form = ResponseForm::Envelope { rpc_id: "r1".into() };
                let general = parse_unary_response(&body, &form)
                    .ok()
                    .and_then(|r| r.ok())
                    .and_then(|v| read::<HistoryValue>(v.text()).ok())
                    .filter(|v| v.validate().is_ok());
                // The client's path: the body streamed in pieces (of 1 to 64 bytes here) through
                // the page reader. It must read exactly what the general reader reads of the
                // whole body (a page checked contiguous), and refuse exactly what it refuses.
                let mut reader = PageReader::default();
                for piece in body.as_bytes().chunks(1 + pick.index(64)) {
                    reader.feed(piece);
                }
                let (rest, streamed) = reader.finish();
                let rest = rest.ok().and_then(|rest| parse_unary_response(&rest, &form).ok()).and_then(|r| r.ok());
                let value = rest.map(|v| read::<HistoryValue>(v.text()).and_then(|v| v.validate().map(|_| v)));
                let page = value.and_then(|v| joined(v, streamed).ok());
                let streamed = page.map(|p| HistoryValue {
                    events: p.events.iter().map(|e| HistoryItem { event: e.clone(), view: None }).collect(),
                    has_more: p.has_more,
                    projections: p.projections,
                });
                let without_views = |mut v: HistoryValue| {
                    v.events.iter_mut().for_each(|i| i.view = None);
                    page_as_read(v)
                };
                prop_assert_eq!(streamed.clone().map(page_as_read), general.map(without_views), "{}", body);
                if streamed.is_some() {
                    one_pass.set(one_pass.get() + 1);
                }
            } else {
                let text = mutate(pick.get(&c.frames), &m);
                let general = inbound::parse_frame(&text);
                if let Some(f) = agent_session_onepass::event_frame(&text) {
                    let Ok(g) = &general else {
                        return Err(TestCaseError::fail(format!(
                            "one pass read a frame the general reader refuses: {text}"
                        )));
                    };
                    prop_assert_eq!(&f.rpc_id, &g.rpc_id);
                    prop_assert_eq!(frame_as_read(f.frame), frame_as_read(g.frame.clone()));
                    one_pass.set(one_pass.get() + 1);
                }
                // A streamed chunk's data, both ways.
                if let Ok(g) = &general {
                    if let Frame::Event(e) = &g.frame {
                        if let EventData::Text(data) = &e.event.data {
                            prop_assert_eq!(
                                agent_session_onepass::chunk_data(data.text()),
                                ChunkData::read(data.text()),
                                "{}",
                                data.text()
                            );
                        }
                    }
                }
            }
            frames.set(frames.get() + 1);
            Ok(())
        })
        .unwrap();
    println!("reader agreement property: {} mutated texts, {} read by the client (frames in one pass, pages streamed in pieces)", frames.get(), one_pass.get());
    assert!(one_pass.get() > frames.get() / 10, "the one-pass readers were exercised");
}

// ---- 3. HostClient under hostile input ----------------------------------------------------

#[derive(Debug, Clone)]
enum Step {
    /// A mutated captured frame on the mux (routed to the resident session most times).
    Frame(Index, Mutation, bool),
    /// The oldest pending history request answered with a mutated captured page.
    CapturedPage(Index, Mutation),
    /// The oldest pending history request answered with events at these seqs.
    Page(Vec<Index>, bool),
    /// A live event at a hostile or nearby seq.
    Live(Index, bool),
    /// `session/subscribed` with a hostile or nearby `lastSeq`.
    Subscribed(Index, bool),
    LoadOlder,
    Resync,
    Open,
    Advance(u32),
    Reconnect,
}

/// A seq near the window (`near`) or from the hostile list.
fn seq_text(d: &Driver, i: &Index, near: bool) -> String {
    if near {
        let tail = d.client.session(SID).map_or(-1, |s| s.tail_seq());
        (tail + i.index(7) as i64 - 3).to_string()
    } else {
        i.get(HOSTILE).to_string()
    }
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (any::<Index>(), mutation(), prop::bool::weighted(0.8)).prop_map(|(i, m, r)| Step::Frame(i, m, r)),
        2 => (any::<Index>(), mutation()).prop_map(|(i, m)| Step::CapturedPage(i, m)),
        2 => (prop::collection::vec(any::<Index>(), 0..4), any::<bool>()).prop_map(|(s, h)| Step::Page(s, h)),
        4 => (any::<Index>(), prop::bool::weighted(0.7)).prop_map(|(i, n)| Step::Live(i, n)),
        1 => (any::<Index>(), any::<bool>()).prop_map(|(i, n)| Step::Subscribed(i, n)),
        1 => Just(Step::LoadOlder),
        1 => Just(Step::Resync),
        1 => Just(Step::Open),
        1 => (0u32..40_000).prop_map(Step::Advance),
        1 => Just(Step::Reconnect),
    ]
}

fn apply(d: &mut Driver, s: &Step) {
    let c = corpus();
    match s {
        Step::Frame(i, m, route) => {
            let mut t = i.get(&c.frames).clone();
            if *route {
                t.route_to(SID);
            }
            let text = mutate(&t, m);
            let stream = d.mux();
            d.input(Input::StreamBytes { stream, bytes: format!("data: {text}\n\n").into_bytes() });
        }
        Step::CapturedPage(i, m) => {
            let text = mutate(i.get(&c.pages), m);
            d.answer("session.history", &text);
        }
        Step::Page(seqs, has_more) => {
            let first = seqs.first().map(|i| seq_text(d, i, i.index(3) > 0));
            let events: Vec<String> = match first.as_deref().and_then(|f| f.parse::<i128>().ok()) {
                // Mostly contiguous runs from a hostile or nearby start, sometimes not.
                Some(f) if seqs.len() > 1 && seqs[1].index(4) > 0 => {
                    (0..seqs.len() as i128).map(|k| user(&(f + k).to_string())).collect()
                }
                _ => seqs.iter().map(|i| user(&seq_text(d, i, false))).collect(),
            };
            d.answer("session.history", &page(&events, *has_more));
        }
        Step::Live(i, near) => {
            let seq = seq_text(d, i, *near);
            d.frame("session/event", &super::driver::live(&seq));
        }
        Step::Subscribed(i, near) => {
            let seq = seq_text(d, i, *near);
            d.frame(
                "session/subscribed",
                &format!(r#"{{"type":"session/subscribed","sessionId":"{SID}","lastSeq":{seq}}}"#),
            );
        }
        Step::LoadOlder => d.op(SID, SessionOp::LoadOlder),
        Step::Resync => d.input(Input::Resync { session: SID.into() }),
        Step::Open => d.op(SID, SessionOp::Open),
        Step::Advance(ms) => d.advance(*ms as f64),
        Step::Reconnect => {
            let stream = d.mux();
            d.input(Input::StreamEnded { stream, why: "dropped".into() });
            d.advance(120_000.0);
            d.open_pending_streams();
            d.answer("host.describe", super::driver::DESCRIBE);
        }
    }
}

#[test]
fn hostile_property_host_client_survives_mutated_captures_and_hostile_values_with_its_window_whole() {
    const CASES: u32 = 400;
    const STEPS: usize = 256;
    let inputs = Cell::new(0u64);
    runner(CASES)
        .run(&prop::collection::vec(step(), STEPS), |steps| {
            let mut d = Driver::established();
            for s in &steps {
                apply(&mut d, s);
                inputs.set(inputs.get() + 1);
                for id in d.client.router().ids() {
                    assert_window(d.client.session(&id).expect("resident"));
                }
            }
            Ok(())
        })
        .unwrap();
    println!("host client property: {} hostile inputs, no panic, every window whole", inputs.get());
    assert!(inputs.get() >= 100_000);
}
