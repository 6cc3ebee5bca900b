//! The router: API routes, the admin route (only with `--faults`), token and CORS layers,
//! the body limit and the static file fallback.

use crate::app::App;
use crate::cli::Cli;
use crate::limits::MAX_BODY_BYTES;
use crate::{api, faults, rpc, security, streams};
use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;
use tower_http::services::ServeDir;

pub fn router(app: Arc<App>, cli: &Cli) -> Result<Router, String> {
    let mut routes = Router::new().route("/api/respond", post(api::respond)).route("/api/{method}", post(api::call));
    if app.faults.is_some() {
        routes = routes.route_layer(from_fn_with_state(app.clone(), faults::gate));
    }
    routes = routes.route("/api/events.mux", get(streams::mux)).route("/api/events.host", get(streams::host));
    if app.faults.is_some() {
        routes = routes.route("/admin/faults", post(faults::admin));
    }
    if let Some(token) = &cli.token {
        routes = routes.route_layer(from_fn_with_state(Arc::<str>::from(token.as_str()), security::require_token));
    }
    let mut router = routes
        .method_not_allowed_fallback(rpc::not_found_handler)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(app);
    router = match &cli.static_dir {
        Some(dir) => router.fallback_service(ServeDir::new(dir)),
        None => router.fallback(rpc::not_found_handler),
    };
    if !cli.allow_origin.is_empty() {
        router = router.layer(security::cors(&cli.allow_origin)?);
    }
    Ok(router)
}
