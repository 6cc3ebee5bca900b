//! The claude runtime's faults, against tiny fake `claude` children
//! (`tests/support/fake-claude.mjs`): each becomes the session's `host/agent-error` frame and
//! `turn/end {reason:{kind:"error"}}` (or a turn that completes despite it), never a panic or a
//! wedged session.

mod common;

use agent_session_wire::Frame;
use common::{Carrier, FrameStream, Host, Item, Launch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fake_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake-claude.mjs")
}

/// A host running the fake codex in `mode`; its log file and the host's stderr file.
struct Fake {
    host: Host,
    /// The sessions' directory (claude runs in it).
    work: PathBuf,
    log: PathBuf,
    stderr: PathBuf,
    _dir: tempfile::TempDir,
}

fn start(mode: &str, extra: &[&str]) -> Fake {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("fake-claude.log");
    let stderr = dir.path().join("host.stderr");
    let bin = fake_bin();
    let mut args = vec!["--agent", "claude", "--claude-bin", bin.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    let launch = Launch {
        env: vec![("FAKE_CLAUDE_MODE".into(), mode.into()), ("FAKE_CLAUDE_LOG".into(), log.display().to_string())],
        stderr: Some(stderr.clone()),
    };
    let host = Host::launch(&args, launch);
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).expect("work dir");
    Fake { host, work, log, stderr, _dir: dir }
}

impl Fake {
    fn create(&self) -> String {
        let v = self.host.call("session.create", json!({ "cwd": self.work.display().to_string() }));
        v["sessionId"].as_str().expect("sessionId").to_string()
    }
}

/// The fake's log lines.
fn fake_log(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap_or_default().lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

fn host_downlink(host: &Host) -> FrameStream {
    host.open(Carrier::Sse, "/api/events.host")
}

/// The next `host/agent-error` for `sid` (bounded); its message.
fn agent_error(stream: &mut FrameStream, sid: &str, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match stream.next(left) {
            Some(Item::Frame(f)) => {
                if let Frame::AgentError(e) = &f.frame {
                    if e.session_id.as_deref() == Some(sid) {
                        return e.message.clone();
                    }
                }
            }
            Some(Item::Comment(_)) => {}
            other => panic!("waiting for an agent error of {sid}: got {other:?}"),
        }
    }
}

fn turn_end_kind(host: &Host, sid: &str, turn: u64) -> String {
    let events = host.wait_turn_end(sid, turn);
    let end = events.iter().find(|e| e["type"] == "turn/end" && e["data"]["turn"] == turn).expect("turn/end");
    end["data"]["reason"]["kind"].as_str().unwrap_or_default().to_string()
}

/// The session is not running (bounded wait: the runner clears it right after `turn/end`).
fn assert_idle(host: &Host, sid: &str) {
    let deadline = Instant::now() + common::WAIT;
    loop {
        let items = host.call("session.list", json!({}))["items"].clone();
        let me = items.as_array().and_then(|a| a.iter().find(|i| i["sessionId"] == sid || i["id"] == sid).cloned());
        let running = me.as_ref().map(|m| m["running"].clone()).unwrap_or(Value::Null);
        if running == false {
            return;
        }
        assert!(Instant::now() < deadline, "session {sid} still running: {items}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pid_alive(pid: u64) -> bool {
    // A zombie is gone for our purposes only once reaped; the host reaps its children.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok()
}

/// The fake's processes (not the host's: it has the same environment) whose environment names
/// `log` as FAKE_CLAUDE_LOG.
fn fakes_alive(log: &Path, host: u32) -> Vec<u32> {
    let needle = format!("FAKE_CLAUDE_LOG={}", log.display()).into_bytes();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if pid == host {
            continue; // its --claude-bin names the fake too
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let fake = String::from_utf8_lossy(&cmdline).contains("fake-claude");
        if fake && environ.split(|&b| b == 0).any(|kv| kv == needle.as_slice()) {
            found.push(pid);
        }
    }
    found
}

/// The argv of each start, in order.
fn starts(log: &[Value]) -> Vec<Vec<String>> {
    log.iter()
        .filter_map(|l| l["argv"].as_array())
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .collect()
}

#[test]
fn missing_binary_names_the_path_and_the_install() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no-such-claude");
    let host = Host::start(&["--agent", "claude", "--claude-bin", missing.to_str().unwrap()]);
    let mut down = host_downlink(&host);
    let v = host.call("session.create", json!({ "cwd": dir.path().display().to_string() }));
    let sid = v["sessionId"].as_str().expect("sessionId").to_string();
    host.prompt(&sid, "queue", "hello");
    let msg = agent_error(&mut down, &sid, common::WAIT);
    assert!(msg.contains(&missing.display().to_string()), "{msg}");
    assert!(msg.contains("scripts/bootstrap.sh"), "says how to install: {msg}");
    assert_eq!(turn_end_kind(&host, &sid, 1), "error");
    assert_idle(&host, &sid);
    host.prompt(&sid, "queue", "again");
    agent_error(&mut down, &sid, common::WAIT);
    assert_eq!(turn_end_kind(&host, &sid, 2), "error");
    assert_idle(&host, &sid);
}

#[test]
fn a_session_directory_that_is_not_there_is_named() {
    let f = start("ok", &[]);
    let mut down = host_downlink(&f.host);
    let sid = f.host.create();
    f.host.prompt(&sid, "queue", "hello");
    let msg = agent_error(&mut down, &sid, common::WAIT);
    assert!(msg.contains("/workspace/project") && msg.contains("not a directory"), "{msg}");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "error");
    assert_idle(&f.host, &sid);
}

#[test]
fn plan_mode_starts_the_process_in_plan_and_a_later_turn_changes_its_mode() {
    let f = start("ok", &["--claude-permission-mode", "acceptEdits"]);
    let sid = f.create();
    f.host.call("session.setPlanMode", json!({ "sessionId": sid, "active": true }));
    f.host.prompt(&sid, "queue", "plan it");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "completed");
    f.host.call("session.setPlanMode", json!({ "sessionId": sid, "active": false }));
    f.host.prompt(&sid, "queue", "do it");
    assert_eq!(turn_end_kind(&f.host, &sid, 2), "completed");
    let log = fake_log(&f.log);
    let argv = &starts(&log)[0];
    let at = argv.iter().position(|a| a == "--permission-mode").expect("--permission-mode");
    assert_eq!(argv[at + 1], "plan", "{argv:?}");
    for flag in ["--permission-prompt-tool", "--include-partial-messages", "--verbose"] {
        assert!(argv.iter().any(|a| a == flag), "{flag} in {argv:?}");
    }
    assert_eq!(starts(&log).len(), 1, "one process for both turns");
    let got: Vec<&Value> = log.iter().filter_map(|l| l.get("got")).collect();
    let change = got.iter().position(|m| m["request"]["subtype"] == "set_permission_mode").expect("a mode change");
    assert_eq!(got[change]["request"]["mode"], "acceptEdits");
    let users: Vec<usize> = got.iter().enumerate().filter(|(_, m)| m["type"] == "user").map(|(i, _)| i).collect();
    assert!(users[0] < change && change < users[1], "the change goes before the second prompt: {got:?}");
    assert_eq!(got[users[1]]["message"]["content"][0]["text"], "do it");
}

#[test]
fn a_crash_mid_turn_fails_the_turn_and_the_next_prompt_resumes_the_session() {
    let f = start("crash", &[]);
    let mut down = host_downlink(&f.host);
    let sid = f.create();
    f.host.prompt(&sid, "queue", "hello");
    let msg = agent_error(&mut down, &sid, common::WAIT);
    assert!(msg.contains("exit status: 3"), "names the exit status: {msg}");
    assert!(msg.contains("crashing on purpose"), "carries the stderr tail: {msg}");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "error");
    assert_idle(&f.host, &sid);
    // What the crashed child started (in a process group of its own) went with it.
    let grandchild = fake_log(&f.log).iter().find(|l| l["note"] == "grandchild").and_then(|l| l["pid"].as_u64());
    let grandchild = grandchild.expect("the fake noted its grandchild");
    let deadline = Instant::now() + Duration::from_secs(3);
    while pid_alive(grandchild) {
        assert!(Instant::now() < deadline, "the crashed child's process {grandchild} outlived it");
        std::thread::sleep(Duration::from_millis(20));
    }

    f.host.prompt(&sid, "queue", "hello again");
    assert_eq!(turn_end_kind(&f.host, &sid, 2), "completed");
    assert_idle(&f.host, &sid);
    let log = fake_log(&f.log);
    let all = starts(&log);
    assert_eq!(all.len(), 2, "a new child for the next prompt: {log:?}");
    let first_pid = log.iter().find(|l| l["argv"].is_array()).and_then(|l| l["pid"].as_u64()).unwrap();
    let at = all[1].iter().position(|a| a == "--resume").expect("the second start resumes");
    assert_eq!(all[1][at + 1], format!("fake-session-{first_pid}"));
    let texts: Vec<String> =
        f.host.all_events(&sid).iter().filter(|e| e["type"] == "assistant/message").map(|e| e.to_string()).collect();
    assert!(texts.iter().any(|t| t.contains("Fake claude says hi.")), "{texts:?}");
}

#[test]
fn a_session_claude_no_longer_knows_continues_in_a_new_one() {
    let mut f = start("resume", &[]);
    let sid = f.create();
    f.host.prompt(&sid, "queue", "hello");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "completed");
    f.host.kill9_and_restart();
    let mut down = host_downlink(&f.host);
    f.host.prompt(&sid, "queue", "hello again");
    let msg = agent_error(&mut down, &sid, common::WAIT);
    assert!(msg.contains("could not resume") && msg.contains("No conversation found"), "{msg}");
    assert_eq!(turn_end_kind(&f.host, &sid, 2), "completed");
    let all = starts(&fake_log(&f.log));
    let resumed: Vec<bool> = all.iter().map(|a| a.iter().any(|x| x == "--resume")).collect();
    assert_eq!(resumed, [false, true, false], "{all:?}");
    // The new conversation's id is the one kept now.
    f.host.kill9_and_restart();
    f.host.prompt(&sid, "queue", "third");
    agent_error(&mut host_downlink(&f.host), &sid, common::WAIT);
    assert_eq!(turn_end_kind(&f.host, &sid, 3), "completed");
    let log = fake_log(&f.log);
    let third_pid = log.iter().filter(|l| l["argv"].is_array()).nth(2).and_then(|l| l["pid"].as_u64()).unwrap();
    let fourth = &starts(&log)[3];
    let at = fourth.iter().position(|a| a == "--resume").expect("resumes");
    assert_eq!(fourth[at + 1], format!("fake-session-{third_pid}"));
}

#[test]
fn malformed_lines_are_reported_and_the_turn_completes() {
    let f = start("malformed", &[]);
    let mut down = host_downlink(&f.host);
    let sid = f.create();
    f.host.prompt(&sid, "queue", "hello");
    let first = agent_error(&mut down, &sid, common::WAIT);
    assert!(first.contains("not json") && first.contains("dropped"), "{first}");
    let second = agent_error(&mut down, &sid, Duration::from_secs(20));
    assert!(second.contains("over") && second.contains("dropped"), "{second}");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "completed");
    assert_idle(&f.host, &sid);
    f.host.prompt(&sid, "queue", "again");
    assert_eq!(turn_end_kind(&f.host, &sid, 2), "completed");
}

#[test]
fn unserved_control_requests_are_refused() {
    let f = start("control", &[]);
    let sid = f.create();
    f.host.prompt(&sid, "queue", "hello");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "completed", "{:?}", fake_log(&f.log));
    let log = fake_log(&f.log);
    let refused = log.iter().find(|l| l["note"] == "refused").expect("the fake's refused note");
    assert_eq!(refused["answer"]["subtype"], "error", "{refused}");
    assert!(refused["answer"]["error"].as_str().unwrap_or_default().contains("hook_callback"), "{refused}");
    assert_idle(&f.host, &sid);
}

#[test]
fn a_child_that_ignores_the_interrupt_is_killed_and_the_next_prompt_resumes() {
    let f = start("deaf", &[]);
    let sid = f.create();
    f.host.prompt(&sid, "queue", "hello");
    f.host.wait_event(&sid, "the turn's first step", |e| e["type"] == "step/start");
    let asked = Instant::now();
    assert_eq!(f.host.call("session.cancel", json!({ "sessionId": sid })), json!({ "accepted": true }));
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "interrupted");
    assert!(asked.elapsed() < Duration::from_secs(15), "cancel took {:?}", asked.elapsed());
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = fakes_alive(&f.log, f.host.pid());
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "the deaf child is still there: {left:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let got_interrupt = fake_log(&f.log).iter().any(|l| l["got"]["request"]["subtype"] == "interrupt");
    assert!(got_interrupt, "the interrupt was sent");
    assert_idle(&f.host, &sid);
    assert_eq!(starts(&fake_log(&f.log)).len(), 1);
}

#[test]
fn a_stderr_flood_is_drained_and_bounded() {
    let f = start("flood", &[]);
    let sid = f.create();
    f.host.prompt(&sid, "queue", "hello");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !f.host.all_events(&sid).iter().any(|e| e["type"] == "turn/end") {
        assert!(Instant::now() < deadline, "the flooding child's turn did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "completed");
    let echoed = std::fs::metadata(&f.stderr).map(|m| m.len()).unwrap_or(0);
    assert!(echoed < 512 * 1024, "host stderr got {echoed} bytes of a 50 MB flood");
    // The host never held a whole unterminated 40 MB stderr line.
    let status = std::fs::read_to_string(format!("/proc/{}/status", f.host.pid())).unwrap_or_default();
    let hwm_kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(hwm_kb < 40 * 1024, "host peak RSS {hwm_kb} kB during a stderr flood");
    f.host.prompt(&sid, "queue", "again");
    assert_eq!(turn_end_kind(&f.host, &sid, 2), "completed");
}

#[test]
fn at_the_process_limit_the_least_recently_used_idle_session_makes_room_and_resumes_later() {
    let f = start("ok", &["--claude-max-processes", "1"]);
    let a = f.create();
    let b = f.create();
    f.host.prompt(&a, "queue", "first of a");
    assert_eq!(turn_end_kind(&f.host, &a, 1), "completed");
    f.host.prompt(&b, "queue", "first of b");
    assert_eq!(turn_end_kind(&f.host, &b, 1), "completed");
    f.host.prompt(&a, "queue", "second of a");
    assert_eq!(turn_end_kind(&f.host, &a, 2), "completed");
    let log = fake_log(&f.log);
    let all = starts(&log);
    assert_eq!(all.len(), 3, "{all:?}");
    let first_pid = log.iter().find(|l| l["argv"].is_array()).and_then(|l| l["pid"].as_u64()).unwrap();
    let at = all[2].iter().position(|x| x == "--resume").expect("a's second process resumes");
    assert_eq!(all[2][at + 1], format!("fake-session-{first_pid}"));
    let deadline = Instant::now() + Duration::from_secs(3);
    while fakes_alive(&f.log, f.host.pid()).len() > 1 {
        assert!(Instant::now() < deadline, "more than one process at a limit of one");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_question_the_session_cannot_show_is_denied_at_once() {
    let f = start("badask", &[]);
    let sid = f.create();
    f.host.prompt(&sid, "queue", "hello");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "completed", "{:?}", fake_log(&f.log));
    let log = fake_log(&f.log);
    let noted = log.iter().find(|l| l["note"] == "badask").expect("the fake's badask note");
    assert_eq!(noted["answer"]["subtype"], "success", "{noted}");
    assert_eq!(noted["answer"]["response"]["behavior"], "deny", "{noted}");
    assert_idle(&f.host, &sid);
}
