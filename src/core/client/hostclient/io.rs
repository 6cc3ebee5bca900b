//! What crosses the sans-IO boundary: the driver's inputs, the client's outputs, and the
//! handles and time that tie them together.

use crate::core::client::carrier::{Carrier, Transport};
use crate::core::client::connection::{Backoff, StreamKind};
use crate::core::client::retention::Retention;
use crate::core::wire::interaction::Answer;
use crate::core::wire::{Json, PromptMode, RpcResult};

pub use crate::core::time::Instant;

/// One unary call the client asked the driver to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CallId(pub u64);

/// One downlink stream the client asked the driver to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamId(pub u64);

/// The driver's handle for one user operation (its promise): named by [`Input::Session`] or
/// [`Input::Host`], settled exactly once by [`Output::Settle`]. The session core tags the same
/// operation with its own [`OpId`](crate::core::session::OpId); the bearer token of the options
/// is another thing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct OpHandle(pub u64);

/// The default of [`Config::connect_timeout_ms`] and [`Config::request_timeout_ms`] (one
/// option of the shell's sets both).
pub const DEFAULT_TIMEOUT_MS: f64 = 30_000.0;

/// The default of [`Config::max_response_bytes`]: a 100k-event history page is ~15 MB.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 64 << 20;

/// Construction parameters.
#[derive(Debug, Clone)]
pub struct Config {
    /// Which downlink carrier to use.
    pub transport: Transport,
    /// The reconnect delays.
    pub backoff: Backoff,
    /// How long a generation may take to be established.
    pub connect_timeout_ms: f64,
    /// How long a unary call may go unanswered: past it the call is aborted
    /// ([`Output::Abort`]) and fails as `timed out after N ms` (0: no deadline).
    pub request_timeout_ms: f64,
    /// The largest unary response body read: once more has arrived in
    /// [`Input::ResponseBytes`] the call is aborted and fails naming the limit
    /// (`maxResponseBytes`, the shell's option).
    pub max_response_bytes: u64,
    /// A bearer token is configured: each WebSocket first mints a one-time ticket.
    pub authenticated: bool,
    /// Prefix of every minted envelope `rpcId` (unique per client instance).
    pub rpc_prefix: String,
    /// The browser's time zone, sent with every prompt as its `clientTimeZone` (`None`: not sent).
    pub client_time_zone: Option<String>,
    /// Seeds the backoff jitter.
    pub seed: u64,
    /// Which unwatched sessions stay warm, and for how long.
    pub retention: Retention,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            transport: Transport::Auto,
            backoff: Backoff::default(),
            connect_timeout_ms: DEFAULT_TIMEOUT_MS,
            request_timeout_ms: DEFAULT_TIMEOUT_MS,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            authenticated: false,
            rpc_prefix: "c-".into(),
            client_time_zone: None,
            seed: 0x9e37_79b9_7f4a_7c15,
            retention: Retention::default(),
        }
    }
}

/// How a unary call ended, as the carrier saw it. The client reads the body itself.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A 2xx answer and its body text (all of it, or what [`Input::ResponseBytes`] did not
    /// bring already).
    Body(String),
    /// A non-2xx status.
    Status(u16),
    /// The call never got an answer: network error or abort (the driver's words; the client
    /// words its own deadline and body bound the same way).
    Failed(String),
}

/// A session operation the UI asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionOp {
    /// Open the session: fetch its tail and follow it live.
    Open,
    /// Fetch the page before the window.
    LoadOlder,
    /// `content`: a JSON array of content blocks (checked by the caller).
    Prompt {
        /// The blocks to send.
        content: Json,
        /// Queued behind the running turn, or steering it.
        mode: PromptMode,
        /// The id an earlier page of the app made it under (the local cache's outbox, taken
        /// over after a reload): sent under that id, after a look-up of the host's log.
        adopted: Option<String>,
    },
    /// Send a failed prompt of the outbox again (`retry`), or drop it, by its client id.
    FailedPrompt {
        /// Its client id.
        id: String,
        /// Send it again (`false`: discard it).
        retry: bool,
    },
    /// Stop the running turn.
    Cancel,
    /// Select plan mode on or off.
    SetPlanMode(bool),
    /// Answer a pending approval or question.
    Respond {
        /// The pending interaction's key (`approval:<id>` or `question:<rpcId>`).
        key: String,
        /// The answer, or the refusal, to send back.
        result: RpcResult<Json>,
    },
    /// Answer a structured user-input prompt.
    Answer {
        /// The prompt answered.
        prompt_id: String,
        /// One answer per question answered.
        answers: Vec<Answer>,
    },
    /// One of the 2026-08 verbs (`command`, `rename`, `updateQueue`, `readAttachment`), as the
    /// call the session sends: one operation for all of them keeps the dispatch small.
    Verb(crate::core::session::Call),
}

/// A host-level call the UI asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum HostCall {
    /// `host.call` (and `describe`, `listSessions`, `createSession`, `fork`, `search`, made
    /// of it): any method, with the
    /// package's envelope, auth, deadline and body bound. It settles with the host's result
    /// object as the host wrote it ([`Settlement::Receipt`]), its error codes the host's own;
    /// a failure of the client's own (carrier, deadline, an abort through
    /// [`Input::Abandon`], a 404: `unsupported`) as [`Settlement::Result`].
    Call {
        /// The method (its path under `/api/`).
        method: String,
        /// The payload as JSON text.
        payload: String,
    },
}

/// Everything that happens to the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Time passed: the timer armed at [`HostClient::poll_timeout`](super::HostClient::poll_timeout) fired (early is harmless).
    Timeout,
    /// The next piece of a 2xx answer's body to the call of [`Output::Send`]: a driver that
    /// reads bodies as they stream hands each piece over as it arrives (a history page is
    /// then read while it downloads and never held whole), then ends the call with
    /// `Reply::Body` of an empty text.
    ResponseBytes {
        /// The call answered.
        call: CallId,
        /// The piece, as it arrived.
        bytes: Vec<u8>,
    },
    /// The call of [`Output::Send`] ended.
    Response {
        /// The call that ended.
        call: CallId,
        /// How it ended.
        reply: Reply,
    },
    /// The stream of [`Output::OpenStream`] is open (SSE: 2xx with a body; WebSocket: `open`).
    StreamOpened {
        /// The stream that opened.
        stream: StreamId,
    },
    /// Bytes of an SSE body.
    StreamBytes {
        /// The stream they came on.
        stream: StreamId,
        /// The bytes as they arrived (a chunk may split a line or a UTF-8 sequence).
        bytes: Vec<u8>,
    },
    /// One WebSocket text message: one frame document (one longer than
    /// [`MAX_MESSAGE_BYTES`] is dropped and counted).
    StreamMessage {
        /// The stream it came on.
        stream: StreamId,
        /// The message's text.
        text: String,
    },
    /// A WebSocket message the driver did not copy out as text: a binary one, or a text one
    /// of more than [`MAX_MESSAGE_BYTES`] UTF-16 units. Dropped and counted.
    StreamSkipped {
        /// The stream it came on.
        stream: StreamId,
    },
    /// A WebSocket's `close` event (its code), or its `error` event (`None`): the stream
    /// ended, and the client words why.
    StreamClosed {
        /// The stream that ended.
        stream: StreamId,
        /// The close code; `None` for an `error` event.
        code: Option<u16>,
    },
    /// The stream ended, failed, or could not be opened; `why` in the carrier's words.
    StreamEnded {
        /// The stream that ended.
        stream: StreamId,
        /// Why, in the carrier's words (for diagnostics, never matched on).
        why: String,
    },
    /// Makes session `id` resident (created cold on first use).
    Ensure {
        /// The session's id.
        session: String,
    },
    /// A session operation; settles `handle`.
    Session {
        /// Settled once the operation ends.
        handle: OpHandle,
        /// The session's id.
        session: String,
        /// What to do.
        op: SessionOp,
    },
    /// The shell's listeners for `session` went from none to some (`true`) or back to none:
    /// the retention rule's input (see [`crate::core::client::retention`]).
    Watch {
        /// The session's id.
        session: String,
        /// It has listeners now.
        listeners: bool,
    },
    /// `Session.resync()`: no promise.
    Resync {
        /// The session's id.
        session: String,
    },
    /// A host-level call; settles `handle` with an `RpcResult`.
    Host {
        /// Settled with the call's result.
        handle: OpHandle,
        /// Which call.
        call: HostCall,
    },
    /// The signal of the [`HostCall::Call`] settling `handle` aborted: the call is given up
    /// and settles `cancelled` (nothing, once it has settled).
    Abandon {
        /// The call's handle.
        handle: OpHandle,
    },
    /// Stops everything: pending operations settle, streams and calls are given up.
    Close,
}

/// How an operation settles.
#[derive(Debug, Clone, PartialEq)]
pub enum Settlement {
    /// `open()` / `loadOlder()`: nothing.
    Done,
    /// An `RpcResult` (values schema-checked; carrier failures are `internal`).
    Result(RpcResult<Json>),
    /// A JSON value as it is: `respond()`'s receipt (carrier failures are
    /// `{accepted:false, reason:'transport'}`), a [`HostCall::Call`]'s result object.
    Receipt(Json),
}

/// What the driver must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// `POST /api/<path>` with `body` (JSON); answer with [`Input::Response`].
    Send {
        /// Names the answer.
        call: CallId,
        /// The method's path under `/api/`.
        path: String,
        /// The JSON body.
        body: String,
    },
    /// Give up a call sent earlier: its result is no longer wanted, its deadline passed, or
    /// its body outgrew [`Config::max_response_bytes`]. Nothing more is read of it.
    Abort {
        /// The call to give up.
        call: CallId,
    },
    /// Open a downlink at `/api/<kind.path()>` on `carrier`; a WebSocket presents `ticket`.
    OpenStream {
        /// Names the stream in later inputs.
        stream: StreamId,
        /// Which downlink (its path).
        kind: StreamKind,
        /// SSE or WebSocket.
        carrier: Carrier,
        /// The one-time WebSocket ticket, when the client is authenticated.
        ticket: Option<String>,
    },
    /// Close a downlink; report nothing more about it.
    CloseStream {
        /// The stream to close.
        stream: StreamId,
    },
    /// Settle the operation `handle`.
    Settle {
        /// The operation that ends.
        handle: OpHandle,
        /// How it ends.
        settlement: Settlement,
    },
    /// The connection snapshot or the session list changed.
    HostChanged,
    /// Session `id`'s snapshot changed.
    SessionChanged(String),
    /// A frame of a type this client does not read (a newer host's, such as the 2026-08
    /// workspace frames), as it arrived: for the app's own reader (the shell's frame hook),
    /// which composes what the core has no model of.
    Unread(String),
}

/// Counters for diagnostics and tests.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ClientDiagnostics {
    /// Frame documents read.
    pub frames: u64,
    /// Frames dropped: not a frame document (or a known type failing its schema), oversize,
    /// binary. A frame of a type this client does not know is read ([`Output::Unread`]).
    pub malformed_frames: u64,
    /// Frames that named no resident session and were not held for one (no stash kind, or
    /// past the stash's bounds).
    pub unrouted_frames: u64,
    /// Sessions not resident that frames are held for (at most `router::MAX_STASHED_IDS`).
    pub stashed_sessions: usize,
    /// Bytes of frame text held for them (at most `router::MAX_STASH_BYTES`).
    pub stashed_bytes: usize,
    /// Unary calls in flight.
    pub inflight_calls: usize,
    /// Downlinks asked for and not yet closed.
    pub streams: usize,
}

/// A failed `session.list` seed is asked again after this long while its generation lives.
pub const RESEED_MS: f64 = 2000.0;

/// The largest WebSocket text message read as a frame (the SSE parser's frame bound). A text
/// message of more UTF-16 units than this has more UTF-8 bytes too, so a driver need not copy
/// it out ([`Input::StreamSkipped`]).
pub const MAX_MESSAGE_BYTES: usize = crate::core::sse::DEFAULT_MAX_FRAME;

/// How long a WebSocket upgrade may hang before it counts as refused.
pub const UPGRADE_TIMEOUT_MS: f64 = 5000.0;
