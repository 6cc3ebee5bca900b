//! The router: API routes, the admin route (only with `--faults`), the token, trust-fence
//! and CORS layers (outermost last), the body limit and the static file fallback.

use crate::app::App;
use crate::cli::Cli;
use crate::http::admin;
use crate::http::limits::MAX_BODY_BYTES;
use crate::http::{api, commands, rpc, streams};
use crate::trust::fence::Fence;
use crate::trust::security::{BadOrigin, TokenGate};
use crate::trust::{fence, security};
use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;
use tower_http::services::ServeDir;

pub fn router(app: Arc<App>, cli: &Cli, bound: SocketAddr) -> Result<Router, BadOrigin> {
    let mut routes = Router::new()
        .route("/api/respond", post(api::respond))
        .route("/api/commands/execute", post(commands::execute))
        .route("/api/commands/list", post(commands::list))
        .route("/api/{method}", post(api::call));
    if app.faults.is_some() {
        routes = routes.route_layer(from_fn_with_state(app.clone(), admin::gate));
    }
    // Below the fault gate: a ticket belongs to opening a stream, and the unary fault knobs
    // must not be spent on it.
    routes = routes
        .route("/api/stream.ticket", post(api::stream_ticket))
        .route("/api/events.mux", get(streams::mux))
        .route("/api/events.host", get(streams::host));
    if app.faults.is_some() {
        routes = routes.route("/admin/faults", post(admin::admin));
    }
    if let Some(token) = &cli.token {
        let gate = TokenGate { token: Arc::from(token.as_str()), app: app.clone() };
        routes = routes.route_layer(from_fn_with_state(gate, security::require_token));
    }
    let mut router = routes
        .method_not_allowed_fallback(rpc::not_found_handler)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app);
    router = match &cli.static_dir {
        Some(dir) => router.fallback_service(ServeDir::new(dir)),
        None => router.fallback(rpc::not_found_handler),
    };
    router =
        router.layer(from_fn_with_state(Arc::new(Fence::new(&cli.listen, bound, &cli.allow_origin)), fence::check));
    if !cli.allow_origin.is_empty() {
        router = router.layer(security::cors(&cli.allow_origin)?);
    }
    Ok(router)
}
