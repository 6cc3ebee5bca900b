//! A plan-mode turn of a provider session: the profile's native payloads go through the
//! session's adapter one by one (paced like chunks), and the canonical outputs are logged.
//!
//! The outputs are logged by `crate::agent::outputs`; when one is a question the turn waits for
//! `session.answer` and continues with the profile's closing payloads.
//! A cancel while waiting feeds the provider's "withdrawn" payload (the prompt resolves
//! `cancelled`).

use crate::agent::outputs::{Out, Waiter};
use crate::agent::turns::{Run, Stop};
use crate::providers::adapters::Answered;
use crate::providers::registry::Provider;
use crate::providers::scripted::{self as profiles, Ctx};
use serde_json::Value;
use tokio::sync::oneshot;

impl Run<'_> {
    pub(super) async fn provider_plan_turn(&mut self, profile: Provider) -> Result<(), Stop> {
        let (s, turn) = (self.s, self.turn);
        let ctx = Ctx { session_id: &s.id, turn: turn.number, prompt: &turn.text };
        let mut out = Out::new();
        self.step_start(1).await?;
        let mut waiting = None;
        for (i, native) in profiles::opening(profile, &ctx).iter().enumerate() {
            self.pause().await?;
            if let Some(w) = self.feed(native, &mut out).await? {
                waiting = Some(w);
            }
            if self.title_due && i >= 1 {
                self.model_title().await?;
            }
        }
        if self.title_due {
            self.model_title().await?;
        }
        if let Some((prompt_id, rx)) = waiting {
            let answered = self.wait_prompt(profile, &ctx, &prompt_id, rx, &mut out).await?;
            self.end_step(&mut out, "tool-use").await?;
            out.step += 1;
            out.step_has_message = false;
            self.step_start(out.step).await?;
            for native in profiles::closing(profile, &ctx, &answered.result) {
                self.pause().await?;
                self.feed(&native, &mut out).await?;
            }
        }
        Ok(self.end_step(&mut out, "stop").await?)
    }

    /// One native payload through the adapter; its outputs are applied under one log lock.
    async fn feed(&mut self, native: &Value, out: &mut Out) -> Result<Option<Waiter>, Stop> {
        let mut log = self.s.log.lock().await;
        let Some(ps) = log.provider.as_mut() else { return Ok(None) };
        let outs = ps.adapter.ingest(native);
        Ok(self.apply(&mut log, outs, out)?)
    }

    /// Waits for `session.answer`; an interrupt withdraws the prompt through the adapter.
    async fn wait_prompt(
        &mut self,
        profile: Provider,
        ctx: &Ctx<'_>,
        prompt_id: &str,
        mut rx: oneshot::Receiver<Answered>,
        out: &mut Out,
    ) -> Result<Answered, Stop> {
        let waiting = crate::log::session::Waiting::start(self.app, self.s);
        tokio::select! {
            biased;
            r = &mut rx => if let Ok(a) = r { return Ok(a) },
            _ = self.interrupt.wait_for(|i| *i) => {}
        }
        drop(waiting);
        let mut log = self.s.log.lock().await;
        if let Some(ps) = log.provider.as_mut() {
            ps.waiters.remove(prompt_id);
            if let Some(native) = profiles::withdrawn(profile, ctx) {
                let outs = ps.adapter.ingest(&native);
                self.apply(&mut log, outs, out)?;
            }
        }
        Err(Stop::Interrupted)
    }
}
