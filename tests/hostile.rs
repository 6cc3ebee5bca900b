//! A hostile or broken host cannot panic the client, bend its window, or make it grow without
//! bound: each finding of the adversarial run as a named regression test, driven
//! through the `HostClient` core with raw text, and a property test over mutated captured frames
//! and hostile values (`hostile/property.rs`).

#[path = "hostile/driver.rs"]
mod driver;
#[path = "hostile/property.rs"]
mod property;

use agent_session::core::client::SessionOp;
use agent_session::core::session::OpenState;
use agent_session::core::wire::seq::MAX_SEQ;
use driver::*;

const I64_MAX: &str = "9223372036854775807";
const TWO_63: &str = "9223372036854775808";
const U64_MAX: &str = "18446744073709551615";

fn max(minus: u64) -> String {
    (MAX_SEQ - minus).to_string()
}

/// Finding 1: a `session.history` reply with seqs `[u64::MAX, 0]` overflowed the page check.
#[test]
fn a_tail_page_from_u64_max_to_zero_fails_the_open_soft() {
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user(U64_MAX), user("0")], false));
    assert_eq!(d.session().open_state(), OpenState::Error, "refused like any bad page");
    assert!(d.session().open_error().is_some());
    assert_window(d.session());
    // The client lives on: a retry opens normally.
    d.op(SID, SessionOp::Open);
    d.answer("session.history", &page(&[user("0"), user("1")], false));
    assert_eq!(d.session().open_state(), OpenState::Open);
    assert_window(d.session());
}

/// Finding 2: a live event at seq 5 while loading, then the tail page `[i64::MAX]`, overflowed
/// `tail + 1` in the stitch.
#[test]
fn a_live_event_while_loading_then_a_tail_page_at_i64_max_does_not_overflow_the_stitch() {
    let mut d = Driver::established();
    d.frame("session/event", &live("5"));
    d.answer("session.history", &page(&[user(I64_MAX)], false));
    assert_eq!(d.session().open_state(), OpenState::Error);
    assert_window(d.session());
    // At the bound itself the arithmetic is in range: the held event is a duplicate.
    let mut d = Driver::established();
    d.frame("session/event", &live("5"));
    d.answer("session.history", &page(&[user(&max(0))], false));
    assert_eq!(d.session().tail_seq(), MAX_SEQ as i64);
    assert_eq!(d.session().diagnostics().duplicate_events, 1);
    assert_window(d.session());
}

/// Finding 3: the tail page `[2^63]` with `hasMore`, then `loadOlder` answered with
/// `[i64::MAX]`, overflowed `base - 1` in the prepend.
#[test]
fn an_older_page_below_a_tail_at_2_pow_63_does_not_overflow_the_prepend() {
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user(TWO_63)], true));
    assert_eq!(d.session().open_state(), OpenState::Error);
    // Within the bound: the tail at 2^53-1, the older page at 2^53-2 prepends.
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user(&max(0))], true));
    d.op(SID, SessionOp::LoadOlder);
    let before = d.answer("session.history", &page(&[user(I64_MAX)], true)).unwrap();
    assert_eq!(before["payload"]["beforeSeq"], MAX_SEQ);
    assert_eq!(d.session().window().len(), 1, "an out-of-range older page is refused");
    assert_window(d.session());
    d.op(SID, SessionOp::LoadOlder);
    d.answer("session.history", &page(&[user(&max(1))], false));
    assert_eq!((d.session().base_seq(), d.session().tail_seq()), (MAX_SEQ as i64 - 1, MAX_SEQ as i64));
    assert_window(d.session());
}

/// Finding 4: a tail page `[plan/mode at i64::MAX]`, a resync, the same page again
/// overflowed `p + 1` on the last plan commit.
#[test]
fn a_plan_commit_at_i64_max_installed_twice_does_not_overflow() {
    let plan_at = |seq: &str| event(seq, "plan/mode", r#"{"active":true}"#);
    let mut d = Driver::established();
    d.answer("session.history", &page(&[plan_at(I64_MAX)], false));
    d.input(agent_session::core::client::Input::Resync { session: SID.into() });
    d.answer("session.history", &page(&[plan_at(I64_MAX)], false));
    assert_window(d.session());
    // At the bound: both installs take the page.
    let mut d = Driver::established();
    d.answer("session.history", &page(&[plan_at(&max(0))], false));
    d.input(agent_session::core::client::Input::Resync { session: SID.into() });
    d.answer("session.history", &page(&[plan_at(&max(0))], false));
    assert_eq!(d.session().open_state(), OpenState::Open);
    assert_eq!(d.session().tail_seq(), MAX_SEQ as i64);
    assert_window(d.session());
}

/// Bend 1: a page `[u64::MAX]` followed by live seqs 0 and 1 was one window
/// `[u64::MAX, 0, 1]` (node ids `s-1, s0, s1`).
#[test]
fn a_page_at_u64_max_then_live_seqs_0_and_1_never_make_one_window() {
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user(U64_MAX)], false));
    d.frame("session/event", &live("0"));
    d.frame("session/event", &live("1"));
    assert!(d.session().window().is_empty());
    assert_window(d.session());
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user(&max(0))], false));
    d.frame("session/event", &live("0"));
    d.frame("session/event", &live("1"));
    assert_eq!(d.session().window().len(), 1, "below the tail: duplicates");
    assert_eq!(d.session().diagnostics().duplicate_events, 2);
    assert_window(d.session());
}

/// Bend 2: a `hasMore` lie prepended `[u64::MAX]` before `[0]`, and a second `loadOlder`
/// asked `beforeSeq: 18446744073709551615`, leaving `baseSeq: -2`.
#[test]
fn a_has_more_lie_never_asks_below_seq_0() {
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user("0")], true));
    assert!(d.session().has_more());
    d.op(SID, SessionOp::LoadOlder);
    assert_eq!(d.pending("session.history"), 0, "nothing is older than seq 0: not asked");
    assert!(!d.session().has_more());
    d.op(SID, SessionOp::LoadOlder);
    assert_eq!(d.pending("session.history"), 0);
    assert_window(d.session());
    // Above 0 the lie is asked once: an out-of-range answer is refused, an empty one ends it.
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user("3")], true));
    d.op(SID, SessionOp::LoadOlder);
    d.answer("session.history", &page(&[user(U64_MAX)], true));
    d.op(SID, SessionOp::LoadOlder);
    let body = d.answer("session.history", &page(&[], true)).unwrap();
    assert_eq!(body["payload"]["beforeSeq"], 3);
    assert!(!d.session().has_more(), "a page that does not abut ends the paging");
    assert_eq!(d.session().base_seq(), 3);
    assert_window(d.session());
}

/// Bend 3: any page or live run crossing 2^63 gave `tailSeq < baseSeq`.
#[test]
fn a_page_or_live_run_crossing_the_seq_bound_is_refused() {
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user(I64_MAX), user(TWO_63)], false));
    assert_eq!(d.session().open_state(), OpenState::Error);
    assert_window(d.session());
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user(&max(1)), user(&max(0))], false));
    let malformed = d.client.diagnostics().malformed_frames;
    d.frame("session/event", &live(&(MAX_SEQ + 1).to_string()));
    d.frame("session/event", &live(TWO_63));
    assert_eq!(d.client.diagnostics().malformed_frames, malformed + 2, "dropped and counted");
    assert_eq!(d.session().tail_seq(), MAX_SEQ as i64);
    assert_window(d.session());
}

/// `session/subscribed` with `lastSeq: i64::MAX` made the client re-fetch the tail forever;
/// within the bound, a tail that never comes is re-fetched a bounded number of times.
#[test]
fn a_subscribed_last_seq_that_never_arrives_stops_being_refetched_and_is_counted() {
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user("0"), user("1")], false));
    let malformed = d.client.diagnostics().malformed_frames;
    d.frame(
        "session/subscribed",
        &format!(r#"{{"type":"session/subscribed","sessionId":"{SID}","lastSeq":{I64_MAX}}}"#),
    );
    assert_eq!(d.client.diagnostics().malformed_frames, malformed + 1, "past the bound: malformed");
    d.frame(
        "session/subscribed",
        &format!(r#"{{"type":"session/subscribed","sessionId":"{SID}","lastSeq":{}}}"#, max(0)),
    );
    let mut pulls = 0;
    for _ in 0..200 {
        while d.answer("session.history", &page(&[user("0"), user("1")], false)).is_some() {
            pulls += 1;
        }
        d.advance(60_000.0);
    }
    assert!(pulls <= 12, "{pulls} tail pulls");
    assert!(pulls >= 3, "the claim is checked before it is given up");
    assert_eq!(d.session().diagnostics().unreached_tails, 1);
    assert_eq!(d.session().open_state(), OpenState::Open, "the window stays usable");
    d.frame("session/event", &live("2"));
    assert_eq!(d.session().tail_seq(), 2, "live events still append");
    assert_window(d.session());
}

/// 100k distinct unknown ids in `host/session-status` frames took 75 s (the last 10k: 23.5 s)
/// and +127 MiB; `question/requested` for unknown ids grew without a cap. Now each frame is
/// O(1) in the ids seen (printed: the time of the first and the last 10k), the stash is
/// capped in ids and bytes, and what it refuses is counted.
#[test]
fn a_flood_of_100k_unknown_session_ids_is_processed_in_linear_time_with_the_stash_capped() {
    use agent_session::core::client::router::{MAX_STASHED_IDS, MAX_STASH_BYTES};
    use agent_session::core::client::Input;
    let mut d = Driver::established();
    let n = 100_000;
    let mut tenths = Vec::new();
    let start = std::time::Instant::now();
    let mut last = start;
    for i in 0..n {
        let status = format!(
            r#"{{"type":"host/session-status","sessionId":"flood-{i}","running":true,"updatedAt":{}}}"#,
            1_000 + i % 977
        );
        let question = format!(
            r#"{{"type":"question/requested","sessionId":"flood-{i}","questions":[{{"id":"q","header":"h","question":"{}","options":[{{"label":"Yes","description":"d"}}]}}]}}"#,
            "q".repeat(200)
        );
        let mut bytes = Vec::new();
        for (method, payload) in [("host/session-status", status), ("question/requested", question)] {
            bytes.extend(
                format!(r#"data: {{"type":"server-request","rpcId":"q{i}","method":"{method}","payload":{payload}}}"#)
                    .bytes(),
            );
            bytes.extend(b"\n\n");
        }
        let stream = d.mux();
        d.input(Input::StreamBytes { stream, bytes });
        if (i + 1) % 10_000 == 0 {
            tenths.push(last.elapsed());
            last = std::time::Instant::now();
        }
    }
    let diag = d.client.diagnostics();
    println!(
        "100k unknown ids: {:?} in all, first 10k {:?}, last 10k {:?}; stash {} ids / {} bytes, {} frames refused",
        start.elapsed(),
        tenths[0],
        tenths[9],
        diag.stashed_sessions,
        diag.stashed_bytes,
        diag.unrouted_frames
    );
    assert_eq!(diag.malformed_frames, 0, "the flood's frames are well formed");
    assert_eq!(d.client.sessions().items().len(), n, "a host may list this many sessions");
    assert!(diag.stashed_sessions <= MAX_STASHED_IDS && diag.stashed_bytes <= MAX_STASH_BYTES);
    assert!(diag.unrouted_frames >= 2 * (n - MAX_STASHED_IDS) as u64, "every refused frame is counted");
    // Order is newest first, ties in arrival order (newest arrival first).
    let at: Vec<f64> = d.client.sessions().items().map(|i| i.updated_at).collect();
    assert!(at.windows(2).all(|w| w[0] >= w[1]));
    // A held session still gets its frames once it becomes resident.
    d.op("flood-0", SessionOp::Open);
    assert_eq!(d.client.session("flood-0").unwrap().pending().len(), 1);
    // `approval/requested` for more unknown ids: refused and counted the same way.
    let before = d.client.diagnostics().unrouted_frames;
    for i in 0..5_000 {
        let payload = format!(
            r#"{{"type":"approval/requested","sessionId":"approve-{i}","approvalId":"a{i}","toolName":"bash","reason":"{}"}}"#,
            "r".repeat(200)
        );
        let text = format!(
            r#"data: {{"type":"server-request","rpcId":"a{i}","method":"approval/requested","payload":{payload}}}"#
        );
        let stream = d.mux();
        d.input(Input::StreamBytes { stream, bytes: format!("{text}\n\n").into_bytes() });
    }
    let diag = d.client.diagnostics();
    assert_eq!(diag.malformed_frames, 0);
    assert!(diag.stashed_sessions <= MAX_STASHED_IDS && diag.stashed_bytes <= MAX_STASH_BYTES);
    // `flood-0` left the stash when it became resident: one approval takes its place.
    assert_eq!(diag.stashed_sessions, MAX_STASHED_IDS);
    assert_eq!(diag.unrouted_frames, before + 5_000 - 1, "the stash is full: the rest are refused and counted");
}

/// `question/requested` / `approval/requested` floods grew a session without bound (+168 /
/// +111 MiB for unknown ids; the same held for a resident one). Pending interactions are
/// capped and the drops counted.
#[test]
fn a_flood_of_questions_for_a_resident_session_is_capped_and_counted() {
    use agent_session::core::session::pending::MAX_PENDING;
    let mut d = Driver::established();
    d.answer("session.history", &page(&[user("0")], false));
    for i in 0..5_000 {
        let payload = format!(
            r#"{{"type":"question/requested","sessionId":"{SID}","questions":[{{"id":"q","header":"h","question":"q{i}","options":[{{"label":"Yes","description":"d"}}]}}]}}"#
        );
        let text = format!(
            r#"data: {{"type":"server-request","rpcId":"q{i}","method":"question/requested","payload":{payload}}}"#
        );
        let stream = d.mux();
        d.input(agent_session::core::client::Input::StreamBytes { stream, bytes: format!("{text}\n\n").into_bytes() });
    }
    assert_eq!(d.session().pending().len(), MAX_PENDING);
    assert_eq!(d.session().diagnostics().pending_dropped, (5_000 - MAX_PENDING) as u64);
    assert_window(d.session());
}
