//! Named scenario tests of the session core, one per anchor behaviour.

mod harness;

mod fold_prepend;
mod host_2026_08;
mod interaction;
mod live_path;
mod open;
mod outbox;
mod pending_and_prompt;
mod plan_mode;
mod plan_projection;
mod repair_and_paging;
mod resync;
