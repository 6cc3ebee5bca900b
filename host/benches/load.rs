//! Load check (not a test):
//! `cargo bench -p agent-session-host --bench load`
//! (the override keeps cargo from building the cdylib `agent-session` twice, see README).
//!
//! 1. Append + fan-out: N events appended one transaction each through the live path
//!    (commit, then broadcast) while 100 mux subscribers read them.
//! 2. History-page latency on a 100k-event session vs a 100-event session (same page size),
//!    and their ratio (goal ≤ 1.5).
//!
//! Env: LOAD_EVENTS (default 20000), LOAD_SUBSCRIBERS (default 100).

#[path = "../tests/common/mod.rs"]
mod common;

use agent_session_onepass::sse::{SseItem, SseParser};
use serde_json::{json, Value};
use std::io::Read;
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

struct Client {
    base: String,
    agent: ureq::Agent,
}

impl Client {
    fn post(&self, path: &str, body: &Value) -> Value {
        // The host's fence refuses a POST that is not `application/json` (415).
        let resp = self
            .agent
            .post(&format!("{}{path}", self.base))
            .set("content-type", "application/json")
            .send_string(&body.to_string())
            .expect("post");
        serde_json::from_str(&resp.into_string().expect("body")).expect("json")
    }
    fn admin(&self, cmd: Value) -> Value {
        self.post("/admin/faults", &cmd)["results"][0].clone()
    }
    fn history(&self, sid: &str, before: Option<u64>, max: u32) -> Value {
        let mut payload = json!({ "sessionId": sid, "maxMessages": max });
        if let Some(b) = before {
            payload["beforeSeq"] = json!(b);
        }
        let env = self.post(
            "/api/session.history",
            &json!({ "type": "client-request", "rpcId": "h", "method": "session.history", "payload": payload }),
        );
        env["result"]["value"].clone()
    }
}

/// One subscriber: counts `session/event` frames of `sid`; reports the instant it has `n`.
fn subscriber(base: String, sid: String, n: u64, ready: mpsc::Sender<()>, done: mpsc::Sender<Result<Instant, String>>) {
    std::thread::spawn(move || {
        let agent = ureq::AgentBuilder::new().build();
        let mut reader = agent.get(&format!("{base}/api/events.mux")).call().expect("mux").into_reader();
        let mut parser = SseParser::default();
        let mut buf = vec![0u8; 64 * 1024];
        let mut count = 0;
        let mut subscribed = false;
        let needle = format!("\"sessionId\":\"{sid}\"");
        loop {
            let got = match reader.read(&mut buf) {
                Ok(0) | Err(_) => {
                    let _ = done.send(Err(format!("stream ended after {count} events")));
                    return;
                }
                Ok(k) => k,
            };
            let mut out = Vec::new();
            parser.push(&buf[..got], &mut out);
            for item in out {
                if let SseItem::Data(d) = item {
                    if d.contains("\"method\":\"session/subscribed\"") && !subscribed {
                        subscribed = true;
                        let _ = ready.send(());
                    } else if d.contains("\"method\":\"session/event\"") && d.contains(&needle) {
                        count += 1;
                        if count == n {
                            let _ = done.send(Ok(Instant::now()));
                            return;
                        }
                    } else if d.contains("\"method\":\"stream/error\"") {
                        let _ = done.send(Err(format!("stream/error after {count} events: {d}")));
                        return;
                    }
                }
            }
        }
    });
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn time_pages(c: &Client, sid: &str, before: Option<u64>, runs: usize) -> (f64, f64, usize) {
    let mut ms = Vec::with_capacity(runs);
    let mut len = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let page = c.history(sid, before, 10);
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        len = page["events"].as_array().map_or(0, |a| a.len());
    }
    ms.sort_by(f64::total_cmp);
    (percentile(&ms, 0.5), percentile(&ms, 0.95), len)
}

fn main() {
    let events = env_num("LOAD_EVENTS", 20_000);
    let subscribers = env_num("LOAD_SUBSCRIBERS", 100);
    // The tests' harness starts the host (ephemeral port, temporary database) and stops it on drop.
    let host = common::Host::start(&["--faults", "--chunk-delay-ms", "0"]);
    let base = host.base.clone();
    let c = Client { base: base.clone(), agent: ureq::AgentBuilder::new().timeout(Duration::from_secs(120)).build() };

    // 1. Append + fan-out.
    let sid = c.admin(json!({ "command": "seed", "events": 0 }))["sessionId"].as_str().expect("sid").to_string();
    let (ready_tx, ready_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel();
    for _ in 0..subscribers {
        subscriber(base.clone(), sid.clone(), events, ready_tx.clone(), done_tx.clone());
    }
    for _ in 0..subscribers {
        ready_rx.recv_timeout(Duration::from_secs(30)).expect("subscriber ready");
    }
    let start = Instant::now();
    let seeded = c.admin(json!({ "command": "seed", "sessionId": sid, "events": events, "broadcast": true }));
    let append_ms = seeded["elapsedMs"].as_f64().unwrap_or(f64::NAN);
    let mut last = start;
    let mut failed = Vec::new();
    for _ in 0..subscribers {
        match done_rx.recv_timeout(Duration::from_secs(300)) {
            Ok(Ok(t)) => last = last.max(t),
            Ok(Err(e)) => failed.push(e),
            Err(_) => failed.push("timed out".into()),
        }
    }
    let fanout_s = last.duration_since(start).as_secs_f64();
    println!("append+fan-out: {events} events, {subscribers} SSE subscribers");
    println!(
        "  appended (commit then broadcast): {:.0} events/s ({append_ms:.0} ms)",
        events as f64 / (append_ms / 1000.0)
    );
    println!(
        "  delivered to all subscribers:     {:.0} events/s per subscriber, {:.0} frames/s total ({:.2} s)",
        events as f64 / fanout_s,
        (events * (subscribers - failed.len() as u64)) as f64 / fanout_s,
        fanout_s
    );
    if !failed.is_empty() {
        println!("  {} subscribers failed: {:?}", failed.len(), &failed[..failed.len().min(3)]);
    }

    // 2. History-page latency: 100k events vs 100 events, same page size (10 messages).
    let big = c.admin(json!({ "command": "seed", "events": 100_000, "messageEvery": 10 }));
    let small = c.admin(json!({ "command": "seed", "events": 100, "messageEvery": 10 }));
    let (big, small) =
        (big["sessionId"].as_str().unwrap().to_string(), small["sessionId"].as_str().unwrap().to_string());
    let runs = 300;
    let _ = time_pages(&c, &big, None, 20);
    let _ = time_pages(&c, &small, None, 20);
    let (b50, b95, blen) = time_pages(&c, &big, None, runs);
    let (s50, s95, slen) = time_pages(&c, &small, None, runs);
    let (m50, m95, mlen) = time_pages(&c, &big, Some(50_000), runs);
    println!("history page (maxMessages 10, {runs} runs each, median / p95):");
    println!("  100k-event session, tail page:      {b50:.3} ms / {b95:.3} ms ({blen} events)");
    println!("  100k-event session, beforeSeq 50000: {m50:.3} ms / {m95:.3} ms ({mlen} events)");
    println!("  100-event session, tail page:       {s50:.3} ms / {s95:.3} ms ({slen} events)");
    println!("  ratio 100k/100 (median, tail): {:.2}  (goal <= 1.5)", b50 / s50);
    println!("  ratio 100k/100 (median, mid):  {:.2}", m50 / s50);

    drop(host);
}
