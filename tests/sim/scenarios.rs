//! Named, fixed schedules reproducing the network items of `docs/ADVERSARIAL.md` on the
//! same model host, network and invariant checks as the random schedules. Each ends at
//! quiescence (window tail = host tail, plan display = host state).

use super::model_host::ModelHost;
use super::network::Conn;
use super::world::{take_trace, SimConfig, World};
use agent_session::core::session::{Call, OpenState};
use agent_session::core::wire::{Frame, PlanModeState, SessionEvent};

fn world(service: bool) -> World {
    take_trace();
    let mut w = World::new(0x5eed, SimConfig::single(service));
    w.host_mut().page_size = Some(1000);
    w
}

/// An opened session on a host whose plan service is mounted and inactive.
fn opened_plan_inactive() -> World {
    let mut w = world(true);
    w.host_mut().plan = Some(super::model_host::HostPlan { active: false, pending: None });
    w.host_mut().initial_active = false;
    w.opened();
    w
}

fn state(active: bool, pending: Option<bool>) -> Option<PlanModeState> {
    Some(PlanModeState { active, pending })
}

/// Scripted steps, each followed by the invariant checks.
#[allow(dead_code)]
trait Script {
    fn act(&mut self, f: impl FnOnce(&mut World)) -> &mut Self;
    fn process(&mut self, pred: fn(&Call) -> bool) -> &mut Self;
    fn deliver(&mut self, pred: fn(&Call) -> bool) -> &mut Self;
    fn frames(&mut self, n: usize) -> &mut Self;
    fn all_frames(&mut self) -> &mut Self;
    fn log(&mut self, turns_steps: usize) -> &mut Self;
    /// open() answered with the tail page and the plan query answered.
    fn opened(&mut self) -> &mut Self;
}

fn history_tail(c: &Call) -> bool {
    matches!(c, Call::History { before_seq: None, .. })
}
fn plan_query(c: &Call) -> bool {
    matches!(c, Call::PlanMode)
}
fn select_true(c: &Call) -> bool {
    matches!(c, Call::SetPlanMode { active: true })
}
fn select_false(c: &Call) -> bool {
    matches!(c, Call::SetPlanMode { active: false })
}
fn prompt(c: &Call) -> bool {
    matches!(c, Call::Prompt { .. })
}

impl Script for World {
    fn act(&mut self, f: impl FnOnce(&mut World)) -> &mut Self {
        f(self);
        self.check();
        self
    }
    fn process(&mut self, pred: fn(&Call) -> bool) -> &mut Self {
        self.host_process_where(pred);
        self
    }
    fn deliver(&mut self, pred: fn(&Call) -> bool) -> &mut Self {
        self.deliver_response_where(pred);
        self
    }
    fn frames(&mut self, n: usize) -> &mut Self {
        for _ in 0..n {
            assert!(self.deliver_frame(), "scenario: no frame to deliver");
            self.check();
        }
        self
    }
    fn all_frames(&mut self) -> &mut Self {
        while self.deliver_frame() {
            self.check();
        }
        self
    }
    fn log(&mut self, n: usize) -> &mut Self {
        for _ in 0..n {
            self.host_advance();
            self.check();
        }
        self
    }
    fn opened(&mut self) -> &mut Self {
        self.act(|w| w.ui_open()).process(history_tail).deliver(history_tail).all_frames();
        if self.net.requests.iter().any(|r| r.call().is_some_and(plan_query)) {
            self.process(plan_query).deliver(plan_query);
        }
        self
    }
}

/// A whole prompt turn on the host: prompt sent, accepted, and its events logged.
/// Another client's prompt runs a whole turn on the host (the client under test is away: its
/// own prompts would wait in its outbox).
fn host_turn(w: &mut World) {
    let mut rng = super::rng::Rng::new(7);
    let content = agent_session::core::wire::Json::from_text("[]").unwrap();
    let call = Call::Prompt { mode: agent_session::core::wire::PromptMode::Queue, content, rpc_id: None };
    let _ = w.host_mut().process(&call, &mut rng);
    while {
        w.host_advance();
        w.check();
        !w.host().idle()
    } {}
}

fn run_turn(w: &mut World) {
    w.act(|w| w.ui_prompt()).process(prompt).deliver(prompt);
    while {
        w.host_advance();
        w.check();
        !w.host().idle()
    } {}
}

#[test]
fn a_unary_response_after_a_newer_stream_commit_loses_to_the_commit() {
    let mut w = opened_plan_inactive();
    assert_eq!(w.session().plan_mode(), state(false, None));
    // The selection is applied by the host, but its answer is slow.
    w.act(|w| w.ui_set_plan_mode(true)).process(select_true);
    // The next turn commits it on the stream before the answer arrives.
    run_turn(&mut w);
    w.all_frames();
    assert_eq!(w.session().plan_mode(), state(true, None), "the commit is shown");
    // The old answer ({active:false, pending:true}) arrives last: the commit wins.
    w.deliver(select_true);
    assert_eq!(w.session().plan_mode(), state(true, None), "a stale answer never replaces a newer commit");
    w.quiesce_and_check();
}

#[test]
fn a_unary_response_before_the_stream_catches_up_does_not_regress() {
    let mut w = opened_plan_inactive();
    w.act(|w| w.ui_set_plan_mode(true)).process(select_true).deliver(select_true);
    assert_eq!(w.session().plan_mode(), state(false, Some(true)));
    // The host commits at the next turn; the stream lags behind.
    run_turn(&mut w);
    // A selection answered by the committed host arrives before the commit's frame.
    w.act(|w| w.ui_set_plan_mode(true)).process(select_true).deliver(select_true);
    assert_eq!(w.session().plan_mode(), state(true, None));
    w.all_frames();
    assert_eq!(w.session().plan_mode(), state(true, None), "nothing regresses when the stream catches up");
    w.quiesce_and_check();
}

#[test]
fn a_selection_answered_before_the_stream_shows_its_commit_keeps_the_newer_pending() {
    let mut w = opened_plan_inactive();
    w.act(|w| w.ui_set_plan_mode(true)).process(select_true).deliver(select_true);
    // The host commits `true` at the next turn; the stream lags behind.
    run_turn(&mut w);
    // A new selection is answered by the committed host ({active:true, pending:false})
    // before the commit's frame reaches the client.
    w.act(|w| w.ui_set_plan_mode(false)).process(select_false).deliver(select_false);
    assert_eq!(w.session().plan_mode(), state(true, Some(false)));
    // The stream catches up: the commit is older than the answer already shown.
    w.all_frames();
    assert_eq!(
        w.session().plan_mode(),
        state(true, Some(false)),
        "the commit the answer already reflected does not erase its pending selection"
    );
    w.quiesce_and_check();
}

#[test]
fn overlapping_selections_answered_out_of_order() {
    let mut w = opened_plan_inactive();
    // Two selections in flight; the host applies them in the order sent.
    w.act(|w| w.ui_set_plan_mode(true)).act(|w| w.ui_set_plan_mode(false));
    w.process(select_true).process(select_false);
    assert_eq!(w.host().plan_state(), state(false, None));
    // Their answers arrive in the opposite order.
    w.deliver(select_false);
    assert_eq!(w.session().plan_mode(), state(false, None));
    w.deliver(select_true);
    assert_eq!(
        w.session().plan_mode(),
        state(false, None),
        "the older selection's answer does not overwrite the newer one's"
    );
    w.quiesce_and_check();
}

#[test]
fn a_gap_whose_repair_overlaps_buffered_frames() {
    let mut w = world(true);
    w.opened();
    run_turn(&mut w);
    let total = w.net.stream.len();
    assert!(total >= 6, "a turn logs at least six events");
    // Deliver two, drop one (the gap), deliver two more: they are buffered and a repair
    // (a tail pull) goes out.
    w.frames(2).act(|w| w.drop_frame()).frames(2);
    let tail = w.session().tail_seq();
    assert!(w.net.requests.iter().any(|r| r.call().is_some_and(history_tail)), "a gap starts a repair");
    // More frames arrive while the repair is in flight (buffered too), then the host
    // answers the repair with a page that overlaps all of them.
    run_turn(&mut w);
    w.process(history_tail).frames(3).deliver(history_tail);
    assert!(w.session().tail_seq() > tail, "the repair moved the window on");
    w.all_frames();
    w.quiesce_and_check();
    assert_eq!(w.session().diagnostics().repairs, 1, "one repair, no loop");
}

#[test]
fn a_repair_that_fails_is_bounded() {
    let mut w = world(true);
    w.opened();
    run_turn(&mut w);
    w.frames(1).act(|w| w.drop_frame()).all_frames();
    // Every repair attempt fails: bounded, no loop, the window stays usable.
    for _ in 0..10 {
        if !w.net.requests.iter().any(|r| r.call().is_some_and(history_tail)) {
            break;
        }
        let i = w.net.requests.iter().position(|r| r.call().is_some_and(history_tail)).unwrap();
        w.act(|w| w.lose(i, false)).process(history_tail).deliver(history_tail);
    }
    assert!(w.session().diagnostics().repairs <= agent_session::core::session::MAX_REPAIRS_PER_TAIL as u64);
    assert!(w.net.requests.is_empty(), "no repair loop");
    w.quiesce_and_check();
}

#[test]
fn host_restart_that_lost_its_log_rebuilds() {
    let mut w = opened_plan_inactive();
    w.act(|w| w.ui_set_plan_mode(true)).process(select_true).deliver(select_true);
    run_turn(&mut w);
    run_turn(&mut w);
    // A gap leaves a frame of the old log buffered.
    w.frames(1).act(|w| w.drop_frame()).frames(2);
    let old_tail = w.host().last_seq();
    // The host restarts having lost everything but its first event (and the commit).
    w.act(|w| w.restart_host(Some(1)));
    assert_eq!(w.host().plan_state(), state(false, None));
    w.act(|w| w.reconnect()).all_frames().act(|w| w.establish());
    // The restarted host moves on past the old tail with a different log.
    for _ in 0..3 {
        run_turn(&mut w);
    }
    assert!(w.host().last_seq() > old_tail);
    w.quiesce_and_check();
    assert!(!w.sims[0].lenient, "the client rebuilt from the restarted host's log");
    let read = |evs: &[SessionEvent]| evs.iter().map(SessionEvent::chunk_read).collect::<Vec<_>>();
    assert_eq!(read(&w.session().window().to_vec()), read(&w.host().log[w.session().base_seq() as usize..]));
}

#[test]
fn host_restart_that_kept_its_log_resumes_without_duplicates() {
    let mut w = world(true);
    w.opened();
    run_turn(&mut w);
    w.frames(3);
    w.act(|w| w.restart_host(None));
    w.act(|w| w.reconnect()).all_frames();
    // Live frames of the new connection arrive before the generation is established.
    host_turn(&mut w);
    w.frames(2).act(|w| w.establish());
    w.quiesce_and_check();
    let seqs: Vec<u64> = w.session().window().iter().map(|e| e.seq).collect();
    let mut dedup = seqs.clone();
    dedup.dedup();
    assert_eq!(seqs, dedup, "no duplicates");
}

#[test]
fn a_reconnect_that_lands_on_a_host_that_moved_on() {
    let mut w = opened_plan_inactive();
    w.act(|w| w.disconnect(0.0));
    // While the client is away: a selection by another client, a turn that commits it,
    // new events, and another pending selection.
    let mut rng = super::rng::Rng::new(1);
    w.host_mut().select_elsewhere(true, &mut rng);
    let _ = w.host_mut().process(
        &Call::Prompt {
            mode: agent_session::core::wire::PromptMode::Queue,
            content: agent_session::core::wire::Json::from_text("[]").unwrap(),
            rpc_id: None,
        },
        &mut rng,
    );
    while {
        w.host_advance();
        !w.host().idle()
    } {}
    w.host_mut().select_elsewhere(false, &mut rng);
    assert_eq!(w.host().plan_state(), state(true, Some(false)));
    w.act(|w| w.reconnect());
    match &w.net.stream.front().expect("subscribed first").frame.frame {
        Frame::Subscribed(s) => assert_eq!(s.last_seq, w.host().last_seq()),
        other => panic!("expected subscribed, got {other:?}"),
    }
    w.all_frames().act(|w| w.establish());
    w.quiesce_and_check();
    assert_eq!(w.session().plan_mode(), state(true, Some(false)));
}

#[test]
fn wall_clock_jumps_do_not_matter() {
    let mut w = world(true);
    w.host_mut().clock_backwards = true;
    w.opened();
    for _ in 0..3 {
        run_turn(&mut w);
        w.all_frames();
    }
    let times: Vec<f64> = w.session().window().iter().map(|e| e.time).collect();
    assert!(times.windows(2).all(|p| p[1] < p[0]), "the host's clock ran backwards");
    w.quiesce_and_check();
    // And random schedules under a backwards clock.
    for seed in 0..50 {
        take_trace();
        let mut w = World::new(seed, SimConfig::single(true));
        w.host_mut().clock_backwards = true;
        w.act(|w| w.ui_open());
        for _ in 0..40 {
            w.settle_one_random();
            w.check();
        }
        w.quiesce_and_check();
    }
}

#[test]
fn frames_before_the_first_window_and_a_drop_while_loading() {
    let mut w = world(true);
    run_turn(&mut w);
    w.act(|w| w.ui_open());
    // Frames arrive before the tail page; one is lost.
    w.frames(2).act(|w| w.drop_frame()).all_frames();
    run_turn(&mut w);
    w.process(history_tail).all_frames().deliver(history_tail);
    assert_eq!(w.session().open_state(), OpenState::Open);
    w.quiesce_and_check();
}

#[test]
fn plan_service_absent_never_shows_a_state() {
    let mut w = world(false);
    w.opened();
    w.act(|w| w.ui_set_plan_mode(true)).process(select_true).deliver(select_true);
    run_turn(&mut w);
    w.all_frames();
    assert_eq!(w.session().plan_mode(), None);
    assert!(w.host().log.iter().all(|e| e.kind != "plan/mode"));
    w.quiesce_and_check();
    assert_eq!(w.conn(), Conn::Established);
    let _ = ModelHost::transport_error("unused");
}

/// A world whose client releases an unwatched session on the next timer turn.
fn releasing_world() -> World {
    take_trace();
    let cfg = SimConfig {
        retention: agent_session::core::client::Retention { keep_warm: 0, release_after_ms: 0.0 },
        ..SimConfig::single(true)
    };
    let mut w = World::new(0x5eed, cfg);
    w.host_mut().page_size = Some(1000);
    w
}

#[test]
fn an_unwatched_session_goes_cold_and_a_reopen_rebuilds_it_across_a_lossy_restart() {
    let mut w = releasing_world();
    w.host_mut().plan = Some(super::model_host::HostPlan { active: false, pending: None });
    w.opened();
    run_turn(&mut w);
    w.all_frames();
    w.act(|w| w.ui_watch(false)).act(|w| {
        w.time_passes();
    });
    assert_eq!(w.session().open_state(), OpenState::Cold, "released on the next timer turn");
    assert_eq!(w.session().diagnostics().releases, 1);
    assert!(w.session().window().is_empty() && w.session().nodes().is_empty());
    assert_eq!(w.session().plan_mode(), None, "nothing shown that no window confirms");
    // While it is cold the host loses most of its log, comes back and moves on.
    w.act(|w| w.restart_host(Some(2)));
    w.act(|w| w.reconnect()).all_frames().act(|w| w.establish());
    assert!(
        w.net.requests.iter().all(|r| !r.call().is_some_and(history_tail)),
        "a reconnect does not re-fetch a released session"
    );
    run_turn(&mut w);
    w.all_frames();
    w.act(|w| w.ui_watch(true)).opened();
    w.quiesce_and_check();
    assert_eq!(w.session().tail_seq(), w.host().last_seq());
}

#[test]
fn a_warm_unwatched_session_misses_a_generation_and_resyncs_when_watched_again() {
    let mut w = world(true);
    w.opened();
    run_turn(&mut w);
    w.all_frames();
    w.act(|w| w.ui_watch(false));
    w.act(|w| w.disconnect(0.0));
    host_turn(&mut w); // the host moves on while the client is away
    w.act(|w| w.reconnect()).all_frames().act(|w| w.establish());
    assert!(
        w.net.requests.iter().all(|r| !r.call().is_some_and(history_tail)),
        "the reconnect leaves the unwatched session alone"
    );
    assert_eq!(w.session().open_state(), OpenState::Open, "warm: its window stays");
    assert!(w.session().tail_seq() < w.host().last_seq(), "and is behind the host");
    w.act(|w| w.ui_watch(true));
    assert!(w.net.requests.iter().any(|r| r.call().is_some_and(history_tail)), "watched again: it resyncs");
    w.process(history_tail).deliver(history_tail).all_frames();
    w.quiesce_and_check();
}

/// The requests the client is waiting on whose answer never comes (the world's `hung`).
fn hang(w: &mut World, pred: fn(&Call) -> bool) {
    let i = w.net.requests.iter().position(|r| r.call().is_some_and(pred)).expect("scenario: no such request");
    w.net.requests[i].fate = super::network::Fate::Unanswered;
    w.host_process(i);
    w.check();
}

/// Time passes to the client's timers until no call hangs; returns when the last went.
fn until_given_up(w: &mut World) -> f64 {
    while !w.net.hung.is_empty() {
        assert!(w.time_passes(), "a call hangs and no timer is armed for it");
        w.check();
    }
    w.now
}

#[test]
fn a_request_never_answered_times_out_on_the_clients_timer_and_the_session_recovers() {
    use agent_session::core::client::host::DEFAULT_TIMEOUT_MS;
    let mut w = world(true);
    let sent = w.now;
    w.act(|w| w.ui_open());
    hang(&mut w, history_tail);
    let deadline = sent + DEFAULT_TIMEOUT_MS;
    assert!(
        w.client.poll_timeout().is_some_and(|at| at.as_ms() <= deadline),
        "the call's deadline is in the one timer table"
    );
    assert_eq!(until_given_up(&mut w), deadline, "given up exactly at its deadline");
    assert_eq!(w.net.timed_out, 1, "through the client's abort");
    assert_eq!(w.session().open_state(), OpenState::Error);
    let why = &w.session().open_error().expect("the open failed").message;
    assert_eq!(why, "session.history: timed out after 30000 ms", "the shell's words, now the core's");
    assert_eq!(w.client.diagnostics().inflight_calls, 0);
    // As after any failed request: the UI opens again and the session converges.
    w.opened();
    assert_eq!(w.session().open_state(), OpenState::Open);
    // A prompt whose answer never comes: the outbox looks it up and it lands exactly once.
    w.act(|w| w.ui_prompt());
    hang(&mut w, prompt);
    until_given_up(&mut w);
    w.quiesce_and_check();
    assert_eq!(w.host().logged_prompts().count(), 1, "the prompt landed once");
}

#[test]
fn a_response_body_over_max_response_bytes_is_aborted_and_the_session_recovers() {
    take_trace();
    let cfg = SimConfig { max_response_bytes: 2048, ..SimConfig::single(true) };
    let mut w = World::new(0x5eed, cfg);
    w.host_mut().page_size = Some(1000);
    // The host's log grows past what one page may carry under the bound.
    while w.host().log.len() < 60 {
        host_turn(&mut w);
    }
    w.act(|w| w.ui_open()).process(history_tail);
    let call = w.net.responses.iter().find(|r| r.call().is_some_and(history_tail)).expect("the page").id;
    // The page arrives in pieces; past the bound the client gives the call up.
    while let Some(i) = w.net.responses.iter().position(|r| r.id == call) {
        w.deliver_piece(i);
        w.check();
    }
    assert_eq!(w.session().open_state(), OpenState::Error, "the page was never installed");
    let why = &w.session().open_error().expect("the open failed").message;
    assert_eq!(why, "session.history: response body over the 2048-byte limit (maxResponseBytes)");
    assert!(w.session().window().is_empty(), "nothing of the oversized page is kept");
    // A host that pages within the bound: the UI opens again and the session converges.
    w.host_mut().page_size = Some(4);
    w.quiesce_and_check();
    assert_eq!(w.session().open_state(), OpenState::Open);
}
