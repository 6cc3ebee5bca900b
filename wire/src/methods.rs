//! Unary methods: their names, payloads and value schemas (second parse level).

use super::event::SessionEvent;
use super::json::Json;
use super::plan::PlanModeState;
use super::read::{read, FromObj, Obj, ReadError, ReadResult};
use super::record::Field;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Describes the host: version, working directory, provider and model.
pub const HOST_DESCRIBE: &str = "host.describe";
/// Lists sessions, a page at a time.
pub const SESSION_LIST: &str = "session.list";
/// Creates a session.
pub const SESSION_CREATE: &str = "session.create";
/// Reads a page of a session's event log (and, for the tail, its projection baseline).
pub const SESSION_HISTORY: &str = "session.history";
/// Sends a prompt to a session, queued or steering the open turn.
pub const SESSION_PROMPT: &str = "session.prompt";
/// Cancels a session's open turn.
pub const SESSION_CANCEL: &str = "session.cancel";
/// Reads a session's plan-mode state.
pub const SESSION_PLAN_MODE: &str = "session.planMode";
/// Turns a session's plan mode on or off.
pub const SESSION_SET_PLAN_MODE: &str = "session.setPlanMode";
/// Not a method of its own: the path that takes `client-response` envelopes.
pub const RESPOND_PATH: &str = "respond";
/// The 2026-08 host: slash commands (`/plan`, `/plan off`) for a session.
pub const COMMANDS_EXECUTE: &str = "commands/execute";
/// The 2026-08 host: the commands a session knows, `[{name, description?, …}]`.
pub const COMMANDS_LIST: &str = "commands/list";
/// The 2026-08 host: renames a session (the host normalizes the title).
pub const SESSION_RENAME: &str = "session.rename";
/// The 2026-08 host: a new session holding this one's history up to a completed turn.
pub const SESSION_FORK: &str = "session.fork";
/// The 2026-08 host: edit, remove or steer one queued prompt.
pub const SESSION_UPDATE_QUEUE: &str = "session.updateQueue";
/// The 2026-08 host: one image attachment of a session, by id, with its bytes.
pub const SESSION_ATTACHMENT: &str = "session.attachment";

record! {
    /// The payload of `session.rename`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct RenamePayload {
        /// The session to rename.
        pub session_id: String = "sessionId",
        /// The title asked for (the host may normalize it).
        pub title: String = "title",
    }
}

record! {
    /// The title as the host normalized it, and the seq of the event that set it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct RenameValue {
        /// The normalized title.
        pub title: String = "title",
        /// Seq of the `session/title` event that set it.
        pub seq: u64 = "seq",
    }
}

record! {
    /// The payload of `session.fork`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ForkPayload {
        /// The session to fork.
        pub session_id: String = "sessionId",
        /// Cut after the completed turn this seq falls in (the whole log when absent).
        pub at_seq: Option<u64> = opt "atSeq",
    }
}

record! {
    /// `action` is `{kind: 'edit', content}` | `{kind: 'remove'}` | `{kind: 'steer'}`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct UpdateQueuePayload {
        /// The session whose queue holds the item.
        pub session_id: String = "sessionId",
        /// The queued item to change.
        pub item_id: String = "itemId",
        /// What to do with it, kept as sent.
        pub action: Json = "action",
    }
}

record! {
    /// The payload of `session.attachment`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AttachmentPayload {
        /// The session holding the attachment.
        pub session_id: String = "sessionId",
        /// The attachment to fetch.
        pub attachment_id: String = "attachmentId",
    }
}

record! {
    /// A durable image reference: what history keeps in place of the bytes.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AttachmentRef {
        /// The host's id for the image, fetched by `session.attachment`.
        pub attachment_id: String = "attachmentId",
        /// Its MIME type (`image/png`, ...).
        pub media_type: String = "mediaType",
        /// Its size in bytes.
        pub bytes: u64 = "bytes",
        /// Its width in pixels.
        pub width: u64 = "width",
        /// Its height in pixels.
        pub height: u64 = "height",
        /// The file name it was attached under, if any.
        pub name: Option<String> = opt "name",
    }
}

record! {
    /// `data` is the base64 of the bytes. The client checks only these members (the reference
    /// is handed to the UI as sent); the host writes an [`AttachmentRef`].
    #[derive(Debug, Clone, PartialEq)]
    pub struct AttachmentValue {
        /// Which attachment the bytes are.
        pub attachment: AttachmentId = "attachment",
        /// The bytes, base64.
        pub data: String = "data",
    }
}

record! {
    /// The one member of an attachment reference the client checks.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AttachmentId {
        /// The host's id for the image.
        pub attachment_id: String = "attachmentId",
    }
}

/// Whether a `commands/list` value names `command`.
pub fn lists_command(value: &Json, command: &str) -> ReadResult<bool> {
    record! {
        struct Named {
            name: String = "name",
        }
    }
    let items = super::read::read_objects::<Named>(value.text())?;
    Ok(items.iter().any(|n| n.name == command))
}

/// What a client sends a host whose description is the seed's ([`describes_seed`]):
/// the seed's eight methods (upstream at ced6ab9d14 has no others), and the package's own
/// extension paths, which a seed-generation host may serve (`respond`, `session.answer`).
/// Any other method would answer 404, which a browser reports as a console error.
pub const SEED_METHODS: &[&str] = &[
    HOST_DESCRIBE,
    SESSION_LIST,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_PROMPT,
    SESSION_CANCEL,
    SESSION_PLAN_MODE,
    SESSION_SET_PLAN_MODE,
    RESPOND_PATH,
    super::interaction::SESSION_ANSWER,
];

/// Every unary method the client calls through `POST /api/<method>` (not the respond path).
pub const METHODS: &[&str] = &[
    HOST_DESCRIBE,
    SESSION_LIST,
    SESSION_CREATE,
    SESSION_HISTORY,
    SESSION_PROMPT,
    SESSION_CANCEL,
    SESSION_PLAN_MODE,
    SESSION_SET_PLAN_MODE,
    SESSION_RENAME,
    SESSION_FORK,
    SESSION_UPDATE_QUEUE,
    SESSION_ATTACHMENT,
];

record! {
    /// The value of `host.describe`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct HostDescription {
        /// The host's version.
        pub version: String = "version",
        /// The host's working directory.
        pub cwd: String = "cwd",
        /// The agent's provider (optional in the 2026-08 schema).
        pub provider: Option<String> = opt "provider",
        /// The agent's model (optional in the 2026-08 schema).
        pub model: Option<String> = opt "model",
        /// How many sessions the host holds attached.
        pub attached_sessions: u64 = "attachedSessions",
        /// The 2026-08 host: the host account's home directory (the seed has none).
        pub home: Option<String> = opt "home",
        /// The 2026-08 host: whether it can hand a path to a native desktop (the seed has
        /// none; every 2026-08 description has it, which is how a client tells the two apart).
        pub can_open_path: Option<bool> = opt "canOpenPath",
    }
}

/// Whether `value`, a `host.describe` value its schema passed, is the seed host's: a host
/// that has only [`SEED_METHODS`]. Read off the value's members, not through the whole
/// [`HostDescription`] (a client reads nothing else of it).
pub fn describes_seed(value: &Json) -> bool {
    Obj::parse(value.text()).is_ok_and(|o| o.raw("canOpenPath").is_none())
}

record! {
    /// The payload of `session.list`.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct ListPayload {
        /// Where the previous page ended (absent for the first page).
        pub cursor: Option<String> = opt "cursor",
    }
}

record! {
    /// One session of a `session.list` page.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SessionSummary {
        /// The session.
        pub session_id: String = "sessionId",
        /// When it last changed (epoch milliseconds).
        pub updated_at: f64 = "updatedAt",
        /// Whether a turn is open.
        pub running: bool = "running",
        /// The session it was forked or spawned from, if any.
        pub parent_session_id: Option<String> = opt "parentSessionId",
        /// Its working directory.
        pub cwd: Option<String> = opt "cwd",
        /// The 2026-08 host: `'subagent'` for a child a turn spawned (absent for a fork and a
        /// top-level session).
        pub origin: Option<String> = opt "origin",
        /// Reference-host extensions (CONTRACT-EXTENSIONS.md §6): the latest title and whether
        /// the open turn waits on the user.
        pub title: Option<String> = opt "title",
        /// Whether the open turn waits on the user (reference host).
        pub waiting: Option<bool> = opt "waiting",
        /// The 2026-08 host: no top-level `title`; it is `projections.values.title`. Kept
        /// as text and read by [`SessionSummary::title_text`] (no reader per nested level).
        pub projections: Option<Json> = opt "projections",
    }
}

impl SessionSummary {
    /// The session's title in either generation's place: the top-level extension field, else
    /// the 2026-08 `projections.values.title`.
    pub fn title_text(&self) -> Option<String> {
        if let Some(t) = &self.title {
            return Some(t.clone());
        }
        let values = Obj::parse(self.projections.as_ref()?.text()).ok()?.raw("values")?;
        super::read::as_str(Obj::parse(values.get()).ok()?.raw("title")?)
    }
}

record! {
    /// The value of `session.list`: one page.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ListValue {
        /// The sessions of the page.
        pub items: Vec<SessionSummary> = "items",
    }
}

record! {
    /// The payload of `session.create`.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct CreatePayload {
        /// The working directory of the new session (the host's when absent).
        pub cwd: Option<String> = opt "cwd",
        /// Extension: the scripted agent's provider profile (reference host only).
        pub provider: Option<String> = opt "provider",
    }
}

record! {
    /// The value of `session.create` and `session.fork`: the new session.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CreateValue {
        /// The new session's id.
        pub session_id: String = "sessionId",
    }
}

record! {
    /// A payload that names only a session (`session.cancel`, `session.planMode`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct SessionRef {
        /// The session spoken of.
        pub session_id: String = "sessionId",
    }
}

record! {
    /// The payload of `session.history`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct HistoryPayload {
        /// The session whose log is read.
        pub session_id: String = "sessionId",
        /// Read the page that ends before this seq (the tail when absent).
        pub before_seq: Option<u64> = opt "beforeSeq",
        /// At most this many messages in the page (the host's default when absent).
        pub max_messages: Option<std::num::NonZeroU32> = opt "maxMessages",
    }
}

record! {
    /// One event of a history page.
    #[derive(Debug, Clone, PartialEq)]
    pub struct HistoryItem {
        /// The event itself.
        pub event: SessionEvent = "event",
        /// The host's rendering hint for it, as in `session/event`.
        pub view: Option<Json> = opt "view",
    }
}

record! {
    /// Extension 1: the tail page's projection baseline.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ProjectionBaseline {
        /// Seq of the last event the baseline includes (`-1` for an empty log).
        pub as_of_seq: i64 = read_with(crate::seq::read_pos, crate::seq::is_pos) "asOfSeq",
        /// Sorted by key, no key twice.
        #[serde(with = "crate::record::sorted_map")]
        pub values: Vec<(String, Json)> = "values",
    }
}

record! {
    /// The value of `session.history`: one contiguous page of the log.
    #[derive(Debug, Clone, PartialEq)]
    pub struct HistoryValue {
        /// The page's events, ascending and contiguous (checked by [`HistoryValue::validate`]).
        pub events: Vec<HistoryItem> = "events",
        /// Whether older events remain before the page.
        pub has_more: bool = "hasMore",
        /// The projection baseline, on the tail page only.
        pub projections: Option<ProjectionBaseline> = opt "projections",
    }
}

impl HistoryValue {
    /// Events must be strictly ascending and contiguous, each seq within the wire bound; a
    /// page that is not is a schema failure (the window is a contiguous run of the host's log).
    pub fn validate(&self) -> ReadResult<()> {
        if self.events.iter().any(|i| i.event.seq > crate::seq::MAX_SEQ) {
            return Err(ReadError::invalid("history page seq past 2^53-1"));
        }
        // No seqs in the message, as the client's streamed check words it (formatting them
        // was wasm the message does not need).
        if self.events.windows(2).any(|p| p[0].event.seq.checked_add(1) != Some(p[1].event.seq)) {
            return Err(ReadError::invalid("history page not contiguous"));
        }
        Ok(())
    }
}

wire_enum! {
    /// How a prompt meets a turn that is already open.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum PromptMode {
        /// Waits its turn in the session's queue.
        Queue = "queue",
        /// Steers the open turn.
        Steer = "steer",
    }
}

record! {
    /// The payload of `session.prompt`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PromptPayload {
        /// The session prompted.
        pub session_id: String = "sessionId",
        /// Queued or steering.
        pub mode: PromptMode = "mode",
        /// The prompt's content blocks, kept as trees (host side).
        pub content: Vec<Value> = "content",
        /// The 2026-08 host: the browser's time zone (`UTC` or an IANA `Area/Location` name),
        /// kept on the user message's source.
        pub client_time_zone: Option<String> = opt "clientTimeZone",
    }
}

record! {
    /// The payload of `session.setPlanMode`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SetPlanModePayload {
        /// The session.
        pub session_id: String = "sessionId",
        /// Plan mode on or off.
        pub active: bool = "active",
    }
}

record! {
    /// `{accepted: true}`: the value of prompt and cancel.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Accepted {
        /// Always `true`: a refusal is an error, not `false`.
        pub accepted: AlwaysTrue = "accepted",
    }
}

/// A `bool` that is always `true`: `{accepted: false}` fails the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "bool", into = "bool")]
pub struct AlwaysTrue;
impl TryFrom<bool> for AlwaysTrue {
    type Error = &'static str;
    fn try_from(b: bool) -> Result<Self, Self::Error> {
        if b {
            Ok(AlwaysTrue)
        } else {
            Err("expected true")
        }
    }
}
impl From<AlwaysTrue> for bool {
    fn from(_: AlwaysTrue) -> bool {
        true
    }
}

impl Field for AlwaysTrue {
    fn read(o: &Obj<'_>, name: &str) -> ReadResult<Self> {
        match o.bool(name)? {
            true => Ok(AlwaysTrue),
            false => Err(ReadError::expected(name, "true")),
        }
    }
}

record! {
    /// The receipt of `POST /api/respond`.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Receipt {
        /// Whether the host took the answer.
        pub accepted: bool = "accepted",
        /// Why not, when it did not.
        pub reason: Option<ReceiptReason> = opt "reason",
    }
}

wire_enum! {
    /// Read only in its string form: serde's `{"not-pending":null}` spelling of a unit variant
    /// is refused by the client.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ReceiptReason {
        /// The request is no longer pending (answered elsewhere, or its turn ended).
        NotPending = "not-pending",
        /// The answer does not fit the request.
        BadResponse = "bad-response",
    }
}

impl Receipt {
    /// `Receipt::refused(NotPending)` as JSON text: the client's local refusal, written
    /// without a serializer (`the_not_pending_receipt_text_is_the_receipt` holds them equal).
    pub const NOT_PENDING_TEXT: &'static str = r#"{"accepted":false,"reason":"not-pending"}"#;

    /// The receipt of an answer taken.
    pub fn accepted() -> Self {
        Receipt { accepted: true, reason: None }
    }
    /// The receipt of an answer refused, and why.
    pub fn refused(reason: ReceiptReason) -> Self {
        Receipt { accepted: false, reason: Some(reason) }
    }
}

/// Second-level value check for a method's `ok` value.
pub fn validate_value(method: &str, value: &Json) -> ReadResult<()> {
    fn check<T: FromObj>(v: &Json) -> ReadResult<()> {
        read::<T>(v.text()).map(|_| ())
    }
    match method {
        HOST_DESCRIBE => check::<HostDescription>(value),
        SESSION_LIST => check::<ListValue>(value),
        SESSION_CREATE => check::<CreateValue>(value),
        SESSION_HISTORY => read::<HistoryValue>(value.text())?.validate(),
        SESSION_PROMPT | SESSION_CANCEL | SESSION_UPDATE_QUEUE => check::<Accepted>(value),
        SESSION_RENAME => check::<RenameValue>(value),
        SESSION_FORK => check::<CreateValue>(value),
        SESSION_ATTACHMENT => check::<AttachmentValue>(value),
        SESSION_PLAN_MODE | SESSION_SET_PLAN_MODE => super::plan::parse_plan_value(value).map(|_| ()),
        RESPOND_PATH | super::interaction::SESSION_ANSWER => check::<Receipt>(value),
        // `{commandId, result}`; the state it changes arrives as projection frames.
        COMMANDS_EXECUTE => Ok(()),
        COMMANDS_LIST => lists_command(value, "").map(|_| ()),
        other => Err(ReadError::invalid(format!("unknown method `{other}`"))),
    }
}

/// Convenience used by both sides: a `PlanModeState | null` as JSON.
pub fn plan_value(state: Option<PlanModeState>) -> Value {
    serde_json::to_value(state).unwrap_or(Value::Null)
}

/// The same as raw JSON text (the client's form).
pub fn plan_json(state: Option<PlanModeState>) -> Json {
    Json::from_serialize(&state)
}

#[cfg(test)]
mod readers {
    use super::*;
    use serde_json::json;
    use std::fmt::Debug;

    use crate::read::reads;

    fn accepted<T: FromObj + PartialEq + Debug>(text: &str) -> T {
        reads(text).unwrap_or_else(|| panic!("refused {text}"))
    }
    fn refused<T: FromObj + PartialEq + Debug>(text: &str) {
        assert!(reads::<T>(text).is_none(), "accepted {text}");
    }
    fn round_trips<T: FromObj + Serialize + PartialEq + Debug>(v: &T) {
        assert_eq!(&accepted::<T>(&serde_json::to_string(v).unwrap()), v);
    }

    fn summary(parent: Option<&str>, cwd: Option<&str>) -> SessionSummary {
        SessionSummary {
            session_id: "s\"1".into(),
            updated_at: 1795991061849.5,
            running: true,
            parent_session_id: parent.map(Into::into),
            cwd: cwd.map(Into::into),
            origin: None,
            title: None,
            waiting: None,
            projections: None,
        }
    }

    fn item(seq: u64, view: Option<Json>) -> HistoryItem {
        let mut event = SessionEvent::new("user/message", seq, 1.0, json!({"content": [{"type": "text"}]}));
        event.source_event_seqs = Some(vec![0.0]);
        HistoryItem { event, view }
    }

    /// Finding 1 of the adversarial run: `[u64::MAX, 0]` overflowed the contiguity check (and
    /// in release arithmetic passed it).
    #[test]
    fn a_history_page_from_u64_max_to_zero_is_refused_without_overflow() {
        let page =
            HistoryValue { events: vec![item(u64::MAX, None), item(0, None)], has_more: false, projections: None };
        assert!(page.validate().is_err());
        let page = HistoryValue {
            events: vec![item(u64::MAX - 1, None), item(u64::MAX, None)],
            has_more: false,
            projections: None,
        };
        assert!(page.validate().is_err(), "contiguous, but past the wire bound");
        let text = r#"{"events":[{"event":{"type":"x","seq":18446744073709551615,"time":1}},{"event":{"type":"x","seq":0,"time":1}}],"hasMore":false}"#;
        assert!(validate_value("session.history", &Json::from_text(text).unwrap()).is_err());
        let ok = HistoryValue {
            events: vec![item(crate::seq::MAX_SEQ - 1, None), item(crate::seq::MAX_SEQ, None)],
            has_more: false,
            projections: None,
        };
        assert!(ok.validate().is_ok(), "the bound itself is a seq");
    }

    #[test]
    fn host_description_list_and_create() {
        let seed = HostDescription {
            version: "1".into(),
            cwd: "/w".into(),
            provider: Some("p".into()),
            model: Some("m\u{e9}".into()),
            attached_sessions: u64::MAX,
            home: None,
            can_open_path: None,
        };
        round_trips(&seed);
        assert!(describes_seed(&Json::from_serialize(&seed)));
        let text = r#"{"x":{"y":[1]},"version":"1","cwd":"/","provider":"p","model":"m","attachedSessions":0}"#;
        accepted::<HostDescription>(text);
        assert!(describes_seed(&Json::from_text(text).unwrap()), "the seed's description has no canOpenPath");
        // The 2026-08 description, as upstream's schema has it: provider and model optional,
        // home and canOpenPath always there.
        let text = r#"{"version":"0.0.1","cwd":"/","attachedSessions":0,"home":"/h","canOpenPath":false}"#;
        let d: HostDescription = accepted(text);
        assert!(!describes_seed(&Json::from_text(text).unwrap()));
        assert_eq!((d.provider, d.home.as_deref(), d.can_open_path), (None, Some("/h"), Some(false)));
        // The seed's rpc-map at ced6ab9d14, then the package's own paths a seed host may serve.
        let mut seed: Vec<&str> = SEED_METHODS[..8].to_vec();
        seed.sort_unstable();
        assert_eq!(
            seed,
            [
                "host.describe",
                "session.cancel",
                "session.create",
                "session.history",
                "session.list",
                "session.planMode",
                "session.prompt",
                "session.setPlanMode"
            ]
        );
        assert_eq!(SEED_METHODS[8..], [RESPOND_PATH, super::super::interaction::SESSION_ANSWER]);
        assert!(SEED_METHODS.iter().all(|m| METHODS.contains(m) || *m == RESPOND_PATH || m.ends_with("answer")));
        refused::<HostDescription>(r#"{"version":"1","cwd":"/","provider":"p","model":"m"}"#);
        refused::<HostDescription>(r#"{"version":"1","cwd":"/","provider":"p","model":"m","attachedSessions":1.5}"#);
        refused::<HostDescription>(r#"{"version":null,"cwd":"/","provider":"p","model":"m","attachedSessions":1}"#);

        round_trips(&ListValue { items: vec![] });
        round_trips(&ListValue { items: vec![summary(None, None), summary(Some("p"), Some("/c"))] });
        let v: ListValue = accepted(
            r#"{"items":[{"sessionId":"a","updatedAt":3,"running":false,"parentSessionId":null,"cwd":null,"z":1}],"more":true}"#,
        );
        assert_eq!(v.items[0].parent_session_id, None);
        refused::<ListValue>(r#"{"items":[{"sessionId":"a","updatedAt":"3","running":false}]}"#);
        refused::<ListValue>(r#"{"items":[{"sessionId":"a","updatedAt":3}]}"#);
        refused::<ListValue>(r#"{"items":null}"#);
        refused::<ListValue>(r#"{"items":{}}"#);
        refused::<ListValue>(r#"{}"#);

        round_trips(&CreateValue { session_id: "s".into() });
        refused::<CreateValue>(r#"{"session_id":"s"}"#);
        refused::<CreateValue>(r#"[]"#);
    }

    #[test]
    fn the_not_pending_receipt_text_is_the_receipt() {
        let written = serde_json::to_string(&Receipt::refused(ReceiptReason::NotPending)).unwrap();
        assert_eq!(Receipt::NOT_PENDING_TEXT, written);
        let read: Receipt = accepted(Receipt::NOT_PENDING_TEXT);
        assert_eq!(read, Receipt::refused(ReceiptReason::NotPending));
    }

    /// The 2026-08 host keeps a summary's title in its projection block (capture 04).
    #[test]
    fn a_summary_title_is_read_from_the_2026_08_projection_block() {
        let v: ListValue = accepted(
            r#"{"items":[{"sessionId":"session-ec38","updatedAt":1796042828108,"running":false,"blank":false,"agentPreset":"standard","projections":{"asOfSeq":78,"values":{"title":"Hello world plan","goal":null,"plan":{"active":false,"pending":false}}}},{"sessionId":"b","updatedAt":2,"running":false,"projections":{"asOfSeq":2,"values":{"title":null}}},{"sessionId":"c","updatedAt":1,"running":false,"projections":{"asOfSeq":1,"values":{"title":7}}},{"sessionId":"d","updatedAt":1,"running":false,"title":"Top"}]}"#,
        );
        let titles: Vec<_> = v.items.iter().map(SessionSummary::title_text).collect();
        assert_eq!(titles, [Some("Hello world plan".to_string()), None, None, Some("Top".to_string())]);
        round_trips(&v);
    }

    #[test]
    fn history_pages() {
        let projections = ProjectionBaseline {
            as_of_seq: -1,
            values: [("a".to_string(), Json::from_text(r#"{"k":[1, 2]}"#).unwrap()), ("b".into(), Json::null())]
                .into_iter()
                .collect(),
        };
        round_trips(&HistoryValue { events: vec![], has_more: false, projections: None });
        round_trips(&HistoryValue {
            events: vec![item(4, None), item(5, Some(Json::from_text("[1]").unwrap()))],
            has_more: true,
            projections: Some(projections),
        });
        let v: HistoryValue = accepted(
            r#"{"events":[{"event":{"type":"x","seq":0,"time":1},"view":null,"u":0}],"hasMore":false,"projections":null,"u":[]}"#,
        );
        assert_eq!(v.events[0].view, None, "a null view reads as absent");
        let v: HistoryValue = accepted(r#"{"events":[],"hasMore":true,"projections":{"asOfSeq":7,"values":{}}}"#);
        assert!(v.projections.unwrap().values.is_empty());

        refused::<HistoryValue>(r#"{"events":[]}"#);
        refused::<HistoryValue>(r#"{"events":[{"view":1}],"hasMore":false}"#);
        refused::<HistoryValue>(r#"{"events":[{"event":{"type":"x","time":1}}],"hasMore":false}"#);
        refused::<HistoryValue>(r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":1}}"#);
        refused::<HistoryValue>(r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":1,"values":[]}}"#);
        refused::<HistoryValue>(r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":1.5,"values":{}}}"#);
        refused::<HistoryValue>(r#"{"events":[],"hasMore":false,"hasMore":true}"#);
    }

    #[test]
    fn accepted_and_receipts() {
        round_trips(&Accepted { accepted: AlwaysTrue });
        accepted::<Accepted>(r#"{"accepted":true,"extra":false}"#);
        refused::<Accepted>(r#"{"accepted":false}"#);
        refused::<Accepted>(r#"{"accepted":null}"#);
        refused::<Accepted>(r#"{}"#);

        round_trips(&Receipt::accepted());
        round_trips(&Receipt::refused(ReceiptReason::NotPending));
        round_trips(&Receipt::refused(ReceiptReason::BadResponse));
        assert_eq!(accepted::<Receipt>(r#"{"accepted":false,"reason":null,"x":1}"#).reason, None);
        assert_eq!(
            accepted::<Receipt>(r#"{"accepted":false,"reason":"not-pend\u0069ng"}"#).reason,
            Some(ReceiptReason::NotPending)
        );
        refused::<Receipt>(r#"{"accepted":false,"reason":"NotPending"}"#);
        refused::<Receipt>(r#"{"accepted":false,"reason":1}"#);
        refused::<Receipt>(r#"{"reason":"not-pending"}"#);
    }

    #[test]
    fn validate_value_uses_the_readers() {
        let j = |t: &str| Json::from_text(t).unwrap();
        assert!(validate_value(SESSION_PROMPT, &j(r#"{"accepted":true}"#)).is_ok());
        assert!(validate_value(SESSION_CANCEL, &j(r#"{"accepted":false}"#)).is_err());
        assert!(validate_value(RESPOND_PATH, &j(r#"{"accepted":false,"reason":"bad-response"}"#)).is_ok());
        assert!(validate_value(SESSION_PLAN_MODE, &j("null")).is_ok());
        assert!(validate_value(SESSION_SET_PLAN_MODE, &j(r#"{"active":true,"pending":true}"#)).is_err());
        let page = |a: u64, b: u64| {
            let v = HistoryValue { events: vec![item(a, None), item(b, None)], has_more: false, projections: None };
            Json::from_serialize(&v)
        };
        assert!(validate_value(SESSION_HISTORY, &page(3, 4)).is_ok());
        assert!(validate_value(SESSION_HISTORY, &page(3, 5)).unwrap_err().to_string().contains("not contiguous"));
        assert!(validate_value(SESSION_CREATE, &j("{}")).unwrap_err().to_string().contains("sessionId"));
        assert!(validate_value("nope", &j("{}")).is_err());
    }

    /// Where the readers are deliberately stricter than the derives (no host writes these).
    #[test]
    fn known_stricter_than_serde() {
        let t = r#"{"accepted":false,"reason":{"not-pending":null}}"#;
        assert!(serde_json::from_str::<Receipt>(t).is_ok() && read::<Receipt>(t).is_err());
        let t = r#"{"events":[],"hasMore":false,"projections":{"asOfSeq":1,"values":{"a":1,"a":2}}}"#;
        assert!(serde_json::from_str::<HistoryValue>(t).is_ok());
        assert!(read::<HistoryValue>(t).unwrap_err().kind == crate::read::ReadErrorKind::Duplicate);
    }
}
