//! The model directory `session.models` answers (2026-08 dialect): one group per provider
//! route this host's runtime serves, each with the models it advertises. The list is
//! advisory, as upstream's is: a selection outside it stays valid for its route.

use crate::providers::registry::Provider;
use serde_json::{json, Value};

/// One advertised model; `efforts` empty when it takes no reasoning effort.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub id: String,
    pub name: String,
    pub description: Option<&'static str>,
    pub efforts: &'static [(&'static str, &'static str)],
    pub default_effort: Option<&'static str>,
}

/// One provider route and its models.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub id: String,
    pub name: String,
    pub models: Vec<Model>,
}

const EFFORTS: &[(&str, &str)] = &[("low", "Low"), ("medium", "Medium"), ("high", "High")];

fn model(id: &str, name: &str, description: Option<&'static str>) -> Model {
    Model { id: id.into(), name: name.into(), description, efforts: &[], default_effort: None }
}

/// What each provider profile advertises (the models its scripted copy names).
fn advertised(p: Provider) -> (&'static str, Vec<Model>) {
    match p {
        Provider::Codex => (
            "Codex",
            vec![Model {
                efforts: EFFORTS,
                default_effort: Some("medium"),
                ..model("gpt-5.1-codex", "GPT-5.1 Codex", None)
            }],
        ),
        Provider::Claude => ("Claude", vec![model("claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", None)]),
        Provider::Cursor => ("Cursor", vec![model("auto", "Auto", Some("Cursor picks the model"))]),
        Provider::Acp => ("ACP agent", Vec::new()),
    }
}

const PROFILES: [Provider; 4] = [Provider::Codex, Provider::Claude, Provider::Cursor, Provider::Acp];

/// The routes a runtime serves: its own (`own`, `own_model`: what `host.describe` names)
/// first, then each provider profile it `plays`. The runtime's own model leads its group.
pub fn catalog(own: &str, own_model: &str, plays: impl Fn(Provider) -> bool) -> Vec<Group> {
    let mut groups = Vec::new();
    if Provider::parse(Some(own)).ok().flatten().is_none() {
        groups.push(Group { id: own.into(), name: own.into(), models: vec![model(own_model, own_model, None)] });
    }
    for p in PROFILES.into_iter().filter(|p| plays(*p)) {
        let (name, mut models) = advertised(p);
        if p.name() == own && !models.iter().any(|m| m.id == own_model) {
            models.insert(0, model(own_model, own_model, None));
        }
        groups.push(Group { id: p.name().into(), name: name.into(), models });
    }
    groups
}

impl Model {
    /// Upstream's `ModelCatalogModel`.
    pub fn to_json(&self) -> Value {
        let mut v = json!({ "id": self.id, "name": self.name });
        if let Some(d) = self.description {
            v["description"] = json!(d);
        }
        if !self.efforts.is_empty() {
            let efforts: Vec<Value> = self.efforts.iter().map(|(id, name)| json!({ "id": id, "name": name })).collect();
            v["reasoning"] = json!({ "efforts": efforts });
            if let Some(d) = self.default_effort {
                v["reasoning"]["defaultEffort"] = json!(d);
            }
        }
        v
    }
}

impl Group {
    /// Upstream's `ModelProviderGroup`.
    pub fn to_json(&self) -> Value {
        json!({ "id": self.id, "name": self.name, "models": self.models.iter().map(Model::to_json).collect::<Vec<_>>() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripted_host_serves_its_own_route_and_each_profile_it_plays() {
        let groups = catalog("scripted", "scripted-agent-1", |p| p != Provider::Acp);
        let ids: Vec<&str> = groups.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(ids, ["scripted", "codex", "claude", "cursor"]);
        assert_eq!(groups[1].models[0].to_json()["reasoning"]["defaultEffort"], "medium");
        // A real agent's own model leads its provider's group.
        let claude = catalog("claude", "claude-opus-4", |p| p == Provider::Claude);
        let models: Vec<&str> = claude[0].models.iter().map(|m| m.id.as_str()).collect();
        assert_eq!((claude.len(), models), (1, vec!["claude-opus-4", "claude-sonnet-4-5-20250929"]));
    }
}
