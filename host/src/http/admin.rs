//! Fault injection (`--faults` only): `POST /admin/faults` takes one command object or an
//! array of them; see host/README.md. Without the flag the route does not exist (404). The
//! knobs themselves live in `crate::faults`.

use crate::app::App;
use crate::log::session::{AppendError, NewEvent};
use crate::log::store::StoreError;
use agent_session_wire::read::Obj;
use agent_session_wire::{Frame, Json, RpcError, SessionIdFrame, StreamErrorFrame};
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;

/// Upper bound of a seed, to keep a typo from filling the disk.
const MAX_SEED_EVENTS: u64 = 2_000_000;

/// Unary responses pass here: the handler has run (its effects are committed) and the
/// response is then withheld until `release`, delayed, or replaced by a carrier error.
pub async fn gate(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let response = next.run(req).await;
    let Some(faults) = &app.faults else { return response };
    if faults.take_fail(&path) {
        return bad(StatusCode::SERVICE_UNAVAILABLE, "injected failure".into());
    }
    faults.hold().await;
    response
}

#[derive(Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case", rename_all_fields = "camelCase")]
enum Command {
    DropStreams,
    /// Sends one `stream/error` frame on the mux stream (the client must end the generation).
    StreamError,
    Withhold {
        #[serde(default = "one")]
        count: u32,
    },
    Delay {
        #[serde(default = "one")]
        count: u32,
        ms: u64,
    },
    Release,
    SkipMuxEvent {
        #[serde(default = "one")]
        count: u32,
    },
    Fail {
        #[serde(default = "one")]
        count: u32,
        method: Option<String>,
    },
    ResetStore {
        #[serde(default)]
        keep_sessions: bool,
    },
    Clear,
    Status,
    Seed {
        session_id: Option<String>,
        events: u64,
        #[serde(default = "ten")]
        message_every: u64,
        #[serde(default)]
        broadcast: bool,
    },
    /// Appends one event through the live path (commit + broadcast) with `data` kept as its
    /// text, as an agent's relayed output is: `{command: "append", sessionId, kind, data}`.
    /// Read apart from the others (see `command`): serde's tagged enums buffer a value as a
    /// tree, which refuses some of what the wire's reader accepts.
    #[serde(skip)]
    Append {
        session_id: String,
        kind: String,
        data: Json,
    },
}

/// One command object. `append` is read by the wire's reader, its `data` kept raw.
fn command(raw: &RawValue) -> Result<Command, String> {
    let o = Obj::parse(raw.get()).map_err(|e| e.to_string())?;
    if o.str_ref("command").ok().as_deref() != Some("append") {
        return serde_json::from_str(raw.get()).map_err(|e| e.to_string());
    }
    let data = o.raw("data").map_or_else(Json::null, Json::from_raw);
    Ok(Command::Append {
        session_id: o.str("sessionId").map_err(|e| e.to_string())?,
        kind: o.str("kind").map_err(|e| e.to_string())?,
        data,
    })
}

fn one() -> u32 {
    1
}
fn ten() -> u64 {
    10
}

fn bad(status: StatusCode, message: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain;charset=UTF-8")], message).into_response()
}

pub async fn admin(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Some(faults) = &app.faults else { return crate::http::rpc::not_found() };
    let Ok(text) = std::str::from_utf8(&body) else { return crate::http::rpc::not_json() };
    let raws: Vec<&RawValue> = match serde_json::from_str::<&RawValue>(text) {
        Ok(one) if one.get().starts_with('[') => match serde_json::from_str(one.get()) {
            Ok(items) => items,
            Err(_) => return crate::http::rpc::not_json(),
        },
        Ok(one) => vec![one],
        Err(_) => return crate::http::rpc::not_json(),
    };
    let commands: Vec<Command> = match raws.into_iter().map(command).collect() {
        Ok(c) => c,
        Err(e) => return bad(StatusCode::BAD_REQUEST, format!("bad fault command: {e}")),
    };
    let mut results = Vec::new();
    for c in commands {
        let r = match c {
            Command::DropStreams => {
                app.hub.drop_streams();
                json!({})
            }
            Command::StreamError => {
                let error = json!({ "code": "injected", "message": "injected stream/error" });
                app.hub.mux(app.hub.out(&Frame::StreamError(StreamErrorFrame { error: error.into() })));
                json!({})
            }
            Command::Withhold { count } => {
                faults.withhold(count);
                json!({})
            }
            Command::Delay { count, ms } => {
                faults.delay(count, ms);
                json!({})
            }
            Command::Release => {
                faults.release();
                json!({})
            }
            Command::SkipMuxEvent { count } => {
                faults.skip_mux_events(count);
                json!({})
            }
            Command::Fail { count, method } => {
                faults.fail(count, method);
                json!({})
            }
            Command::Clear => {
                faults.clear();
                json!({})
            }
            Command::Status => json!({}),
            Command::ResetStore { keep_sessions } => match reset_store(&app, keep_sessions).await {
                Ok(()) => json!({}),
                Err(e) => return bad(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            },
            Command::Append { session_id, kind, data } => match append(&app, &session_id, kind, data).await {
                Ok(seq) => json!({ "seq": seq }),
                Err(e) => return bad(StatusCode::BAD_REQUEST, e.to_string()),
            },
            Command::Seed { session_id, events, message_every, broadcast } => {
                match seed(&app, session_id, events, message_every.max(1), broadcast).await {
                    Ok(v) => v,
                    Err(e) => return bad(StatusCode::BAD_REQUEST, e.to_string()),
                }
            }
        };
        results.push(r);
    }
    let body = json!({
        "ok": true,
        "results": results,
        "faults": faults.status(),
        "downlinks": crate::http::streams::open_downlinks(),
        "framesWritten": crate::http::streams::frames_written(),
    });
    ([(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// The host "loses its log": running turns are interrupted, every event (and, unless
/// `keep_sessions`, every session) is deleted, pending interactions are dropped and every
/// stream is ended so clients reconnect to the new state.
async fn reset_store(app: &App, keep_sessions: bool) -> Result<(), StoreError> {
    let sessions = app.sessions();
    for s in &sessions {
        let mut ctl = s.ctl.lock().await;
        ctl.queue.clear();
        if let Some(tx) = &ctl.interrupt {
            tx.send_replace(true);
        }
    }
    let mut logs = Vec::new();
    for s in &sessions {
        logs.push(s.log.lock().await);
    }
    app.store.reset(keep_sessions)?;
    for (s, log) in sessions.iter().zip(logs.iter_mut()) {
        if keep_sessions {
            s.clear_log(log);
        } else {
            s.removed.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    drop(logs);
    app.interactions.clear(None);
    if !keep_sessions {
        for s in app.forget_sessions() {
            app.hub.host(app.hub.out(&Frame::SessionRemoved(SessionIdFrame { session_id: s.id.clone() })));
        }
    }
    app.hub.drop_streams();
    Ok(())
}

/// Synthetic event `seq` of a seeded log: a user and an assistant message every
/// `every` events, text-delta chunks between.
fn seed_event(seq: u64, every: u64) -> (&'static str, Value) {
    if seq.is_multiple_of(every) {
        (
            "user/message",
            json!({ "content": [{ "type": "text", "text": format!("seed message {seq}") }],
                                  "source": { "kind": "user", "rpcId": "seed" } }),
        )
    } else if seq % every == every / 2 {
        (
            "assistant/message",
            json!({ "turn": 1, "step": 1, "content": [{ "type": "text", "text": format!("seed reply {seq}") }],
                                       "provenance": { "provider": "seed", "model": "seed" } }),
        )
    } else {
        (
            "assistant/chunk",
            json!({ "turn": 1, "step": 1, "chunk": { "type": "text-delta", "index": 0, "text": " seed" } }),
        )
    }
}

#[derive(Debug)]
enum SeedError {
    TooMany,
    NoSession(RpcError),
    Store(StoreError),
    Append(AppendError),
}

impl std::fmt::Display for SeedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SeedError::TooMany => write!(f, "seed: at most {MAX_SEED_EVENTS} events"),
            SeedError::NoSession(e) => f.write_str(&e.message),
            SeedError::Store(e) => write!(f, "{e}"),
            SeedError::Append(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SeedError {}

async fn append(app: &App, session_id: &str, kind: String, data: Json) -> Result<u64, SeedError> {
    let s = app.session(session_id).map_err(SeedError::NoSession)?;
    Ok(s.append(app, NewEvent::relayed(kind, data)).await.map_err(SeedError::Append)?.seq)
}

/// Hidden load-check helper: appends `events` synthetic events, either in one silent bulk
/// transaction or one by one through the live path (commit + broadcast).
async fn seed(
    app: &App,
    session_id: Option<String>,
    events: u64,
    every: u64,
    broadcast: bool,
) -> Result<Value, SeedError> {
    if events > MAX_SEED_EVENTS {
        return Err(SeedError::TooMany);
    }
    let s = match session_id {
        Some(id) => app.session(&id).map_err(SeedError::NoSession)?,
        None => app.create_session(None, None).map_err(SeedError::Store)?,
    };
    let started = Instant::now();
    let last_seq = if broadcast {
        let mut last = s.last_seq.load(std::sync::atomic::Ordering::SeqCst);
        for _ in 0..events {
            let (kind, data) = seed_event((last + 1) as u64, every);
            last = s.append(app, NewEvent::new(kind, data)).await.map_err(SeedError::Append)?.seq as i64;
        }
        last
    } else {
        s.seed_silent(app, |seq| seed_event(seq, every), events).await.map_err(SeedError::Append)?
    };
    Ok(json!({ "sessionId": s.id, "lastSeq": last_seq, "elapsedMs": started.elapsed().as_secs_f64() * 1000.0 }))
}
