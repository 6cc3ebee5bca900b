//! Fault knobs (`--faults` only): what `POST /admin/faults` (`crate::http::admin`) sets and the
//! log path and the response gate spend. See host/README.md.

use serde_json::{json, Value};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;

#[derive(Default)]
struct Knobs {
    withhold: u32,
    delay: u32,
    delay_ms: u64,
    skip_mux_events: u32,
    fail: u32,
    /// Only responses of this method fail (`None`: any unary response).
    fail_method: Option<String>,
}

#[derive(Default)]
pub struct Faults {
    knobs: Mutex<Knobs>,
    /// Bumped by `release`: every withheld response is then sent.
    release: watch::Sender<u64>,
}

enum Hold {
    Withhold,
    Delay(Duration),
}

impl Faults {
    fn knobs(&self) -> std::sync::MutexGuard<'_, Knobs> {
        self.knobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session/event frame being broadcast is to be skipped (it stays in the log).
    pub fn take_skip_mux_event(&self) -> bool {
        let mut k = self.knobs();
        if k.skip_mux_events > 0 {
            k.skip_mux_events -= 1;
            true
        } else {
            false
        }
    }

    /// Withholds the response until `release`, or delays it, if a knob says so.
    pub async fn hold(&self) {
        match self.take_hold() {
            Some(Hold::Withhold) => {
                let mut release = self.release.subscribe();
                let _ = release.changed().await;
            }
            Some(Hold::Delay(d)) => tokio::time::sleep(d).await,
            None => {}
        }
    }

    fn take_hold(&self) -> Option<Hold> {
        let mut k = self.knobs();
        if k.withhold > 0 {
            k.withhold -= 1;
            Some(Hold::Withhold)
        } else if k.delay > 0 {
            k.delay -= 1;
            Some(Hold::Delay(Duration::from_millis(k.delay_ms)))
        } else {
            None
        }
    }

    /// The response to `path` is to be replaced by a carrier error.
    pub fn take_fail(&self, path: &str) -> bool {
        let mut k = self.knobs();
        let matches = k.fail_method.as_deref().is_none_or(|m| path.strip_prefix("/api/") == Some(m));
        if k.fail > 0 && matches {
            k.fail -= 1;
            true
        } else {
            false
        }
    }

    pub fn withhold(&self, count: u32) {
        self.knobs().withhold += count;
    }

    pub fn delay(&self, count: u32, ms: u64) {
        let mut k = self.knobs();
        k.delay += count;
        k.delay_ms = ms;
    }

    /// Sends every withheld response.
    pub fn release(&self) {
        self.release.send_modify(|e| *e += 1);
    }

    pub fn skip_mux_events(&self, count: u32) {
        self.knobs().skip_mux_events += count;
    }

    pub fn fail(&self, count: u32, method: Option<String>) {
        let mut k = self.knobs();
        k.fail += count;
        k.fail_method = method;
    }

    /// Every knob back to zero, and every withheld response sent.
    pub fn clear(&self) {
        *self.knobs() = Knobs::default();
        self.release();
    }

    pub fn status(&self) -> Value {
        let k = self.knobs();
        json!({ "withhold": k.withhold, "delay": k.delay, "delayMs": k.delay_ms, "skipMuxEvents": k.skip_mux_events,
                "fail": k.fail, "failMethod": k.fail_method })
    }
}
