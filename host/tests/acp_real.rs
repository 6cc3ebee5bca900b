//! The host driving a real ACP agent no one here wrote: `claude-code-acp` (0.16.2, the Claude
//! Agent SDK over the pinned native Claude Code under `agents/`), against the fake Anthropic
//! Messages server (`tests/fake-models/anthropic-messages.mjs`): plan mode, the proposed plan and
//! its approval, a command approval, cancel, a host restart and a crashed agent (both resumed
//! with `session/load`), no orphans. Every process started here is killed at the end, also when
//! a test panics.
//!
//! Questions: this agent has none. `claude-code-acp` disables `AskUserQuestion` and ACP has no
//! user-input request, so the session's capabilities say `supportsStructuredUserInput: false`
//! (asserted below) and the fake's question comes back to the model as a failed tool call.

mod common;

use agent_session_wire::Frame;
use common::fake_model::{pinned, FakeServer};
use common::{FrameStream, Host, Launch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Real agent turns (a node agent starting a native CLI) take longer than the scripted agent's.
const TURN_WAIT: Duration = Duration::from_secs(60);

/// The streamed model requests (the agent's side requests have no tools).
fn model_turns(fake: &FakeServer) -> Vec<Value> {
    fake.logged()
        .into_iter()
        .filter(|q| q["body"]["stream"] == true && q["body"]["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .collect()
}

/// Live processes whose environment names `home` as HOME (the agent and the claude it starts
/// inherit the host's), or whose parent is `parent`: `(pid, ppid, command)`.
fn agent_processes(home: &Path, parent: Option<u32>) -> Vec<(u32, Option<u32>, String)> {
    let needle = format!("HOME={}", home.display()).into_bytes();
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return found };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let after = stat.rsplit_once(')').map(|(_, a)| a).unwrap_or_default();
        let mut f = after.split_whitespace();
        let state = f.next().unwrap_or_default();
        let ppid = f.next().and_then(|p| p.parse::<u32>().ok());
        if state == "Z" || pid == me {
            continue;
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let ours = environ.split(|&b| b == 0).any(|kv| kv == needle.as_slice());
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmd: String = String::from_utf8_lossy(&cmd).replace('\0', " ").chars().take(160).collect();
        // The host itself carries HOME too: only what it started counts.
        if cmd.contains("agent-session-host") {
            continue;
        }
        if ours || (parent.is_some() && ppid == parent) {
            found.push((pid, ppid, cmd));
        }
    }
    found
}

/// Kills every process of this test's HOME on drop (after the host).
struct Reaper(PathBuf);

impl Drop for Reaper {
    fn drop(&mut self) {
        for (pid, _, _) in agent_processes(&self.0, None) {
            // SAFETY: signalling a process this test started (it carries our HOME).
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
        }
    }
}

/// The host on the real agent, its HOME and the fake server. Drop order: the host (SIGKILL;
/// the agent follows by its parent-death signal and the guard), then anything left, then the
/// fake server.
struct Real {
    host: Host,
    _reaper: Reaper,
    fake: FakeServer,
    home: PathBuf,
    work: PathBuf,
    _dir: tempfile::TempDir,
}

impl Real {
    fn start() -> Real {
        let (acp, claude) = (pinned(".bin/claude-code-acp"), pinned("@anthropic-ai/claude-code-linux-x64/claude"));
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&work).expect("work dir");
        let fake = FakeServer::start("anthropic-messages.mjs", "fake-messages listening on ", dir.path());
        let env = [
            ("HOME", home.display().to_string()),
            ("ANTHROPIC_API_KEY", "fake-key-not-secret".into()),
            ("ANTHROPIC_BASE_URL", fake.url.clone()),
            ("CLAUDE_CODE_EXECUTABLE", claude.display().to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("DISABLE_TELEMETRY", "1".into()),
            // Anything but 1 makes the SDK pass a flag the CLI refuses as root.
            ("IS_SANDBOX", "1".into()),
        ];
        let launch = Launch { env: env.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(), stderr: None };
        let host =
            Host::launch(&["--agent", "acp", "--chunk-delay-ms", "0", "--", acp.to_str().expect("utf-8")], launch);
        Real { host, _reaper: Reaper(home.clone()), fake, home, work, _dir: dir }
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

    fn turn_events(events: &[Value], turn: u64) -> Vec<Value> {
        events.iter().filter(|e| e["data"]["turn"] == turn).cloned().collect()
    }

    fn assistant_text(events: &[Value]) -> String {
        events.iter().filter(|e| e["type"] == "assistant/message").map(|e| e["data"].to_string()).collect()
    }

    fn projections(&self, sid: &str) -> Value {
        self.host.history(sid, json!({}))["projections"]["values"].clone()
    }

    /// The agent process the host started (node running claude-code-acp).
    fn agent_pid(&self) -> u32 {
        let host = self.host.pid();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let agent = agent_processes(&self.home, Some(host)).into_iter().find(|(_, ppid, _)| *ppid == Some(host));
            if let Some((pid, _, _)) = agent {
                return pid;
            }
            assert!(Instant::now() < deadline, "no agent child of the host");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits (bounded) until no process of this test's HOME is left.
    fn assert_none_within(&self, what: &str, parent: Option<u32>, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let left = agent_processes(&self.home, parent);
            if left.is_empty() {
                return;
            }
            assert!(Instant::now() < deadline, "{what}: processes of this HOME left after {within:?}: {left:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn respond(&self, rpc_id: &str, outcome: &str) {
        let body = json!({ "type": "client-response", "rpcId": rpc_id,
            "result": { "ok": true, "value": { "outcome": outcome } } });
        let raw = self.host.post("/api/respond", &body.to_string());
        assert_eq!(raw.json(), json!({ "accepted": true }), "{}", raw.body);
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

fn approval(stream: &mut FrameStream) -> (agent_session_wire::InboundFrame, agent_session_wire::ApprovalRequested) {
    let f = until_frame(stream, "approval/requested", |f| matches!(f, Frame::ApprovalRequested(_)));
    let Frame::ApprovalRequested(a) = &f.frame else { unreachable!() };
    let a = a.clone();
    (f, a)
}

#[test]
fn plan_mode_proposes_a_plan_its_approval_leaves_plan_mode_and_a_command_asks_approval() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();
    // Before the agent answered `session/new`: what ACP itself promises, no questions.
    let caps = &r.projections(&sid)["interaction/capabilities"];
    assert_eq!(caps["supportsStructuredUserInput"], false, "{caps}");
    r.host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true }));
    r.host.prompt(&sid, "queue", "Plan a change [fake:plan]");

    // ExitPlanMode: the proposed plan, and its permission as the session's approval.
    let (asked, a) = approval(&mut mux);
    let events = r.host.all_events(&sid);
    let proposed = events.iter().find(|e| e["type"] == "plan/proposed").expect("plan/proposed");
    assert_eq!(proposed["data"]["source"], "native");
    assert!(
        proposed["data"]["markdown"].as_str().unwrap_or_default().starts_with("# Add the notes file"),
        "{proposed}"
    );
    assert_eq!(a.call_id.as_deref(), proposed["data"]["planId"].as_str(), "the approval is the plan's");
    let modes: Vec<&Value> = events.iter().filter(|e| e["type"] == "interaction/mode").map(|e| &e["data"]).collect();
    assert_eq!(modes.last().map(|m| &m["native"]), Some(&json!("plan")), "session/set_mode plan: {modes:?}");
    let p = r.projections(&sid);
    let caps = &p["interaction/capabilities"];
    assert_eq!(caps["supportsPlanMode"], true, "advertised by session/new: {caps}");
    assert_eq!(caps["supportsAskMode"], false, "no ask mode among claude-code-acp's: {caps}");
    assert_eq!(caps["supportsExitPlanMode"], true, "seen: {caps}");
    assert_eq!(caps["supportsStructuredUserInput"], false, "{caps}");
    assert_eq!(p["interaction/proposedPlan"]["planId"], proposed["data"]["planId"]);
    assert_eq!(p["interaction/plan"]["steps"].as_array().map(Vec::len), Some(3), "steps from the markdown: {p}");
    // The fake asked a question first: this agent has none, the model got a failed tool call.
    let failed = events.iter().find(|e| e["type"] == "tool/result" && e["data"]["isError"] == true);
    assert!(failed.is_some_and(|f| f.to_string().contains("AskUserQuestion")), "{:?}", common::types(&events));
    // Each call once, though the agent announces it twice.
    let calls: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool/call").collect();
    let mut ids: Vec<&str> = calls.iter().filter_map(|c| c["data"]["callId"].as_str()).collect();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "{calls:?}");
    let write = calls.iter().find(|c| c["data"]["name"].as_str().unwrap_or_default().starts_with("Write"));
    assert!(write.is_some_and(|w| w["data"]["arguments"]["content"].is_string()), "its input: {calls:?}");

    r.respond(&asked.rpc_id, "allowed-once");
    let (kind, events) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let t1 = Real::turn_events(&events, 1);
    assert!(Real::assistant_text(&t1).contains("The plan is approved."), "{}", Real::assistant_text(&t1));
    let left = events.iter().rposition(|e| e["type"] == "plan/mode" && e["data"]["active"] == false);
    assert!(left.is_some(), "the approval left plan mode inside the turn: {:?}", common::types(&events));
    let modes: Vec<&Value> = events.iter().filter(|e| e["type"] == "interaction/mode").map(|e| &e["data"]).collect();
    assert_eq!(modes.last().map(|m| &m["native"]), Some(&json!("default")), "{modes:?}");
    let p = r.projections(&sid);
    assert_eq!(p["plan"]["active"], false, "{p}");
    assert_eq!(p["interaction/proposedPlan"], Value::Null, "handed off: {p}");

    // Default mode: a command asks; approved, it runs in the workspace.
    r.host.prompt(&sid, "queue", "Run it [fake:bash]");
    let (asked, a) = approval(&mut mux);
    assert!(a.tool_name.contains("echo approved"), "{a:?}");
    r.respond(&asked.rpc_id, "allowed-once");
    let resolved = until_frame(
        &mut mux,
        "approval/resolved",
        |f| matches!(f, Frame::ApprovalResolved(x) if x.approval_id == a.approval_id),
    );
    let Frame::ApprovalResolved(res) = &resolved.frame else { unreachable!() };
    assert_eq!(res.outcome, agent_session_wire::ApprovalOutcome::AllowedOnce);
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    assert!(Real::assistant_text(&Real::turn_events(&events, 2)).contains("The command ran."));
    assert_eq!(std::fs::read_to_string(r.work.join("APPROVED.md")).unwrap_or_default().trim(), "approved");
    let modes: Vec<&Value> = events.iter().filter(|e| e["type"] == "interaction/mode").map(|e| &e["data"]).collect();
    let natives: Vec<&Value> = modes.iter().map(|m| &m["native"]).collect();
    // session/new's, set_mode plan, the agent's own switch on approval; turn 2's set_mode
    // default changes nothing and logs nothing.
    assert_eq!(natives, [&json!("default"), &json!("plan"), &json!("default")], "{modes:?}");
}

#[test]
fn a_rejected_plan_keeps_plan_mode_and_ends_the_turn() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();
    r.host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true }));
    r.host.prompt(&sid, "queue", "Plan a change [fake:plan]");
    let (asked, _) = approval(&mut mux);
    r.respond(&asked.rpc_id, "rejected");
    // claude-code-acp fails session/prompt (-32603) on a rejected ExitPlanMode: still the
    // turn's end in plan mode, not an error.
    let (kind, events) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let p = r.projections(&sid);
    assert_eq!(p["plan"]["active"], true, "{p}");
    assert_eq!(p["interaction/proposedPlan"], Value::Null, "the rejected proposal is gone: {p}");
    assert!(!events.iter().any(|e| e["type"] == "plan/mode" && e["data"]["active"] == false));
    // The next turn plans again (session/set_mode plan once more) and answers.
    r.host.prompt(&sid, "queue", "Just say hello [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    assert!(Real::assistant_text(&Real::turn_events(&events, 2)).contains("Hello from the fake model."));
}

#[test]
fn cancel_restart_and_crash_each_continue_the_same_acp_session() {
    let mut r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();

    // Cancel: session/cancel, the turn ends interrupted, the next prompt answers.
    r.host.prompt(&sid, "queue", "First words: pineapple. Write a lot [fake:long]");
    until_frame(&mut mux, "the first chunk", |f| matches!(f, Frame::Event(e) if e.event.kind == "assistant/chunk"));
    let asked = Instant::now();
    assert_eq!(r.host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
    let (kind, _) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "interrupted");
    assert!(asked.elapsed() < Duration::from_secs(5), "cancel took {:?}", asked.elapsed());
    r.host.prompt(&sid, "queue", "Say hello [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    assert!(Real::assistant_text(&Real::turn_events(&events, 2)).contains("Hello from the fake model."));
    let stored = r.host.call("session.list", json!({}));
    assert!(stored.to_string().contains(&sid));

    // Host SIGKILL and restart: the next prompt loads the stored ACP session (its history).
    let before = model_turns(&r.fake).len();
    r.host.kill9_and_restart();
    drop(mux);
    r.host.prompt(&sid, "queue", "Second words [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 3);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let turns = model_turns(&r.fake);
    let last = turns.last().expect("a model request").to_string();
    assert!(turns.len() > before);
    assert!(last.contains("pineapple"), "the loaded session sent the first turn: {last}");
    assert!(last.contains("Second words"));
    // The replayed history was not logged again: one user message per turn.
    let users = events.iter().filter(|e| e["type"] == "user/message").count();
    assert_eq!(users, 3, "{:?}", common::types(&events));

    // The agent killed mid-turn: the turn fails with the agent's exit, the next prompt starts a
    // new agent that loads the session.
    let mut mux = r.host.mux();
    let mut host_frames = r.host.host_stream();
    r.host.prompt(&sid, "queue", "Write a lot again [fake:long]");
    until_frame(
        &mut mux,
        "a chunk of turn 4",
        |f| matches!(f, Frame::Event(e) if e.event.kind == "assistant/chunk" && e.event.data.value()["turn"] == 4),
    );
    let agent = r.agent_pid();
    // SAFETY: the agent this test's host started.
    unsafe {
        libc::kill(agent as i32, libc::SIGKILL);
    }
    let (kind, events) = r.wait_turn_end(&sid, 4);
    assert_eq!(kind, "error", "{:?}", common::types(&events));
    let err = until_frame(&mut host_frames, "host/agent-error", |f| matches!(f, Frame::AgentError(_)));
    let Frame::AgentError(e) = &err.frame else { unreachable!() };
    assert!(e.message.contains("acp agent exited"), "{}", e.message);
    r.host.prompt(&sid, "queue", "Third words [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 5);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let said = Real::assistant_text(&Real::turn_events(&events, 5));
    // The fake model picks its answer by the last user message's `[fake:…]` tag: what it last
    // saw says which answer it gave.
    let last_asked = model_turns(&r.fake)
        .last()
        .map(|q| q["body"]["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or_default().to_string())
        .unwrap_or_default();
    assert!(
        said.contains("Hello from the fake model."),
        "turn 5 said {said:?}; its events {:?}; the model's last request ended with {}",
        common::types(&Real::turn_events(&events, 5)),
        last_asked.chars().take(800).collect::<String>()
    );
    let last = model_turns(&r.fake).last().expect("a model request").to_string();
    assert!(last.contains("pineapple") && last.contains("Second words"), "loaded again: {last}");
    assert_ne!(r.agent_pid(), agent, "a new agent process");
}

#[test]
fn no_agent_process_outlives_the_host() {
    let mut r = Real::start();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Hi [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 1).0, "completed");
    let pid = r.host.pid();
    assert!(!agent_processes(&r.home, Some(pid)).is_empty(), "an agent child runs");
    // The agent's claude child outlives a killed agent for seconds: the guard reaps the tree.
    r.host.signal_and_wait(libc::SIGKILL, Duration::from_secs(5));
    r.assert_none_within("after SIGKILL of the host", Some(pid), Duration::from_secs(2));

    r.host.restart();
    r.host.prompt(&sid, "queue", "Hi again [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 2).0, "completed");
    let pid = r.host.pid();
    assert!(!agent_processes(&r.home, Some(pid)).is_empty(), "an agent child runs");
    r.host.signal_and_wait(libc::SIGTERM, Duration::from_secs(5));
    r.assert_none_within("after SIGTERM of the host", Some(pid), Duration::from_secs(2));
}
