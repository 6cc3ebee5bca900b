//! The host driving the real Claude Code (the pinned 2.1.328 under `agents/`) against the fake
//! Anthropic Messages server (`tests/fake-models/anthropic-messages.mjs`): plan mode, a
//! question, the proposed plan and its approval, a command approval, cancel, a host restart
//! (resume), a crashed child, no orphans. Every process started here is killed at the end, also
//! when a test panics.

mod common;

use agent_session_wire::Frame;
use common::fake_model::{pinned, FakeServer};
use common::{FrameStream, Host, Launch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Real model turns take longer than the scripted agent's.
const TURN_WAIT: Duration = Duration::from_secs(30);

/// The model requests (POST /v1/messages) so far.
fn model_requests(fake: &FakeServer) -> Vec<Value> {
    fake.logged().into_iter().filter(|q| q["method"] == "POST").collect()
}

/// Processes whose environment holds `HOME=<home>` (this test's claude processes, what they
/// started, the tree guard), but not `except` (the host itself carries it too).
fn ours(home: &Path, except: Option<u32>) -> Vec<(u32, String)> {
    let needle = format!("HOME={}", home.display()).into_bytes();
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return found };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if Some(pid) == except {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // `pid (comm) state ppid ...`: comm may hold spaces, so read after the last ')'.
        let after = stat.rsplit_once(')').map(|(_, a)| a).unwrap_or_default();
        let mut f = after.split_whitespace();
        if f.next() == Some("Z") {
            continue; // exited, only not yet reaped
        }
        let ppid = f.next().unwrap_or_default().to_string();
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        if environ.split(|&b| b == 0).any(|kv| kv == needle.as_slice()) {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmd: String = String::from_utf8_lossy(&cmd).replace('\0', " ").chars().take(120).collect();
            found.push((pid, format!("ppid {ppid}: {cmd}")));
        }
    }
    found
}

/// The claude processes among [`ours`].
/// Whether a session transcript Claude Code keeps under `home` (`.claude/projects/**.jsonl`)
/// holds `needle`: what a `--resume` of it will send the model.
fn transcript_holds(home: &Path, needle: &str) -> bool {
    fn walk(dir: &Path, needle: &str) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else { return false };
        entries.flatten().any(|e| {
            let p = e.path();
            if p.is_dir() {
                walk(&p, needle)
            } else {
                p.extension().is_some_and(|x| x == "jsonl")
                    && std::fs::read_to_string(&p).is_ok_and(|t| t.contains(needle))
            }
        })
    }
    walk(&home.join(".claude").join("projects"), needle)
}

fn claude_pids(home: &Path, host: u32) -> Vec<u32> {
    let bin = pinned("@anthropic-ai/claude-code-linux-x64/claude").display().to_string();
    ours(home, Some(host)).into_iter().filter(|(_, cmd)| cmd.contains(&bin)).map(|(pid, _)| pid).collect()
}

/// Kills every process of this test's HOME on drop.
struct Reaper(PathBuf);

impl Drop for Reaper {
    fn drop(&mut self) {
        for (pid, _) in ours(&self.0, Some(std::process::id())) {
            // SAFETY: signalling a process this test started (it carries our HOME).
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
        }
    }
}

/// The host on the real Claude Code, its HOME and the fake server. Drop order: the host
/// (SIGKILL; claude follows by its parent-death signal), then anything of our HOME left
/// (SIGKILL), then the fake server.
struct Real {
    host: Host,
    reaper: Reaper,
    fake: FakeServer,
    home: PathBuf,
    work: PathBuf,
    _dir: tempfile::TempDir,
}

impl Real {
    fn start() -> Real {
        let bin = pinned("@anthropic-ai/claude-code-linux-x64/claude");
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(&home).expect("home dir");
        std::fs::create_dir_all(&work).expect("work dir");
        let fake = FakeServer::start("anthropic-messages.mjs", "fake-messages listening on ", dir.path());
        let launch = Launch {
            env: vec![
                ("HOME".into(), home.display().to_string()),
                ("ANTHROPIC_API_KEY".into(), "fake-key-not-secret".into()),
                ("ANTHROPIC_BASE_URL".into(), fake.url.clone()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(), "1".into()),
                ("DISABLE_AUTOUPDATER".into(), "1".into()),
                ("DISABLE_TELEMETRY".into(), "1".into()),
            ],
            stderr: None,
        };
        let host = Host::launch(&["--agent", "claude", "--claude-bin", bin.to_str().expect("utf-8")], launch);
        Real { host, reaper: Reaper(home.clone()), fake, home, work, _dir: dir }
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

    /// Answers an approval request on the mux.
    fn respond(&self, rpc_id: &str, outcome: &str) {
        let body = json!({ "type": "client-response", "rpcId": rpc_id,
            "result": { "ok": true, "value": { "outcome": outcome } } });
        let raw = self.host.post("/api/respond", &body.to_string());
        assert_eq!(raw.json(), json!({ "accepted": true }), "{}", raw.body);
    }

    /// Waits (bounded) until nothing of this test's HOME runs but the host `except`.
    fn assert_none_within(&self, what: &str, except: Option<u32>, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let left = ours(&self.home, except);
            if left.is_empty() {
                return;
            }
            assert!(Instant::now() < deadline, "{what}: processes of this HOME left after {within:?}: {left:?}");
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

fn approval(stream: &mut FrameStream, what: &str) -> (agent_session_wire::ApprovalRequested, String) {
    let asked = until_frame(stream, what, |f| matches!(f, Frame::ApprovalRequested(_)));
    let Frame::ApprovalRequested(a) = asked.frame else { unreachable!() };
    (a, asked.rpc_id)
}

#[test]
fn plan_mode_question_proposed_plan_approved_then_implemented_with_one_approval() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();
    r.host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true }));
    r.host.prompt(&sid, "queue", "Plan a change [fake:plan]");

    // AskUserQuestion -> the session's structured prompt, answered with session.answer.
    let events = r.host.wait_event(&sid, "the question", |e| e["type"] == "interaction/prompt-requested");
    let asked = events.iter().find(|e| e["type"] == "interaction/prompt-requested").expect("prompt");
    let prompt = &asked["data"]["prompt"];
    assert_eq!(prompt["questions"][0]["label"], "How much should the change cover?", "{prompt}");
    assert_eq!(prompt["questions"][0]["options"][0]["label"], "Minimal");
    let answer = json!({ "sessionId": sid, "promptId": prompt["promptId"],
        "answers": [{ "questionId": "q0", "selectedOptionIds": ["o0"] }] });
    assert_eq!(r.host.call("session.answer", answer), json!({ "accepted": true }));

    // ExitPlanMode: the proposed plan, and its approval.
    let (a, rpc) = approval(&mut mux, "the plan's approval");
    assert_eq!(a.tool_name, "ExitPlanMode", "{a:?}");
    let events = r.host.all_events(&sid);
    let proposed = events.iter().find(|e| e["type"] == "plan/proposed").expect("plan/proposed");
    let markdown = proposed["data"]["markdown"].as_str().unwrap_or_default();
    assert!(markdown.contains("1. Create `NOTES.md` in the workspace root."), "{markdown}");
    assert_eq!(proposed["data"]["source"], "native");
    let resolved = events.iter().find(|e| e["type"] == "interaction/prompt-resolved").expect("prompt resolved");
    assert_eq!(resolved["data"]["outcome"], "answered");
    assert_eq!(r.host.call("session.planMode", json!({ "sessionId": sid }))["active"], true);
    r.respond(&rpc, "allowed-once");
    let (kind, events) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    assert!(Real::assistant_text(&events).contains("The plan is approved."), "{}", Real::assistant_text(&events));
    // Approving the plan left plan mode in the same turn (the CLI did too).
    assert!(
        events.iter().any(|e| e["type"] == "plan/mode" && e["data"]["active"] == false),
        "{:?}",
        common::types(&events)
    );
    assert_eq!(r.host.call("session.planMode", json!({ "sessionId": sid }))["active"], false);
    let modes: Vec<&Value> =
        events.iter().filter(|e| e["type"] == "interaction/mode").map(|e| &e["data"]["native"]).collect();
    assert_eq!(modes.first().copied(), Some(&json!("plan")), "{modes:?}");
    assert_eq!(modes.last().copied(), Some(&json!("default")), "{modes:?}");
    // The answer reached the model as AskUserQuestion's result.
    let sent: String = model_requests(&r.fake).iter().map(|q| q["body"]["messages"].to_string()).collect();
    assert!(sent.contains(r#"\"How much should the change cover?\"=\"Minimal\""#), "the answer in a model request");

    // Implement: one command approval, the command runs in the session's cwd.
    r.host.prompt(&sid, "queue", "Implement the plan.");
    let (a, rpc) = approval(&mut mux, "the command's approval");
    assert_eq!(a.tool_name, "Bash");
    assert!(a.reason.as_deref().unwrap_or_default().contains("echo implemented > NOTES.md"), "{a:?}");
    assert!(!r.work.join("NOTES.md").exists(), "nothing ran before the approval");
    r.respond(&rpc, "allowed-once");
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let call = events.iter().find(|e| e["type"] == "tool/call" && e["data"]["name"] == "Bash").expect("the Bash call");
    assert_eq!(Some(call["data"]["callId"].as_str().unwrap_or_default()), a.call_id.as_deref());
    assert!(Real::assistant_text(&events).contains("Done: the plan is implemented."));
    assert_eq!(std::fs::read_to_string(r.work.join("NOTES.md")).unwrap_or_default().trim(), "implemented");
    // One process served both turns.
    assert_eq!(claude_pids(&r.home, r.host.pid()).len(), 1);
}

#[test]
fn a_rejected_command_is_refused_to_the_model() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Run it [fake:bash]");
    let (a, rpc) = approval(&mut mux, "the command's approval");
    assert!(a.reason.as_deref().unwrap_or_default().contains("echo approved > APPROVED.md"), "{a:?}");
    r.respond(&rpc, "rejected");
    let resolved = until_frame(&mut mux, "approval/resolved", |f| matches!(f, Frame::ApprovalResolved(_)));
    let Frame::ApprovalResolved(res) = &resolved.frame else { unreachable!() };
    assert_eq!(res.approval_id, a.approval_id);
    let (kind, events) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "completed");
    assert!(Real::assistant_text(&events).contains("The command was not allowed."));
    assert!(!r.work.join("APPROVED.md").exists());
}

#[test]
fn cancel_interrupts_streaming_and_a_pending_question_and_the_next_prompt_completes() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Write a lot [fake:long]");
    until_frame(&mut mux, "the first chunk", |f| matches!(f, Frame::Event(e) if e.event.kind == "assistant/chunk"));
    let asked = Instant::now();
    assert_eq!(r.host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
    let (kind, events) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "interrupted");
    assert!(asked.elapsed() < Duration::from_secs(5), "cancel took {:?}", asked.elapsed());
    assert!(events.iter().any(|e| e["data"]["chunk"]["text"].as_str().is_some_and(|t| t.contains("word0"))));

    r.host.prompt(&sid, "queue", "Ask me [fake:question]");
    r.host.wait_event(&sid, "the question", |e| e["type"] == "interaction/prompt-requested");
    assert_eq!(r.host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "interrupted");
    let resolved = events.iter().rev().find(|e| e["type"] == "interaction/prompt-resolved").expect("resolved");
    assert_eq!(resolved["data"]["outcome"], "cancelled");

    r.host.prompt(&sid, "queue", "Say hello [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 3);
    assert_eq!(kind, "completed");
    assert!(Real::assistant_text(&events).contains("Hello from the fake model."));
    assert_eq!(claude_pids(&r.home, r.host.pid()).len(), 1, "the same process took every turn");
}

#[test]
fn cancel_with_an_approval_pending_resolves_it_cancelled() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Run it [fake:bash]");
    let (a, _) = approval(&mut mux, "the command's approval");
    assert_eq!(r.host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
    let resolved = until_frame(&mut mux, "approval/resolved", |f| matches!(f, Frame::ApprovalResolved(_)));
    let Frame::ApprovalResolved(res) = &resolved.frame else { unreachable!() };
    assert_eq!(res.approval_id, a.approval_id);
    assert_eq!(res.outcome, agent_session_wire::ApprovalOutcome::Cancelled);
    assert_eq!(r.wait_turn_end(&sid, 1).0, "interrupted");
    assert!(!r.work.join("APPROVED.md").exists());
    r.host.prompt(&sid, "queue", "Say hello [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 2).0, "completed");
}

#[test]
fn a_model_error_fails_the_turn_with_its_message() {
    let r = Real::start();
    let mut hs = r.host.host_stream();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Fail [fake:error]");
    let err = until_frame(&mut hs, "agent/error", |f| matches!(f, Frame::AgentError(_)));
    let Frame::AgentError(e) = &err.frame else { unreachable!() };
    assert!(e.message.contains("The fake model is broken on purpose."), "{e:?}");
    let (kind, events) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "error");
    assert!(!Real::assistant_text(&events).contains("API Error"), "the CLI's own error note is not an answer");
}

#[test]
fn after_a_host_sigkill_the_conversation_resumes_in_plan_mode() {
    let mut r = Real::start();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "First words: pineapple [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 1).0, "completed");
    let first = model_requests(&r.fake).last().expect("a model request")["headers"]["x-claude-code-session-id"].clone();
    r.host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true }));
    r.host.kill9_and_restart();
    r.assert_none_within("after SIGKILL of the host", Some(r.host.pid()), Duration::from_secs(3));
    r.host.prompt(&sid, "queue", "Second words [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let last = model_requests(&r.fake).last().expect("a model request").clone();
    assert_eq!(last["headers"]["x-claude-code-session-id"], first, "the same Claude session");
    let messages = last["body"]["messages"].to_string();
    assert!(messages.contains("pineapple"), "the resumed session sent the earlier turn");
    assert!(messages.contains("Hello from the fake model."), "and the earlier answer");
    assert!(messages.contains("Second words"));
    assert!(messages.contains("create your plan at"), "the resumed turn runs in plan mode");
}

#[test]
fn a_crashed_child_fails_its_turn_and_the_next_prompt_resumes() {
    let r = Real::start();
    let mut mux = r.host.mux();
    let mut hs = r.host.host_stream();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Remember: mango. Now write a lot [fake:long]");
    until_frame(&mut mux, "the first chunk", |f| matches!(f, Frame::Event(e) if e.event.kind == "assistant/chunk"));
    let pids = claude_pids(&r.home, r.host.pid());
    assert_eq!(pids.len(), 1, "{:?}", ours(&r.home, Some(r.host.pid())));
    // The crash comes once the CLI has written the prompt to its transcript (it does so
    // asynchronously: a SIGKILL just before leaves nothing for `--resume` to send).
    let deadline = Instant::now() + Duration::from_secs(10);
    while !transcript_holds(&r.home, "mango") {
        assert!(Instant::now() < deadline, "claude wrote no transcript holding the prompt");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: signalling this test's claude process.
    unsafe {
        libc::kill(pids[0] as i32, libc::SIGKILL);
    }
    let err = until_frame(&mut hs, "agent/error", |f| matches!(f, Frame::AgentError(_)));
    let Frame::AgentError(e) = &err.frame else { unreachable!() };
    assert!(e.message.contains("claude exited"), "{e:?}");
    let (kind, _) = r.wait_turn_end(&sid, 1);
    assert_eq!(kind, "error");
    r.host.prompt(&sid, "queue", "Say hello [fake:hello]");
    let (kind, events) = r.wait_turn_end(&sid, 2);
    assert_eq!(kind, "completed", "{:?}", common::types(&events));
    let messages = model_requests(&r.fake).last().expect("a model request")["body"]["messages"].to_string();
    assert!(messages.contains("mango"), "the new process resumed the conversation");
    let now = claude_pids(&r.home, r.host.pid());
    assert!(now.len() == 1 && now[0] != pids[0], "a new process: {now:?}");
}

#[test]
fn no_claude_outlives_the_host() {
    let mut r = Real::start();
    let sid = r.session();
    r.host.prompt(&sid, "queue", "Hi [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 1).0, "completed");
    let pid = r.host.pid();
    assert_eq!(claude_pids(&r.home, pid).len(), 1, "a claude child runs");
    r.host.signal_and_wait(libc::SIGKILL, Duration::from_secs(5));
    r.assert_none_within("after SIGKILL of the host", None, Duration::from_secs(3));

    // A normal stop too.
    r.host.restart();
    r.host.prompt(&sid, "queue", "Hi again [fake:hello]");
    assert_eq!(r.wait_turn_end(&sid, 2).0, "completed");
    let pid = r.host.pid();
    assert_eq!(claude_pids(&r.home, pid).len(), 1, "a claude child runs");
    r.host.signal_and_wait(libc::SIGTERM, Duration::from_secs(5));
    r.assert_none_within("after SIGTERM of the host", None, Duration::from_secs(3));
    let _ = &r.reaper;
}
