//! The two downlinks, `GET /api/events.mux` and `GET /api/events.host`, over SSE or
//! WebSocket (`--downlinks`). The frames come from one carrier-agnostic [`FrameSource`], so
//! the prelude, replay, coverage and fault behaviour are the same on both carriers; `sse`
//! and `ws` only write them.
//!
//! Modules: `source` (a downlink's frames: the mux open prelude, then live frames), `sse` and
//! `ws` (the two carriers).

mod source;
mod sse;
mod ws;

use crate::app::App;
use crate::dialect::Downlinks;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use source::FrameSource;
use std::sync::Arc;

pub use source::{frames_written, open_downlinks};

type Upgrade = Result<WebSocketUpgrade, WebSocketUpgradeRejection>;

/// `GET /api/events.mux`: `session/subscribed` for every session, pending questions and
/// approvals, then live frames.
pub async fn mux(State(app): State<Arc<App>>, headers: HeaderMap, upgrade: Upgrade) -> Response {
    serve(&app, &headers, upgrade, FrameSource::mux)
}

/// `GET /api/events.host`: session added/removed/status and agent errors.
pub async fn host(State(app): State<Arc<App>>, headers: HeaderMap, upgrade: Upgrade) -> Response {
    serve(&app, &headers, upgrade, FrameSource::host)
}

/// The request asks for a WebSocket (`Upgrade: websocket`), whether or not it is a valid one.
pub fn wants_websocket(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::UPGRADE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|p| p.trim().eq_ignore_ascii_case("websocket")))
}

fn serve(app: &App, headers: &HeaderMap, upgrade: Upgrade, open: fn(&App) -> FrameSource) -> Response {
    match (app.options.downlinks, wants_websocket(headers)) {
        // The seed host had no WebSocket route: an upgrade request just got the SSE stream,
        // which a browser's `new WebSocket()` fails on at once (no 101).
        (Downlinks::Sse, _) | (Downlinks::Both, false) => sse::response(open(app)),
        (Downlinks::Ws | Downlinks::Both, true) => match upgrade {
            Ok(upgrade) => ws::response(upgrade, open(app)),
            Err(rejection) => rejection.into_response(),
        },
        (Downlinks::Ws, false) => upgrade_required(),
    }
}

/// A plain GET on a WebSocket-only host, as upstream answers it.
fn upgrade_required() -> Response {
    (
        StatusCode::UPGRADE_REQUIRED,
        [
            (header::CONTENT_TYPE, "text/plain;charset=UTF-8"),
            (header::CONNECTION, "Upgrade"),
            (header::UPGRADE, "websocket"),
        ],
        "upgrade required",
    )
        .into_response()
}
