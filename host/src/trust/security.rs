//! Bearer-token check and the CORS allow-list. CORS is off unless origins are named; a
//! request from any other origin (preflights included) never gets here: the trust fence
//! (`fence.rs`) refuses it with 403.

use crate::app::App;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use tower_http::cors::{AllowOrigin, CorsLayer};

#[derive(Clone)]
pub struct TokenGate {
    pub token: Arc<str>,
    pub app: Arc<App>,
}

/// The `ticket` query parameter of a WebSocket upgrade on a downlink path.
fn upgrade_ticket(req: &Request) -> Option<&str> {
    let path = req.uri().path();
    if !(path == "/api/events.mux" || path == "/api/events.host")
        || !crate::http::streams::wants_websocket(req.headers())
    {
        return None;
    }
    req.uri().query()?.split('&').find_map(|pair| pair.strip_prefix("ticket="))
}

/// Every `/api/` and `/admin/` request needs `Authorization: Bearer <token>`, except a
/// WebSocket upgrade on a downlink, which may instead present an unused `stream.ticket`
/// (browsers cannot set headers on a WebSocket). A presented ticket is spent here, whether
/// or not the upgrade then succeeds.
pub async fn require_token(State(gate): State<TokenGate>, req: Request, next: Next) -> Response {
    let presented =
        req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    if presented == Some(&*gate.token) || upgrade_ticket(&req).is_some_and(|t| gate.app.tickets.redeem(t)) {
        return next.run(req).await;
    }
    (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "text/plain;charset=UTF-8"), (header::WWW_AUTHENTICATE, "Bearer")],
        "unauthorized: this host requires `Authorization: Bearer <token>`",
    )
        .into_response()
}

/// An `--allow-origin` value that is not a header value.
#[derive(Debug)]
pub struct BadOrigin(pub String);

impl std::fmt::Display for BadOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad --allow-origin {:?}", self.0)
    }
}

impl std::error::Error for BadOrigin {}

/// Preflights from listed origins are answered; every response (streams included) carries
/// the CORS headers for them.
pub fn cors(origins: &[String]) -> Result<CorsLayer, BadOrigin> {
    let list = origins
        .iter()
        .map(|o| HeaderValue::from_str(o.trim_end_matches('/')).map_err(|_| BadOrigin(o.clone())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(CorsLayer::new()
        .allow_origin(AllowOrigin::list(list))
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers([header::CONTENT_TYPE, header::AUTHORIZATION]))
}
