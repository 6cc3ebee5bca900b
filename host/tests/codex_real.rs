//! The host driving the real `codex app-server` (the pinned 0.169.0 under `agents/`) against
//! the fake Responses server (`tests/fake-models/`): approvals, cancel, restart, no orphans.
//! Every process started here is killed at the end, also when a test panics.

mod common;

use agent_session_wire::Frame;
use common::fake_model::{pinned, root, FakeServer};
use common::{FrameStream, Host, Launch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Real model turns take longer than the scripted agent's.
const TURN_WAIT: Duration = Duration::from_secs(30);

/// Processes whose environment names `codex_home` as CODEX_HOME, or whose parent is `parent`.
fn codex_processes(codex_home: &Path, parent: Option<u32>) -> Vec<(u32, String)> {
    let needle = format!("CODEX_HOME={}", codex_home.display()).into_bytes();
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return found };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // `pid (comm) state ppid ...`: comm may hold spaces, so read after the last ')'.
        let after = stat.rsplit_once(')').map(|(_, a)| a).unwrap_or_default();
        let mut f = after.split_whitespace();
        let state = f.next().unwrap_or_default();
        let ppid = f.next().and_then(|p| p.parse::<u32>().ok());
        let pgrp = f.next().unwrap_or_default().to_string();
        if state == "Z" {
            continue; // exited, only not yet reaped
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let ours = environ.split(|&b| b == 0).any(|kv| kv == needle.as_slice());
        if ours || (parent.is_some() && ppid == parent) {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmd: String = String::from_utf8_lossy(&cmd).replace('\0', " ").chars().take(120).collect();
            found.push((pid, format!("ppid {ppid:?} pgrp {pgrp}: {cmd}")));
        }
    }
    found
}

/// The host on the real codex, its CODEX_HOME and the fake server. Drop order: the host
/// (SIGKILL; codex follows by its parent-death signal), then any codex left (SIGKILL), then
/// the fake server.
struct Real {
    host: Host,
    reaper: Reaper,
    fake: FakeServer,
    codex_home: PathBuf,
    work: PathBuf,
    _dir: tempfile::TempDir,
}

/// Kills every process of this test's CODEX_HOME on drop.
struct Reaper(PathBuf);

impl Drop for Reaper {
    fn drop(&mut self) {
        for (pid, _) in codex_processes(&self.0, None) {
            // SAFETY: signalling a process this test started (it carries our CODEX_HOME).
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
        }
    }
}

impl Real {
    fn start() -> Real {
        let bin = pinned("@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");
        let dir = tempfile::tempdir().expect("tempdir");
        let codex_home = dir.path().join("codex-home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).expect("work dir");
        let fake = FakeServer::start("openai-responses.mjs", "fake-responses listening on ", dir.path());
        // The config.toml exactly as the fake's own helper writes it.
        let module = root().join("tests/fake-models/codex-home.mjs");
        let script = format!(
            "const m = await import({:?}); m.writeCodexHome(process.env.DIR, process.env.URL);",
            format!("file://{}", module.display())
        );
        let st = Command::new("node")
            .args(["--input-type=module", "-e", &script])
            .env("DIR", &codex_home)
            .env("URL", &fake.url)
            .status()
            .expect("node");
        assert!(st.success(), "writing config.toml failed");
        let launch = Launch {
            env: vec![
                ("CODEX_HOME".into(), codex_home.display().to_string()),
                ("FAKE_OPENAI_KEY".into(), "fake-key-not-secret".into()),
                ("OPENAI_API_KEY".into(), String::new()),
            ],
            stderr: None,
        };
        let args =
            ["--agent", "codex", "--codex-bin", bin.to_str().expect("utf-8"), "--codex-approval-policy", "untrusted"];
        let host = Host::launch(&args, launch);
        Real { host, reaper: Reaper(codex_home.clone()), fake, codex_home, work, _dir: dir }
    }

    fn session(&self) -> String {
        let v = self.host.call("session.create", json!({ "cwd": self.work.display().to_string() }));
        v["sessionId"].as_str().expect("sessionId").to_string()
    }

    fn wait_turn_end(&self, sid: &str, turn: u64) -> (String, Vec<Value>) {
        let deadline = Instant::now() + TURN_WAIT;
        loop {
            let events = self.host.all_events(sid);
            if let Some(end) = events.iter().find(|e| e["type"] == "turn/end" && e["data"]["turn"] == turn) {
                return (end["data"]["reason"]["kind"].as_str().unwrap_or_default().to_string(), events);
            }
            assert!(Instant::now() < deadline, "turn {turn} did not end; log: {:?}", common::types(&events));
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn assistant_text(events: &[Value]) -> String {
        events.iter().filter(|e| e["type"] == "assistant/message").map(|e| e["data"].to_string()).collect()
    }

    /// Waits (bounded) until no codex of this test is left.
    fn assert_no_codex_within(&self, what: &str, parent: Option<u32>, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let left = codex_processes(&self.codex_home, parent);
            if left.is_empty() {
                return;
            }
            assert!(Instant::now() < deadline, "{what}: processes of this CODEX_HOME left after {within:?}: {left:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn until_frame(
    stream: &mut FrameStream,
    what: &str,
    pred: impl Fn(&Frame) -> bool,
) -> agent_session_wire::InboundFrame {
    let deadline = Instant::now() + TURN_WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match stream.next(left) {
            Some(common::Item::Frame(f)) if pred(&f.frame) => return f,
            Some(common::Item::Frame(_) | common::Item::Comment(_)) => {}
            other => panic!("waiting for {what}: got {other:?}"),
        }
    }
}

#[test]
fn implement_turn_asks_approval_and_runs_the_command() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Implement it [fake:implement]");
    let asked = until_frame(&mut mux, "approval/requested", |f| matches!(f, Frame::ApprovalRequested(_)));
    let Frame::ApprovalRequested(a) = &asked.frame else { unreachable!() };
    assert!(!a.tool_name.is_empty(), "{a:?}");
    let body = json!({ "type": "client-response", "rpcId": asked.rpc_id,
        "result": { "ok": true, "value": { "outcome": "allowed-once" } } });
    let raw = r.host.post("/api/respond", &body.to_string());
    assert_eq!(raw.json(), json!({ "accepted": true }), "{}", raw.body);
    let resolved = until_frame(&mut mux, "approval/resolved", |f| matches!(f, Frame::ApprovalResolved(_)));
    let Frame::ApprovalResolved(res) = &resolved.frame else { unreachable!() };
    assert_eq!(res.approval_id, a.approval_id);
    let (kind, events) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let call = events.iter().find(|e| e["type"] == "tool/call").expect("a tool/call");
    let result = events.iter().find(|e| e["type"] == "tool/result").expect("a tool/result");
    assert_eq!(call["data"]["callId"], result["data"]["callId"]);
    assert!(call.to_string().contains("echo implemented"), "the shell command's call: {call}");
    if let Some(id) = &a.call_id {
        assert_eq!(call["data"]["callId"], id.as_str(), "the approval names the call");
    }
    assert!(Real::assistant_text(&events).contains("Done: the plan is implemented."));
    assert_eq!(std::fs::read_to_string(r.work.join("NOTES.md")).unwrap_or_default().trim(), "implemented");
}

#[test]
fn cancel_interrupts_a_long_turn_and_the_next_prompt_completes() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Write a lot [fake:long]");
    until_frame(&mut mux, "the first chunk", |f| matches!(f, Frame::Event(e) if e.event.kind == "assistant/chunk"));
    let asked = Instant::now();
    assert_eq!(r.host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
    let (kind, _) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "interrupted");
    assert!(asked.elapsed() < Duration::from_secs(5), "cancel took {:?}", asked.elapsed());
    r.host.prompt(&sid, "queue", "Say hello [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "completed");
    assert!(Real::assistant_text(&events).contains("Hello from the fake model."));
}

#[test]
fn after_a_host_sigkill_the_thread_resumes_with_its_history() {
    let mut r = Real::start();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "First words: pineapple [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 1).0, "completed");
    r.host.kill9_and_restart();
    r.host.prompt(&sid, "queue", "Second words [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let posts: Vec<Value> = r.fake.logged().into_iter().filter(|q| q["method"] == "POST").collect();
    let last = posts.last().expect("a model request");
    let input = last["body"]["input"].to_string();
    assert!(input.contains("pineapple"), "the resumed thread sent the earlier turn: {input}");
    assert!(input.contains("Hello from the fake model."), "and the earlier answer: {input}");
    assert!(input.contains("Second words"));
}

#[test]
fn no_codex_outlives_the_host() {
    let mut r = Real::start();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Hi [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 1).0, "completed");
    let pid = r.host.pid();
    assert!(!codex_processes(&r.codex_home, Some(pid)).is_empty(), "a codex child runs");
    r.host.signal_and_wait(libc::SIGKILL, Duration::from_secs(5));
    r.assert_no_codex_within("after SIGKILL of the host", Some(pid), Duration::from_secs(2));

    // A normal stop too.
    r.host.restart();
    r.host.prompt(&sid, "queue", "Hi again [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 2).0, "completed");
    let pid = r.host.pid();
    assert!(!codex_processes(&r.codex_home, Some(pid)).is_empty(), "a codex child runs");
    r.host.signal_and_wait(libc::SIGTERM, Duration::from_secs(5));
    r.assert_no_codex_within("after SIGTERM of the host", Some(pid), Duration::from_secs(2));
    let _ = &r.reaper;
}
