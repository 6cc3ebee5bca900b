//! The accept loop: the router on hyper's HTTP/1.1 connections with timeouts, so clients that
//! stall cannot hold the host's descriptors (slowloris). `axum::serve` sets no timeouts: with
//! a 256-descriptor limit, 356 connections each sending part of its headers made a new client's
//! `host.describe` time out.

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::time::Duration;
use tokio::net::TcpListener;
use tower_http::timeout::RequestBodyTimeout;

/// How long a connection may stall. Invariant: both are non-zero (`Cli` refuses 0).
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// To send a whole request head, counted from when the host starts waiting for one: a new
    /// connection, or a keep-alive connection after its last response (so an idle connection
    /// between requests closes after this long, too).
    pub header: Duration,
    /// Between two reads of a request body: a body that stops arriving fails the request.
    pub idle: Duration,
}

pub async fn serve(listener: TcpListener, router: Router, t: Timeouts) -> std::io::Result<()> {
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            // Out of descriptors (or a connection reset before it was taken): the stalled
            // connections time out and free theirs; wait a little instead of spinning.
            Err(e) if is_per_connection(&e) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        let _ = tcp.set_nodelay(true);
        let service = TowerToHyperService::new(RequestBodyTimeout::new(router.clone(), t.idle));
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new()).header_read_timeout(t.header);
            // An error here is this connection's (a timeout, a reset, a bad request): it is
            // closed and nothing else is affected.
            let _ = http.serve_connection(TokioIo::new(tcp), service).with_upgrades().await;
        });
    }
}

/// Accept errors that concern one connection or a passing shortage, not the listener.
fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(e.kind(), ConnectionAborted | ConnectionReset | Interrupted | WouldBlock | TimedOut)
        || matches!(e.raw_os_error(), Some(23 | 24 | 105 | 12)) // ENFILE, EMFILE, ENOBUFS, ENOMEM
}
