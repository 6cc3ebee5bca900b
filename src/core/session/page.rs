//! A history page as the session takes it, and the reader that builds one while the
//! `session.history` body streams in.
//!
//! Why streamed: see `agent_session_onepass::page`. The reader cuts the body into items as its
//! bytes arrive, reads each into the run that becomes the window (no list of items, no body
//! text beside the window), and reads the envelope around them at the end.

use super::event_run::EventRun;
use crate::core::wire::read::{read, ReadError, ReadResult};
use crate::core::wire::{HistoryItem, HistoryValue, ProjectionBaseline, SessionEvent};
use agent_session_onepass::page::{ItemSink, PageSplitter};

/// One contiguous page of the host's log, its events already in a run.
#[derive(Debug, Default)]
pub struct Page {
    /// The page's events, oldest first.
    pub events: EventRun,
    /// Whether older events remain before the page.
    pub has_more: bool,
    /// The projection baseline, on the tail page only.
    pub projections: Option<ProjectionBaseline>,
}

impl Page {
    /// A page the general reader read.
    pub fn from_value(v: HistoryValue) -> Page {
        // Pushed one by one: the run's own growth, and no list conversion code in the wasm.
        let mut events = EventRun::default();
        for i in v.events {
            events.push(i.event);
        }
        Page { events, has_more: v.has_more, projections: v.projections }
    }
}

/// The events a history body brought, or the schema break of one of them; the envelope
/// around them is read as every other reply's is.
pub type Streamed = ReadResult<EventRun>;

/// The page of a history reply whose rest read as `value` and whose items were `streamed`.
/// A page has one `events`: the streamed one, unless its key was written with escapes (then
/// nothing was cut out, and the rest holds the events).
pub fn joined(value: ReadResult<HistoryValue>, streamed: Streamed) -> ReadResult<Page> {
    let mut page = Page::from_value(value?);
    let events = streamed?;
    if page.events.is_empty() {
        page.events = events;
    }
    Ok(page)
}

/// Why the items read so far cannot make a page.
enum Broken {
    /// The body is not JSON: the call failed.
    Syntax(String),
    /// An item is JSON but not a history item.
    Schema(ReadError),
}

/// A `session.history` body read as it streams in.
#[derive(Default)]
pub struct PageReader {
    splitter: PageSplitter,
    events: EventRun,
    broken: Option<Broken>,
}

impl PageReader {
    /// Reads the next piece of the body.
    pub fn feed(&mut self, bytes: &[u8]) {
        if matches!(self.broken, Some(Broken::Syntax(_))) {
            return;
        }
        let mut sink = Sink { events: &mut self.events, broken: &mut self.broken };
        if let Err(e) = self.splitter.feed(bytes, &mut sink) {
            self.broken = Some(Broken::Syntax(e));
        }
    }

    /// The body ended: the rest of it (the envelope, its `events` emptied) to be read as
    /// every reply is, or why the body is not JSON; and the events it brought.
    pub fn finish(self) -> (Result<String, String>, Streamed) {
        let rest = self.splitter.finish();
        match (self.broken, rest) {
            (Some(Broken::Syntax(why)), _) | (_, Err(why)) => (Err(why), Ok(EventRun::default())),
            (broken, Ok(rest)) => {
                let text = utf8(&rest).into_owned();
                let streamed = match broken {
                    Some(Broken::Schema(e)) => Err(e),
                    _ => Ok(self.events),
                };
                (Ok(text), streamed)
            }
        }
    }
}

/// The items' way into the run.
struct Sink<'a> {
    events: &'a mut EventRun,
    broken: &'a mut Option<Broken>,
}

impl ItemSink for Sink<'_> {
    fn read_at(&mut self, text: &str) -> Option<usize> {
        if self.broken.is_some() {
            return None;
        }
        let (item, n) = agent_session_onepass::history_item_at(text)?;
        self.push(item.event);
        Some(n)
    }
    fn cut(&mut self, bytes: &[u8]) {
        if self.broken.is_none() {
            match item(bytes) {
                Ok(item) => self.push(item.event),
                Err(b) => *self.broken = Some(b),
            }
        }
    }
}

impl Sink<'_> {
    /// Appends an event if it continues the page (a page is one contiguous run of the log;
    /// each seq is within the wire bound as read).
    fn push(&mut self, ev: SessionEvent) {
        match self.events.last() {
            Some(last) if last.seq.checked_add(1) != Some(ev.seq) => {
                // No seqs in the text: formatting them cost more wasm than they tell.
                *self.broken = Some(Broken::Schema(ReadError::invalid("history page not contiguous")));
            }
            _ => self.events.push(ev),
        }
    }
}

/// One item: in one pass, else by the general reader (whose error says what is wrong with
/// it, a syntax error included: the page fails its schema either way).
fn item(bytes: &[u8]) -> Result<HistoryItem, Broken> {
    let text = utf8(bytes);
    if let Some(item) = agent_session_onepass::history_item(&text) {
        return Ok(item);
    }
    read::<HistoryItem>(&text).map_err(Broken::Schema)
}

/// Text from bytes, invalid UTF-8 replaced (as `fetch`'s `text()` does).
fn utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}
