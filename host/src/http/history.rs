//! `session.history`: pages that end on message boundaries, plus the projection baseline on
//! the tail page (Extension 1).

use crate::app::App;
use crate::http::limits::{DEFAULT_PAGE_MESSAGES, MAX_PAGE_EVENTS, MAX_PAGE_MESSAGES};
use crate::http::rpc::internal;
use crate::log::plan;
use crate::log::session::Session;
use agent_session_wire::{HistoryItem, HistoryPayload, HistoryValue, ProjectionBaseline, RpcError};

pub async fn page(app: &App, s: &Session, p: &HistoryPayload) -> Result<HistoryValue, RpcError> {
    let max_messages = p.max_messages.map_or(DEFAULT_PAGE_MESSAGES, |m| m.get()).clamp(1, MAX_PAGE_MESSAGES);
    // Under the log lock the tail page and its baseline describe the same instant.
    let log = s.log.lock().await;
    let last = log.last_seq;
    let upper = match p.before_seq {
        Some(before) => (before.min(i64::MAX as u64) as i64 - 1).min(last),
        None => last,
    };
    let (events, start) = app.store.page(s.pk, upper, max_messages, MAX_PAGE_EVENTS).map_err(internal)?;
    let projections = p.before_seq.is_none().then(|| {
        let mut values = std::collections::BTreeMap::new();
        if app.options.plan_mode {
            let value = plan::value(log.plan.state()).into();
            values.insert(
                plan::PROJECTION_KEY.to_string(),
                app.options.wire.projection_out(plan::PROJECTION_KEY, &value),
            );
        }
        for (key, value) in &log.projections {
            values.insert(key.clone(), value.into());
        }
        if app.options.wire.is_upstream() {
            // The 2026-08 host keeps the title as a projection (`null` before one is set).
            let title =
                log.title.as_ref().map_or(serde_json::Value::Null, |t| serde_json::Value::String(t.title.clone()));
            values.insert("title".to_string(), title.into());
        }
        ProjectionBaseline { as_of_seq: last, values: values.into_iter().collect() }
    });
    drop(log);
    Ok(HistoryValue {
        has_more: !events.is_empty() && start > 0,
        events: events
            .into_iter()
            .map(|event| HistoryItem { event: app.options.wire.event_into(event), view: None })
            .collect(),
        projections,
    })
}
