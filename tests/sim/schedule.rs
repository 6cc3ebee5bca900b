//! Random schedules: one seed picks the host (plan service or not), the adversary's
//! temper, and every step's action.

use super::network::Conn;
use super::world::{trace, SimConfig, World};
use agent_session::core::client::hostclient::DEFAULT_MAX_RESPONSE_BYTES;
use agent_session::core::client::{Carrier, Retention, Transport};

/// What the run covered, summed over schedules.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub schedules: u64,
    pub steps: u64,
    pub events_logged: u64,
    pub disconnects: u64,
    pub restarts: u64,
    pub lossy_restarts: u64,
    pub frames_dropped: u64,
    pub duplicates: u64,
    pub repairs: u64,
    pub rejected_pages: u64,
    pub stale_responses: u64,
    pub plan_fenced: u64,
    pub plan_changes: u64,
    pub service_absent: u64,
    pub sessions: u64,
    pub generations: u64,
    pub websocket: u64,
    pub sse_fallback: u64,
    pub unwatches: u64,
    pub releases: u64,
    /// Deliveries that met a body begun in pieces.
    pub pieces: u64,
    /// Calls never answered that the client gave up at their deadline.
    pub timed_out: u64,
    /// Disconnects that were a handover of the shared connection.
    pub handovers: u64,
    /// What happened to the prompts made.
    pub prompts: super::world::PromptStats,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.schedules += o.schedules;
        self.steps += o.steps;
        self.events_logged += o.events_logged;
        self.disconnects += o.disconnects;
        self.restarts += o.restarts;
        self.lossy_restarts += o.lossy_restarts;
        self.frames_dropped += o.frames_dropped;
        self.duplicates += o.duplicates;
        self.repairs += o.repairs;
        self.rejected_pages += o.rejected_pages;
        self.stale_responses += o.stale_responses;
        self.plan_fenced += o.plan_fenced;
        self.plan_changes += o.plan_changes;
        self.service_absent += o.service_absent;
        self.sessions += o.sessions;
        self.generations += o.generations;
        self.websocket += o.websocket;
        self.sse_fallback += o.sse_fallback;
        self.unwatches += o.unwatches;
        self.releases += o.releases;
        self.pieces += o.pieces;
        self.timed_out += o.timed_out;
        self.handovers += o.handovers;
        let (p, q) = (&mut self.prompts, &o.prompts);
        p.made += q.made;
        p.made_offline += q.made_offline;
        p.lost_before_host += q.lost_before_host;
        p.answer_lost += q.answer_lost;
        p.never_answered += q.never_answered;
        p.at_restart += q.at_restart;
        p.at_lossy_restart += q.at_lossy_restart;
        p.accepted_not_logged_at_drop += q.accepted_not_logged_at_drop;
        p.landed += q.landed;
        p.failed += q.failed;
        p.lost_by_the_host += q.lost_by_the_host;
        p.resent += q.resent;
        p.deduplicated += q.deduplicated;
        p.duplicates += q.duplicates;
        p.lost += q.lost;
    }
}

#[derive(Clone, Copy)]
enum Action {
    Open,
    Prompt,
    Cancel,
    SetPlan,
    LoadOlder,
    Resync,
    Watch,
    Unwatch,
    HostProcess,
    HostAdvance,
    DeliverResponse,
    DeliverFrames,
    DropFrame,
    DupFrame,
    Lose,
    Disconnect,
    Reconnect,
    Establish,
    Restart,
    LossyRestart,
    TimePasses,
}

/// Runs one whole schedule: random steps with checks after each, then quiescence.
pub fn run(seed: u64) -> Stats {
    let mut w = {
        let mut r = super::rng::Rng::new(seed.wrapping_mul(31).wrapping_add(7));
        let sessions = [1, 1, 2, 3][r.below(4)];
        let (transport, sse_only) = match r.below(4) {
            0 => (Transport::Only(Carrier::Sse), false),
            1 => (Transport::Only(Carrier::WebSocket), false),
            2 => (Transport::Auto, false),
            _ => (Transport::Auto, true),
        };
        // Retention: sessions nobody watches are released past the warm set or their grace.
        let keep_warm = [0, 1, 4][r.below(3)];
        let release_after_ms = [0.0, 3_000.0, 60_000.0][r.below(3)];
        let retention = Retention { keep_warm, release_after_ms };
        let max_response_bytes = DEFAULT_MAX_RESPONSE_BYTES;
        World::new(
            seed,
            SimConfig { service: !r.chance(0.2), sessions, transport, sse_only, retention, max_response_bytes },
        )
    };
    trace(format!("== seed {seed} {:?}", w.cfg));
    let mut stats = Stats { schedules: 1, ..Stats::default() };
    stats.service_absent = (!w.cfg.service) as u64;
    stats.sessions = w.cfg.sessions as u64;
    stats.websocket = (w.cfg.transport != Transport::Only(Carrier::Sse) && !w.cfg.sse_only) as u64;
    stats.sse_fallback = w.cfg.sse_only as u64;

    // The adversary's temper for this schedule.
    let steps = w.rng.range(50, 200);
    let drop_w = [0, 1, 3, 8][w.rng.below(4)];
    let dup_w = [0, 1, 4][w.rng.below(3)];
    let disc_w = [0, 1, 2, 4][w.rng.below(4)];
    let restart_w = [0, 0, 1, 2][w.rng.below(4)];
    let lossy_w = if w.rng.chance(0.3) { [1, 2][w.rng.below(2)] } else { 0 };
    let lose_w = [0, 1, 3][w.rng.below(3)];
    let p_lose = [0.0, 0.3, 0.7][w.rng.below(3)];
    let plan_w = [2, 6, 14][w.rng.below(3)];
    let watch_w = [0, 1, 3][w.rng.below(3)];

    for _ in 0..steps {
        w.focus = w.rng.below(w.sims.len());
        let down = w.conn() == Conn::Down;
        let opening = w.conn() == Conn::Opening;
        let cold = w.session().open_state() == agent_session::core::session::OpenState::Cold;
        let weights: &[(Action, u32)] = &[
            (Action::Open, if cold { 6 } else { 1 }),
            (Action::Prompt, 5),
            (Action::Cancel, 1),
            (Action::SetPlan, plan_w),
            (Action::LoadOlder, 3),
            (Action::Resync, 1),
            (Action::Watch, if w.sims[w.focus].watched { 0 } else { 3 }),
            (Action::Unwatch, if w.sims[w.focus].watched { watch_w } else { 0 }),
            (Action::HostProcess, if w.net.requests.is_empty() { 0 } else { 14 }),
            (Action::HostAdvance, 10),
            (Action::DeliverResponse, if w.net.responses.is_empty() { 0 } else { 14 }),
            (Action::DeliverFrames, if w.net.stream.is_empty() { 0 } else { 14 }),
            (Action::DropFrame, if w.net.stream.is_empty() { 0 } else { drop_w }),
            (Action::DupFrame, dup_w),
            (Action::Lose, lose_w),
            (Action::Disconnect, if down { 0 } else { disc_w }),
            (Action::Reconnect, if down { 6 } else { 0 }),
            (Action::Establish, if opening { 6 } else { 0 }),
            (Action::Restart, restart_w),
            (Action::LossyRestart, lossy_w),
            (Action::TimePasses, if w.client.poll_timeout().is_none() { 0 } else { 3 }),
        ];
        let ws: Vec<u32> = weights.iter().map(|x| x.1).collect();
        let action = weights[w.rng.weighted(&ws)].0;
        match action {
            Action::Open => w.ui_open(),
            Action::Prompt => w.ui_prompt(),
            Action::Cancel => w.ui_cancel(),
            Action::SetPlan => {
                let a = w.rng.bool();
                w.ui_set_plan_mode(a)
            }
            Action::LoadOlder => w.ui_load_older(),
            Action::Resync => w.ui_resync(),
            Action::Watch => w.ui_watch(true),
            Action::Unwatch => {
                w.ui_watch(false);
                stats.unwatches += 1;
            }
            Action::HostProcess => {
                let i = w.rng.below(w.net.requests.len());
                w.host_process(i)
            }
            Action::HostAdvance => {
                let before = w.sims[w.focus].host.log.len();
                w.host_advance();
                stats.events_logged += (w.sims[w.focus].host.log.len() - before) as u64;
            }
            Action::DeliverResponse => {
                let i = w.rng.below(w.net.responses.len());
                if w.net.responses[i].streamed.is_some() {
                    stats.pieces += 1;
                }
                w.deliver_some(i)
            }
            Action::DeliverFrames => {
                for _ in 0..w.rng.range(1, 3) {
                    if !w.deliver_frame() {
                        break;
                    }
                    w.check();
                }
            }
            Action::DropFrame => {
                w.drop_frame();
                stats.frames_dropped += 1;
            }
            Action::DupFrame => {
                w.duplicate_frame();
                stats.duplicates += 1;
            }
            Action::Lose => {
                let n = w.net.requests.len() + w.net.responses.len();
                if n > 0 {
                    let i = w.rng.below(n);
                    w.lose(i, true);
                }
            }
            Action::Disconnect => {
                w.disconnect(p_lose);
                stats.disconnects += 1;
            }
            Action::Reconnect => w.reconnect(),
            Action::TimePasses => {
                w.time_passes();
            }
            Action::Establish => w.establish(),
            Action::Restart => {
                w.restart_host(None);
                stats.restarts += 1;
            }
            Action::LossyRestart => {
                let keep = w.rng.below(w.host().log.len() + 1);
                w.restart_host(Some(keep));
                stats.lossy_restarts += 1;
            }
        }
        w.check();
    }
    stats.steps = w.step as u64;
    w.quiesce_and_check();
    for sim in &w.sims {
        let d = w.client.session(&sim.id).expect("resident").diagnostics();
        stats.repairs += d.repairs;
        stats.rejected_pages += d.rejected_pages;
        stats.stale_responses += d.stale_responses;
        stats.plan_fenced += d.plan_responses_fenced;
        stats.releases += d.releases;
        stats.plan_changes += sim.checker.plan_changes;
    }
    stats.generations = w.client.connection().generation();
    stats.timed_out = w.net.timed_out;
    stats.handovers = w.net.handovers;
    stats.prompts = w.prompt_stats.clone();
    stats
}
