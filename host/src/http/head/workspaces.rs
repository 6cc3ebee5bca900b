//! `workspace.list/create/rename/delete/insertBefore/insertSessionBefore/archiveSession` and
//! `session.create {workspaceId}` over the registry (`crate::log::registry`), with upstream's
//! payloads, values and codes. Each durable change is saved, then published on the host
//! downlink under the registry lock (so frames leave in commit order), as upstream's host does:
//! `host/workspace-changed {workspace}` after a create, rename, session move or attach;
//! `host/workspace-removed {workspaceId}` after a delete; `host/workspace-order-changed
//! {workspaceIds}` after a reorder; `host/archived-sessions-changed {archivedSessionIds}` after
//! an archive. A no-op (same title, same position, already archived) writes and publishes
//! nothing.

use super::answer::{publish_host, Answer, Refused};
use crate::app::App;
use crate::http::check::{payload, too_short};
use crate::http::rpc::{custom_issue, internal, invalid_payload};
use crate::log::registry::{iso8601, Refusal, Registry, Workspace};
use crate::log::session::now_ms;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Ids {
    workspace_id: Option<String>,
    session_id: Option<String>,
    before_workspace_id: Option<String>,
    before_session_id: Option<String>,
    path: Option<String>,
    title: Option<String>,
}

/// Upstream's `WorkspaceView`: the account lists only sessions this host holds.
fn view(app: &App, w: &Workspace) -> Value {
    let ids: Vec<&String> = w.session_ids.iter().filter(|id| app.session(id).is_ok()).collect();
    json!({ "workspaceId": w.id, "path": w.path, "title": w.title, "sessionIds": ids,
        "createdAt": w.created_at, "updatedAt": w.updated_at })
}

fn refused(r: Refusal) -> Refused {
    match r {
        Refusal::NotFound(id) => {
            Refused::new("workspace-not-found", format!("workspace \"{id}\" not found"), json!({ "workspaceId": id }))
        }
        Refusal::NameConflict(name) => Refused::new(
            "workspace-name-conflict",
            format!("workspace name '{name}' is already in use"),
            json!({ "name": name }),
        ),
        // Callers add the ids to the details.
        Refusal::MoveInvalid(message) => Refused::new("workspace-move-invalid", message, json!({})),
    }
}

/// One registry change: `change` runs on a copy, which is saved (if it differs) and then
/// published (`frames`: type and members) before the lock is let go.
fn mutate<T>(
    app: &App,
    change: impl FnOnce(&mut Registry) -> Result<(T, Vec<(&'static str, Value)>), Refused>,
) -> Result<T, Refused> {
    let mut registry = app.registry.lock().unwrap_or_else(|e| e.into_inner());
    let mut next = registry.clone();
    let (out, frames) = change(&mut next)?;
    if next != *registry {
        app.store.save_registry(&next).map_err(internal)?;
        *registry = next;
    }
    for (kind, members) in frames {
        publish_host(app, kind, members);
    }
    Ok(out)
}

fn changed(app: &App, w: &Workspace) -> (&'static str, Value) {
    ("host/workspace-changed", json!({ "workspace": view(app, w) }))
}

fn required(v: Option<String>) -> String {
    // `check::payload` has already refused a missing field.
    v.unwrap_or_default()
}

pub fn dispatch(app: &App, method: &str, p: &Value) -> Answer {
    let ids: Ids = payload(method, p)?;
    let now = iso8601(now_ms());
    match method {
        "workspace.list" => {
            let r = app.registry.lock().unwrap_or_else(|e| e.into_inner());
            let items: Vec<Value> = r.workspaces.iter().map(|w| view(app, w)).collect();
            Ok(json!({ "items": items, "archivedSessionIds": r.archived }))
        }
        "workspace.create" => {
            let path = required(ids.path);
            let bad = |why: String| {
                Refused::new(
                    "workspace-invalid-path",
                    format!("cannot create a workspace at \"{path}\": {why}"),
                    json!({ "path": path }),
                )
            };
            // Upstream's canon: realpath (symlinks, `..`, trailing slashes), an existing directory.
            let canonical = std::fs::canonicalize(&path).map_err(|e| bad(e.to_string()))?;
            if !canonical.is_dir() {
                return Err(bad("path is not a directory".into()));
            }
            let canonical = canonical.to_string_lossy().into_owned();
            mutate(app, |r| {
                let (w, created) = r.create(&canonical, &now);
                let frames = if created { vec![changed(app, &w)] } else { vec![] };
                Ok((json!({ "workspace": view(app, &w), "created": created }), frames))
            })
        }
        "workspace.rename" => {
            let title = required(ids.title).trim().to_string();
            if title.is_empty() {
                let issue = custom_issue(vec![], "workspace.rename requires a non-blank title");
                return Err(invalid_payload(method, vec![issue]).into());
            }
            mutate(app, |r| {
                let (w, did) = r.rename(&required(ids.workspace_id), &title, &now).map_err(refused)?;
                Ok((json!({ "workspace": view(app, &w) }), did.then(|| changed(app, &w)).into_iter().collect()))
            })
        }
        "workspace.delete" => mutate(app, |r| {
            let id = required(ids.workspace_id);
            r.delete(&id).map_err(refused)?;
            Ok((json!({ "deleted": true }), vec![("host/workspace-removed", json!({ "workspaceId": id }))]))
        }),
        "workspace.insertBefore" => mutate(app, |r| {
            let (order, did) =
                r.insert_before(&required(ids.workspace_id), ids.before_workspace_id.as_deref()).map_err(refused)?;
            let frames = did.then(|| ("host/workspace-order-changed", json!({ "workspaceIds": order })));
            Ok((json!({ "workspaceIds": order }), frames.into_iter().collect()))
        }),
        "workspace.insertSessionBefore" => mutate(app, |r| {
            let (id, session) = (required(ids.workspace_id), required(ids.session_id));
            let before = ids.before_session_id.as_deref();
            let (w, did) = r.insert_session_before(&id, &session, before, &now).map_err(|e| {
                let mut refusal = refused(e);
                if refusal.0["code"] == "workspace-move-invalid" {
                    refusal.0["details"] = json!({ "workspaceId": id, "sessionId": session });
                    if let Some(b) = before {
                        refusal.0["details"]["beforeSessionId"] = json!(b);
                    }
                }
                refusal
            })?;
            Ok((json!({ "workspace": view(app, &w) }), did.then(|| changed(app, &w)).into_iter().collect()))
        }),
        "workspace.archiveSession" => {
            let session = required(ids.session_id);
            mutate(app, |r| {
                // An id already archived is answered without asking whether the session exists.
                let known = r.archived.contains(&session) || app.session(&session).is_ok();
                if !known {
                    return Err(Refused::new(
                        "session-not-found",
                        format!("cannot archive session '{session}': live sessions and session persistence hold no such session"),
                        json!({ "sessionId": session }),
                    ));
                }
                let did = r.archive(&session);
                let set = json!({ "archivedSessionIds": r.archived });
                let frames = did.then(|| ("host/archived-sessions-changed", set.clone()));
                Ok((set, frames.into_iter().collect()))
            })
        }
        _ => Err(internal(format!("no handler for {method}")).into()),
    }
}

/// `session.create {workspaceId}`: the session is created in the workspace's directory and
/// announced (`host/session-added`), then accounted first in the workspace
/// (`host/workspace-changed`). `cwd` beside it is refused, as upstream's schema refuses it; a
/// workspace deleted in between is upstream's `workspace-attach-failed`.
pub fn create_session(app: &Arc<App>, p: &Value) -> Answer {
    const METHOD: &str = agent_session_wire::SESSION_CREATE;
    let mut p = p.clone();
    let Some(obj) = p.as_object_mut() else { return Err(invalid_payload(METHOD, vec![]).into()) };
    let id = match obj.remove("workspaceId") {
        Some(Value::String(id)) if !id.is_empty() => id,
        Some(Value::String(_)) => {
            return Err(invalid_payload(METHOD, vec![too_short(vec![json!("workspaceId")])]).into())
        }
        _ => {
            let issue = crate::http::rpc::issue(vec![json!("workspaceId")], "expected string");
            return Err(invalid_payload(METHOD, vec![issue]).into());
        }
    };
    if obj.contains_key("cwd") {
        let issue = custom_issue(vec![], "session.create accepts workspaceId or cwd, not both");
        return Err(invalid_payload(METHOD, vec![issue]).into());
    }
    let path = {
        let r = app.registry.lock().unwrap_or_else(|e| e.into_inner());
        r.get(&id).map(|w| w.path.clone()).ok_or_else(|| refused(Refusal::NotFound(id.clone())))?
    };
    obj.insert("cwd".into(), json!(path));
    let created = crate::http::verbs::create(app, &p)?;
    let session = created["sessionId"].as_str().unwrap_or_default().to_string();
    let now = iso8601(now_ms());
    mutate(app, |r| match r.attach(&id, &session, &now) {
        Ok(w) => Ok(((), vec![changed(app, &w)])),
        Err(e) => Err(Refused::new(
            "workspace-attach-failed",
            format!("session \"{session}\" was created but could not attach to workspace \"{id}\": {e:?}"),
            json!({ "sessionId": session, "workspaceId": id }),
        )),
    })?;
    Ok(created)
}
