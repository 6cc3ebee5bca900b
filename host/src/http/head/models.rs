//! `session.models {sessionId}` → `{current, routable, groups, failures}` and
//! `session.selectModel {sessionId, provider, model, reasoningEffort?}` → `{selected}`.
//!
//! As upstream: `current` is the session's selection, else the config of its last logged
//! `request/header`, else the default (the session's provider and that route's first model);
//! `routable` says whether this host serves `current.provider`; a selection naming a route
//! the host does not serve, or an effort its model does not take, is `model-unavailable`; an
//! omitted effort takes the model's default. Catalog membership is advisory: any model id on
//! a served route is accepted. Upstream publishes nothing when a model is selected (no frame,
//! no projection), and neither does this host. Unlike upstream's in-process selection, the
//! selection here is a SQLite row: it survives a restart.

use super::answer::{Answer, Refused};
use crate::app::App;
use crate::http::check::payload;
use crate::http::rpc::internal;
use crate::log::session::Session;
use crate::providers::models::{catalog, Group};
use crate::providers::registry::Provider;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelsPayload {
    session_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SelectPayload {
    session_id: String,
    provider: String,
    model: String,
    reasoning_effort: Option<String>,
}

fn groups(app: &App) -> Vec<Group> {
    let (own, own_model) = app.agent.describe();
    catalog(&own, &own_model, |p: Provider| app.agent.session_provider(Some(p)).is_ok())
}

fn selection(provider: &str, model: &str, effort: Option<&str>) -> Value {
    let mut v = json!({ "provider": provider, "model": model });
    if let Some(e) = effort {
        v["reasoningEffort"] = json!(e);
    }
    v
}

async fn current(app: &App, s: &Session, groups: &[Group]) -> Result<Value, Refused> {
    if let Some(selected) = app.store.model_selection(s.pk).map_err(internal)? {
        return Ok(selected);
    }
    let header = s.log.lock().await.last_header.clone();
    let config = header.as_ref().map(|h| &h["header"]["config"]);
    if let Some((Some(provider), Some(model))) = config.map(|c| (c["provider"].as_str(), c["model"].as_str())) {
        return Ok(selection(provider, model, config.and_then(|c| c["reasoningEffort"].as_str())));
    }
    let route = s.provider.clone().unwrap_or_else(|| app.agent.describe().0);
    let model = groups.iter().find(|g| g.id == route).and_then(|g| g.models.first()).map(|m| m.id.clone());
    Ok(selection(&route, &model.unwrap_or_else(|| app.agent.describe().1), None))
}

pub async fn models(app: &App, p: &Value) -> Answer {
    let p: ModelsPayload = payload("session.models", p)?;
    let s = app.session(&p.session_id)?;
    let groups = groups(app);
    let current = current(app, &s, &groups).await?;
    let routable = groups.iter().any(|g| Some(g.id.as_str()) == current["provider"].as_str());
    // Groups advertising nothing are dropped, as upstream drops them.
    let listed: Vec<Value> = groups.iter().filter(|g| !g.models.is_empty()).map(Group::to_json).collect();
    Ok(json!({ "current": current, "routable": routable, "groups": listed, "failures": [] }))
}

pub async fn select(app: &App, p: &Value) -> Answer {
    let p: SelectPayload = payload("session.selectModel", p)?;
    let s = app.session(&p.session_id)?;
    let unavailable = |message: String| {
        Refused::new("model-unavailable", message, json!({ "provider": p.provider, "model": p.model }))
    };
    let groups = groups(app);
    let Some(group) = groups.iter().find(|g| g.id == p.provider) else {
        return Err(unavailable(format!("no adapter serves provider {:?}", p.provider)));
    };
    let model = group.models.iter().find(|m| m.id == p.model);
    let efforts = model.map_or(&[][..], |m| m.efforts);
    let effort = p.reasoning_effort.as_deref().or(model.and_then(|m| m.default_effort));
    if let Some(e) = effort.filter(|e| !efforts.iter().any(|(id, _)| id == e)) {
        return Err(unavailable(format!(
            "provider {:?} model {:?} does not support reasoning effort {e:?}",
            p.provider, p.model
        )));
    }
    let selected = selection(&p.provider, &p.model, effort);
    app.store.set_model_selection(s.pk, &selected).map_err(internal)?;
    Ok(json!({ "selected": selected }))
}
