//! The session core's inputs and outputs that cross the sans-IO boundary: requests to send,
//! operations to settle, and the "snapshot changed" signal.

use crate::core::wire::{self, Json, PromptMode, ResponseForm, RpcError, RpcResult};

/// Tags one request the core asked to send; its result must come back with the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReqId(pub u64);

/// Tags one wake-up the core asked for; handed back to `Session::on_wake`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WakeToken(pub u64);

/// Tags one UI operation (a JS promise in the shell); settled exactly once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u64);

/// A unary call for the shell to perform.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// `session.history`: a page of the log.
    History {
        /// Read the page that ends before this seq (the tail when `None`).
        before_seq: Option<u64>,
        /// At most this many messages (`None` or 0: the host's default).
        max_messages: Option<u32>,
    },
    /// `session.planMode`: read the plan-mode state.
    PlanMode,
    /// `session.setPlanMode`: turn plan mode on or off.
    SetPlanMode {
        /// On or off.
        active: bool,
    },
    /// `content` is a JSON array of content blocks.
    Prompt {
        /// Queued, or steering the open turn.
        mode: PromptMode,
        /// The content blocks, as JSON text.
        content: Json,
        /// The envelope rpcId to send it under (the outbox's id: the same on every send);
        /// `None`: the driver mints one.
        rpc_id: Option<String>,
    },
    /// `session.cancel`: end the open turn.
    Cancel,
    /// `POST /api/respond` with a client-response answering `rpc_id`.
    Respond {
        /// The envelope rpcId of the question or approval answered.
        rpc_id: String,
        /// The answer, or the error that cancels or rejects it.
        result: RpcResult<Json>,
    },
    /// The 2026-08 host: a slash command (`/plan`, `/plan off`) through `commands/execute`.
    Command {
        /// The command, one of the core's own (a fixed line, never user text).
        line: &'static str,
    },
    /// The 2026-08 host: the session's commands (is `plan` among them?).
    Commands,
    /// Extension: `session.answer` for a user-input prompt; `answers` is a JSON array.
    Answer {
        /// The prompt answered.
        prompt_id: String,
        /// The answers, one per question.
        answers: Json,
    },
    /// The 2026-08 host: any slash-command line through `commands/execute`.
    RunCommand {
        /// The line as the user typed it.
        line: String,
    },
    /// The 2026-08 host: `session.rename`.
    Rename {
        /// The title asked for (the host normalizes it).
        title: String,
    },
    /// The 2026-08 host: `session.updateQueue`; `action` is the JSON action object.
    UpdateQueue {
        /// The queued item.
        item_id: String,
        /// What to do with it.
        action: Json,
    },
    /// The 2026-08 host: `session.attachment`.
    Attachment {
        /// The attachment to fetch.
        attachment_id: String,
    },
}

impl Call {
    /// The path segment after `/api/`.
    pub fn path(&self) -> &'static str {
        match self {
            Call::History { .. } => wire::SESSION_HISTORY,
            Call::PlanMode => wire::SESSION_PLAN_MODE,
            Call::SetPlanMode { .. } => wire::SESSION_SET_PLAN_MODE,
            Call::Prompt { .. } => wire::SESSION_PROMPT,
            Call::Cancel => wire::SESSION_CANCEL,
            Call::Respond { .. } => wire::RESPOND_PATH,
            Call::Command { .. } | Call::RunCommand { .. } => wire::COMMANDS_EXECUTE,
            Call::Rename { .. } => wire::SESSION_RENAME,
            Call::UpdateQueue { .. } => wire::SESSION_UPDATE_QUEUE,
            Call::Attachment { .. } => wire::SESSION_ATTACHMENT,
            Call::Commands => wire::COMMANDS_LIST,
            Call::Answer { .. } => wire::interaction::SESSION_ANSWER,
        }
    }

    /// The method payload (for `Respond`, the client-response's `result`).
    pub fn payload(&self, session_id: &str) -> Json {
        Json::from_text(&self.payload_text(session_id, None)).unwrap_or_default()
    }

    /// The payload's text, written by one object writer (`wire::object_text`): no serde impl
    /// per payload, and the body takes the text as written (no parse).
    /// A prompt carries `zone` as its `clientTimeZone` (the 2026-08 host keeps it on the user
    /// message, as upstream's own client sends it; the seed's schema drops unknown members).
    fn payload_text(&self, session_id: &str, zone: Option<&str>) -> String {
        let q = |s: &str| Some(wire::quote(s));
        let max: Option<String>;
        let mut zone_text: Option<String> = None;
        // Every payload is `{<id>: session, <second>?, <third>?}`, a command's inside `args`.
        let (id, second, a, third, b) = match self {
            Call::History { before_seq, max_messages } => {
                max = max_messages.filter(|n| *n > 0).map(|n| u64::from(n).to_string());
                ("sessionId", "beforeSeq", before_seq.map(|n| n.to_string()), "maxMessages", max.as_deref())
            }
            Call::PlanMode | Call::Cancel => ("sessionId", "", None, "", None),
            Call::SetPlanMode { active } => {
                ("sessionId", "active", None, "active", Some(if *active { "true" } else { "false" }))
            }
            Call::Prompt { mode, content, .. } => {
                let mode = if *mode == PromptMode::Steer { r#""steer""# } else { r#""queue""# };
                zone_text = zone.map(wire::quote);
                ("sessionId", "mode", Some(mode.to_string()), "content", Some(content.text()))
            }
            Call::Respond { result, .. } => return wire::result_text(result),
            Call::Answer { prompt_id, answers } => {
                ("sessionId", "promptId", q(prompt_id), "answers", Some(answers.text()))
            }
            Call::Commands => ("agentId", "", None, "", None),
            Call::Command { line } => ("agentId", "line", q(line), "images", Some("[]")),
            Call::RunCommand { line } => ("agentId", "line", q(line), "images", Some("[]")),
            Call::Rename { title } => ("sessionId", "title", q(title), "", None),
            Call::UpdateQueue { item_id, action } => ("sessionId", "itemId", q(item_id), "action", Some(action.text())),
            Call::Attachment { attachment_id } => ("sessionId", "attachmentId", q(attachment_id), "", None),
        };
        let sid = wire::quote(session_id);
        let text = wire::object_text(&[
            (id, Some(&sid)),
            (second, a.as_deref()),
            (third, b),
            ("clientTimeZone", zone_text.as_deref()),
        ]);
        match id {
            "agentId" => wire::object_text(&[("args", Some(&text))]),
            _ => text,
        }
    }

    /// The full request body for `POST /api/<path>` under envelope rpcId `rpc_id`.
    pub fn body(&self, session_id: &str, rpc_id: &str, zone: Option<&str>) -> String {
        match self {
            Call::Respond { rpc_id: answering, result } => wire::client_response_text(answering, result),
            _ => wire::client_request_text(rpc_id, self.path(), &self.payload_text(session_id, zone)),
        }
    }

    /// How the host frames its answer: a `server-response` echoing the minted rpcId, except
    /// `/api/respond`, which the origin answers with a bare receipt.
    pub fn response_form(&self, minted: &str) -> ResponseForm {
        match self {
            Call::Respond { .. } => ResponseForm::BareReceipt,
            _ => ResponseForm::Envelope { rpc_id: minted.to_string() },
        }
    }
}

/// How an operation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `open()` / `loadOlder()`: the promise resolves with nothing.
    Done,
    /// A unary operation's result (already schema-checked; failures folded to `internal`).
    Result(RpcResult<Json>),
}

/// What the core asks of its driver.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send `call` as request `req`; its result comes back to the core with the same id.
    Send {
        /// Tags the request; the result must carry it back.
        req: ReqId,
        /// What to send.
        call: Call,
    },
    /// Settle UI operation `op` (resolve or reject its promise).
    Settle {
        /// The operation settled.
        op: OpId,
        /// How it ended.
        outcome: Outcome,
    },
    /// The snapshot changed; emitted at most once per input.
    Changed,
    /// Call `Session::on_wake(token)` after `after_ms` (the session has no clock).
    Wake {
        /// Handed back to `Session::on_wake` when the time is up.
        token: WakeToken,
        /// How long to wait, in milliseconds.
        after_ms: u32,
    },
    /// The wake `token` is no longer wanted: cancel it (a late one would be ignored anyway,
    /// but a timer table holds only what is wanted).
    Unwake {
        /// The wake no longer wanted.
        token: WakeToken,
    },
}

/// Counters of what was dropped or refused, for diagnostics and tests.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Diagnostics {
    /// Results of requests superseded by a newer open generation, or unknown ids.
    pub stale_responses: u64,
    /// Live events at or below the window tail.
    pub duplicate_events: u64,
    /// Live events dropped because the session was cold or errored.
    pub events_while_closed: u64,
    /// Values that failed their method's schema (treated as transport errors).
    pub bad_values: u64,
    /// History pages rejected (non-contiguous, not abutting the window).
    pub rejected_pages: u64,
    /// Gap repairs sent.
    pub repairs: u64,
    /// Buffered frames discarded: the buffer hit its bound (count or bytes), or the repair
    /// they waited for was given up.
    pub buffer_overflows: u64,
    /// Repairs given up: the tail the host claimed (`lastSeq`, frames past a gap) never came
    /// after the bounded number of tail pulls.
    pub unreached_tails: u64,
    /// Approval/question requests dropped: `pending::MAX_PENDING` were pending already.
    pub pending_dropped: u64,
    /// Plan responses dropped by the request fence or the event-version fence.
    pub plan_responses_fenced: u64,
    /// Times the session was released (nobody watched it) and went `cold`.
    pub releases: u64,
}

/// The folded form of a schema failure: a transport error for the caller.
pub fn schema_error(method: &str, detail: impl std::fmt::Display) -> RpcError {
    RpcError::transport(format!("{method}: value failed its schema: {detail}"))
}
