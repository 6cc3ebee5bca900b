//! The accept loop: the router on hyper's HTTP/1.1 connections with timeouts, so clients that
//! stall cannot hold the host's descriptors (slowloris). `axum::serve` sets no timeouts: with
//! a 256-descriptor limit, 356 connections each sending part of its headers made a new client's
//! `host.describe` time out. The header timeout alone still let a few hundred half-open
//! connections hold every descriptor for its whole length, so connections still waiting for
//! their first request head are also bounded: past the bound (or out of descriptors) the
//! oldest of them is closed, and its descriptor serves the newcomer.

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
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
    let pending = Arc::new(Pending::new(raise_nofile() / 2));
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            // Out of descriptors: the oldest connection without a request head gives up its
            // own; with none to close, the stalled ones time out. Either way no spinning.
            Err(e) if matches!(e.raw_os_error(), Some(23 | 24)) => {
                let ms = if pending.evict_oldest() { 1 } else { 50 };
                tokio::time::sleep(Duration::from_millis(ms)).await;
                continue;
            }
            // A connection reset before it was taken, or a passing shortage.
            Err(e) if is_per_connection(&e) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        let _ = tcp.set_nodelay(true);
        let (id, evicted) = pending.add();
        let headed = Headed { pending: pending.clone(), id, done: Arc::new(AtomicBool::new(false)) };
        let service = FirstHead {
            inner: TowerToHyperService::new(RequestBodyTimeout::new(router.clone(), t.idle)),
            headed: headed.clone(),
        };
        tokio::spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new()).header_read_timeout(t.header);
            // An error here is this connection's (a timeout, a reset, a bad request): it is
            // closed and nothing else is affected.
            let conn = http.serve_connection(TokioIo::new(tcp), service).with_upgrades();
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                // Sent: evicted before its head came (dropping `conn` closes it). Dropped: the
                // head came, so it is served to its end.
                closed = evicted => if closed.is_err() { let _ = conn.await; },
            }
            headed.mark();
        });
    }
}

/// The next id, and each waiting connection's id with the sender that closes it.
type Queue = (u64, VecDeque<(u64, oneshot::Sender<()>)>);

/// Connections accepted and still waiting for their first request head, oldest first, each
/// with the sender that closes it.
struct Pending {
    max: usize,
    queue: Mutex<Queue>,
}

impl Pending {
    fn new(max: usize) -> Pending {
        Pending { max: max.clamp(16, 4096), queue: Mutex::new((0, VecDeque::new())) }
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// A new connection; past the bound the oldest one without a head is closed.
    fn add(&self) -> (u64, oneshot::Receiver<()>) {
        let (tx, rx) = oneshot::channel();
        let mut q = self.lock();
        let id = q.0;
        q.0 += 1;
        q.1.push_back((id, tx));
        if q.1.len() > self.max {
            if let Some((_, oldest)) = q.1.pop_front() {
                let _ = oldest.send(());
            }
        }
        (id, rx)
    }
    fn evict_oldest(&self) -> bool {
        let oldest = self.lock().1.pop_front();
        oldest.is_some_and(|(_, tx)| tx.send(()).is_ok())
    }
    /// Drops the entry (its head came, or it ended): the dropped sender says so.
    fn remove(&self, id: u64) {
        let mut q = self.lock();
        if let Some(at) = q.1.iter().position(|(i, _)| *i == id) {
            q.1.remove(at);
        }
    }
}

/// One connection's entry in [`Pending`], taken out once.
#[derive(Clone)]
struct Headed {
    pending: Arc<Pending>,
    id: u64,
    done: Arc<AtomicBool>,
}

impl Headed {
    fn mark(&self) {
        if !self.done.swap(true, Ordering::Relaxed) {
            self.pending.remove(self.id);
        }
    }
}

/// The service, telling [`Pending`] when the connection's first request head has been read.
struct FirstHead<S> {
    inner: S,
    headed: Headed,
}

impl<S: hyper::service::Service<R>, R> hyper::service::Service<R> for FirstHead<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;
    fn call(&self, req: R) -> S::Future {
        self.headed.mark();
        self.inner.call(req)
    }
}

/// Raises the soft descriptor limit to the hard one (a low soft limit is common and only
/// costs connections); returns the soft limit now in force.
fn raise_nofile() -> usize {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 256;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit { rlim_cur: lim.rlim_max, rlim_max: lim.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
    }
    usize::try_from(lim.rlim_cur).unwrap_or(usize::MAX)
}

/// Accept errors that concern one connection or a passing shortage, not the listener.
fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(e.kind(), ConnectionAborted | ConnectionReset | Interrupted | WouldBlock | TimedOut)
        || matches!(e.raw_os_error(), Some(23 | 24 | 105 | 12)) // ENFILE, EMFILE, ENOBUFS, ENOMEM
}
