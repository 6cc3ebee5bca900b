//! The codex runtime's faults, against tiny fake `codex app-server` children
//! (`tests/support/fake-codex.mjs`): each becomes the session's `host/agent-error` frame and
//! `turn/end {reason:{kind:"error"}}`, never a panic or a wedged session.

mod common;

use agent_session_wire::Frame;
use common::{Carrier, FrameStream, Host, Item, Launch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fake_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake-codex.mjs")
}

/// A host running the fake codex in `mode`; its log file and the host's stderr file.
struct Fake {
    host: Host,
    log: PathBuf,
    stderr: PathBuf,
    _dir: tempfile::TempDir,
}

fn start(mode: &str, extra: &[&str]) -> Fake {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("fake-codex.log");
    let stderr = dir.path().join("host.stderr");
    let bin = fake_bin();
    let mut args = vec!["--agent", "codex", "--codex-bin", bin.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    let launch = Launch {
        env: vec![
            ("FAKE_CODEX_MODE".into(), mode.into()),
            ("FAKE_CODEX_LOG".into(), log.display().to_string()),
            // The fake never reads a key; keep the host from logging in with a real one.
            ("OPENAI_API_KEY".into(), String::new()),
        ],
        stderr: Some(stderr.clone()),
    };
    let host = Host::launch(&args, launch);
    Fake { host, log, stderr, _dir: dir }
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
/// `log` as FAKE_CODEX_LOG.
fn fakes_alive(log: &Path, host: u32) -> Vec<u32> {
    let needle = format!("FAKE_CODEX_LOG={}", log.display()).into_bytes();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if pid == host {
            continue; // its --codex-bin names the fake too
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let fake = String::from_utf8_lossy(&cmdline).contains("fake-codex");
        if fake && environ.split(|&b| b == 0).any(|kv| kv == needle.as_slice()) {
            found.push(pid);
        }
    }
    found
}

fn pids(log: &[Value]) -> Vec<u64> {
    log.iter().filter(|l| l.get("note").is_none()).filter_map(|l| l["pid"].as_u64()).collect()
}

#[test]
fn missing_binary_names_the_path_and_the_install() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no-such-codex");
    let host = Host::start(&["--agent", "codex", "--codex-bin", missing.to_str().unwrap()]);
    let mut down = host_downlink(&host);
    let sid = host.create();
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
fn a_hung_child_times_out_and_is_killed() {
    let f = start("hang", &["--codex-request-timeout-ms", "500"]);
    let mut down = host_downlink(&f.host);
    let sid = f.host.create();
    f.host.prompt(&sid, "queue", "hello");
    let msg = agent_error(&mut down, &sid, common::WAIT);
    assert!(msg.contains("did not answer"), "{msg}");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "error");
    assert_idle(&f.host, &sid);
    // Under load the deadline may pass before node even logs its start: find the child by
    // its environment instead (this test's log path), alive or not.
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = fakes_alive(&f.log, f.host.pid());
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "the hung child is still there: {left:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    // At most two children: the host's warm-up at start and the prompt's retry.
    assert!(pids(&fake_log(&f.log)).len() <= 2, "{:?}", fake_log(&f.log));
    // The next prompt is accepted and fails the same bounded way.
    f.host.prompt(&sid, "queue", "again");
    agent_error(&mut down, &sid, common::WAIT);
    assert_eq!(turn_end_kind(&f.host, &sid, 2), "error");
    assert_idle(&f.host, &sid);
}

#[test]
fn a_child_that_stops_answering_mid_session_is_replaced_by_the_next_prompt() {
    let f = start("hang-turn", &["--codex-request-timeout-ms", "500"]);
    let mut down = host_downlink(&f.host);
    let sid = f.host.create();
    f.host.prompt(&sid, "queue", "hello");
    let msg = agent_error(&mut down, &sid, common::WAIT);
    assert!(msg.contains("did not answer turn/start"), "{msg}");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "error");
    assert_idle(&f.host, &sid);
    // The silent child was ended; the next prompt starts another one and resumes the thread.
    f.host.prompt(&sid, "queue", "again");
    agent_error(&mut down, &sid, common::WAIT);
    assert_eq!(turn_end_kind(&f.host, &sid, 2), "error");
    let log = fake_log(&f.log);
    assert_eq!(pids(&log).len(), 2, "a second child started: {log:?}");
    assert!(
        log.iter().any(|l| l["got"]["method"] == "thread/resume" && l["got"]["params"]["threadId"] == "t1"),
        "the second child resumes the thread: {log:?}"
    );
}

#[test]
fn a_crash_mid_turn_fails_the_turn_and_the_next_prompt_resumes_the_thread() {
    let f = start("crash", &[]);
    let mut down = host_downlink(&f.host);
    let sid = f.host.create();
    f.host.prompt(&sid, "queue", "hello");
    let msg = agent_error(&mut down, &sid, common::WAIT);
    assert!(msg.contains("exit status: 3"), "names the exit status: {msg}");
    assert!(msg.contains("about to crash on purpose"), "carries the stderr tail: {msg}");
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
    assert_eq!(pids(&log).len(), 2, "a new child for the next prompt: {log:?}");
    let second: Vec<&str> =
        log.iter().filter(|l| l["start"] == 2).filter_map(|l| l["got"]["method"].as_str()).collect();
    assert_eq!(&second[..3], ["initialize", "initialized", "thread/resume"], "{second:?}");
    let resume = log.iter().find(|l| l["start"] == 2 && l["got"]["method"] == "thread/resume").unwrap();
    assert_eq!(resume["got"]["params"]["threadId"], "t1");
    let texts: Vec<String> =
        f.host.all_events(&sid).iter().filter(|e| e["type"] == "assistant/message").map(|e| e.to_string()).collect();
    assert!(texts.iter().any(|t| t.contains("Fake codex says hi.")), "{texts:?}");
}

#[test]
fn malformed_lines_are_reported_and_the_turn_completes() {
    let f = start("malformed", &[]);
    let mut down = host_downlink(&f.host);
    let sid = f.host.create();
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
fn unserved_server_requests_are_refused() {
    let f = start("toolcall", &[]);
    let sid = f.host.create();
    f.host.prompt(&sid, "queue", "hello");
    assert_eq!(turn_end_kind(&f.host, &sid, 1), "completed", "{:?}", fake_log(&f.log));
    let log = fake_log(&f.log);
    let replies = log.iter().find(|l| l["note"] == "replies").expect("the fake's replies note");
    for key in ["threadRequest", "processRequest"] {
        let r = &replies[key];
        assert!(r["error"]["code"].is_i64(), "{key} refused with a JSON-RPC error: {replies}");
        assert!(r.get("result").is_none(), "{replies}");
    }
    assert_idle(&f.host, &sid);
}

#[test]
fn a_stderr_flood_is_drained_and_bounded() {
    let f = start("flood", &[]);
    let sid = f.host.create();
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
