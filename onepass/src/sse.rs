//! Incremental Server-Sent-Events parser for a streaming `fetch` body.
//!
//! Chunks may split anywhere: inside a UTF-8 sequence, between `\r` and `\n`, inside a
//! field name. Bytes are buffered until a line ends, so decoding only ever sees whole lines.
//! Only what the contract uses is interpreted (`data:` lines, `:` comments, blank-line
//! dispatch); other fields are ignored as the SSE spec says.

use std::borrow::Cow;

/// One dispatched unit of the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem<'a> {
    /// A `:` comment line (the host sends `: connected` first).
    Comment(String),
    /// The joined `data:` lines of one event: borrowed from the chunk when the event is one
    /// `data:` line inside it (every frame of a live stream), owned otherwise.
    Data(Cow<'a, str>),
    /// An event whose data exceeded the frame limit: dropped, its size reported.
    Oversize(usize),
}

/// What an ended line means for the event being assembled.
enum LineEnd<'b> {
    Dispatch,
    Data(Cow<'b, str>),
    Nothing,
}

impl LineEnd<'_> {
    /// The same, owning its value (a line that was buffered across chunks).
    fn into_owned(self) -> LineEnd<'static> {
        match self {
            LineEnd::Dispatch => LineEnd::Dispatch,
            LineEnd::Data(v) => LineEnd::Data(Cow::Owned(v.into_owned())),
            LineEnd::Nothing => LineEnd::Nothing,
        }
    }
}

/// The parser's state between chunks: the partial line and the event being assembled.
#[derive(Debug)]
pub struct SseParser {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    /// The previous chunk ended in `\r`: a leading `\n` of the next chunk belongs to it.
    after_cr: bool,
    /// Bytes of the event being assembled; once past `max_frame` the event is discarded.
    event_bytes: usize,
    discarding: bool,
    /// The current line had bytes (needed while discarding, when they are not kept).
    line_nonempty: bool,
    max_frame: usize,
}

/// Default per-frame limit: far above any real frame, low enough to bound memory.
pub const DEFAULT_MAX_FRAME: usize = 8 * 1024 * 1024;

impl Default for SseParser {
    fn default() -> Self {
        SseParser::new(DEFAULT_MAX_FRAME)
    }
}

impl SseParser {
    /// A parser that discards any event whose bytes pass `max_frame` (the bound on its buffers).
    pub fn new(max_frame: usize) -> Self {
        SseParser {
            line: Vec::new(),
            data: String::new(),
            has_data: false,
            after_cr: false,
            event_bytes: 0,
            discarding: false,
            line_nonempty: false,
            max_frame,
        }
    }

    /// Feeds one chunk; dispatched items are appended to `out`.
    pub fn push<'a>(&mut self, mut chunk: &'a [u8], out: &mut Vec<SseItem<'a>>) {
        // An empty chunk (a reader may hand one over) says nothing about the next byte.
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        // The event's one `data:` value so far, still in `chunk` (not yet copied to `data`).
        let mut held: Option<&'a str> = None;
        while !chunk.is_empty() {
            match memchr::memchr2(b'\n', b'\r', chunk) {
                Some(i) => {
                    self.count(i);
                    if self.discarding {
                        held = None;
                    }
                    let end = if self.line.is_empty() {
                        // The whole line is in this chunk: read it in place, no copy.
                        self.end_line(&chunk[..i], out)
                    } else {
                        self.keep(&chunk[..i]);
                        let line = std::mem::take(&mut self.line);
                        let end = self.end_line(&line, out).into_owned();
                        self.line = line;
                        self.line.clear();
                        end
                    };
                    match end {
                        LineEnd::Data(Cow::Borrowed(v)) if !self.has_data => {
                            // The event's first value: held in the chunk, not copied.
                            held = Some(v);
                            self.has_data = true;
                        }
                        LineEnd::Data(v) => self.append(&v, &mut held),
                        LineEnd::Dispatch => self.dispatch(&mut held, out),
                        LineEnd::Nothing => {}
                    }
                    let cr = chunk[i] == b'\r';
                    let mut next = i + 1;
                    if cr {
                        if next == chunk.len() {
                            self.after_cr = true;
                        } else if chunk[next] == b'\n' {
                            next += 1;
                        }
                    }
                    chunk = &chunk[next..];
                }
                None => {
                    self.count(chunk.len());
                    self.keep(chunk);
                    break;
                }
            }
        }
        // The event goes on in the next chunk: what it holds is copied now.
        if let Some(v) = held.filter(|_| !self.discarding) {
            self.data.push_str(v);
        }
    }

    /// Counts `n` bytes of the current line toward the event's size limit.
    fn count(&mut self, n: usize) {
        self.line_nonempty |= n > 0;
        self.event_bytes += n;
        if self.event_bytes > self.max_frame {
            self.discarding = true;
            self.line.clear();
        }
    }

    /// Buffers the start of a line that continues in the next chunk.
    fn keep(&mut self, bytes: &[u8]) {
        if !self.discarding {
            self.line.extend_from_slice(bytes);
        }
    }

    /// One line ended: a blank line dispatches the event, a `data:` line gives its value
    /// (comments and oversize events are reported here).
    fn end_line<'b>(&mut self, bytes: &'b [u8], out: &mut Vec<SseItem<'_>>) -> LineEnd<'b> {
        let blank = !std::mem::take(&mut self.line_nonempty);
        if self.discarding {
            if blank {
                out.push(SseItem::Oversize(self.event_bytes));
                self.reset_event();
            }
            return LineEnd::Nothing;
        }
        if blank {
            return LineEnd::Dispatch;
        }
        // Valid UTF-8 is the norm; only a broken sequence pays for the lossy decode.
        let line = match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        // The value is the line's tail.
        let Some(start) = self.field(&line, out).map(|v| line.len() - v.len()) else { return LineEnd::Nothing };
        LineEnd::Data(match line {
            Cow::Borrowed(l) => Cow::Borrowed(&l[start..]),
            Cow::Owned(l) => Cow::Owned(l[start..].to_string()),
        })
    }

    /// A field line: a comment is reported, a `data:` line gives its value.
    fn field<'l>(&mut self, line: &'l str, out: &mut Vec<SseItem<'_>>) -> Option<&'l str> {
        if let Some(comment) = line.strip_prefix(':') {
            out.push(SseItem::Comment(comment.trim_ascii_start().to_string()));
            return None;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line, ""),
        };
        (field == "data").then_some(value)
    }

    /// Appends a `data:` value to the event (after what `held` kept in the chunk).
    fn append(&mut self, value: &str, held: &mut Option<&str>) {
        if let Some(v) = held.take() {
            self.data.push_str(v);
        }
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.has_data = true;
    }

    /// A blank line: the event (if it has data) is dispatched.
    fn dispatch<'a>(&mut self, held: &mut Option<&'a str>, out: &mut Vec<SseItem<'a>>) {
        match held.take() {
            Some(v) => out.push(SseItem::Data(Cow::Borrowed(v))),
            // Handed over whole: the next event's first `push_str` allocates its own
            // exact-size buffer, so nothing is copied twice.
            None if self.has_data => out.push(SseItem::Data(Cow::Owned(std::mem::take(&mut self.data)))),
            None => {}
        }
        self.reset_event();
    }

    fn reset_event(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.event_bytes = 0;
        self.discarding = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all<'a>(chunks: &[&'a [u8]]) -> Vec<SseItem<'a>> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for c in chunks {
            p.push(c, &mut out);
        }
        out
    }

    #[test]
    fn a_frame_split_at_every_byte_decodes_the_same() {
        let body = ": connected\r\n\r\ndata: {\"t\":\"h\u{e9}llo \u{1f600}\"}\r\n\r\ndata: a\ndata: b\n\n".as_bytes();
        let whole = feed_all(&[body]);
        assert_eq!(
            whole,
            vec![
                SseItem::Comment("connected".into()),
                SseItem::Data("{\"t\":\"h\u{e9}llo \u{1f600}\"}".into()),
                SseItem::Data("a\nb".into()),
            ]
        );
        for i in 0..=body.len() {
            for j in i..=body.len() {
                let got = feed_all(&[&body[..i], &body[i..j], &body[j..]]);
                assert_eq!(got, whole, "split at {i},{j}");
            }
        }
    }

    /// Found by the adversarial run: an empty chunk between `\r` and `\n` cleared the
    /// pending CR, so the `\n` ended a second, blank line and split one event in two.
    #[test]
    fn an_empty_chunk_between_cr_and_lf_does_not_split_the_event() {
        let body: &[u8] = b"data: x\r\ndata: y\r\n\r\n";
        let whole = feed_all(&[body]);
        assert_eq!(whole, vec![SseItem::Data("x\ny".into())]);
        assert_eq!(feed_all(&[b"data: x\r", b"", &body[8..]]), whole);
        assert_eq!(feed_all(&[b"data: x\r", b"", b"", b"\n", b"", b"data: y\r", b"", b"\n\r", b"", b"\n"]), whole);
    }

    #[test]
    fn bare_cr_line_endings_dispatch() {
        assert_eq!(feed_all(&[b"data: x\r\r"]), vec![SseItem::Data("x".into())]);
        assert_eq!(feed_all(&[b"data: x\r", b"\r"]), vec![SseItem::Data("x".into())]);
    }

    #[test]
    fn an_oversize_frame_is_dropped_and_the_next_one_survives() {
        let mut p = SseParser::new(16);
        let mut out = Vec::new();
        p.push(b"data: 0123456789\ndata: abcdefghij\n\ndata: ok\n\n", &mut out);
        assert!(matches!(out[0], SseItem::Oversize(n) if n > 16));
        assert_eq!(out[1], SseItem::Data("ok".into()));
    }

    #[test]
    fn a_one_line_event_inside_the_chunk_is_borrowed_and_others_are_owned() {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        p.push(b"data: {\"a\":1}\n\ndata: a\ndata: b\n\ndata: spl", &mut out);
        assert!(matches!(&out[0], SseItem::Data(Cow::Borrowed("{\"a\":1}"))), "{out:?}");
        assert!(matches!(&out[1], SseItem::Data(Cow::Owned(d)) if d == "a\nb"), "{out:?}");
        let mut more = Vec::new();
        p.push(b"it\n\n", &mut more);
        assert_eq!(more, vec![SseItem::Data("split".into())]);
    }

    #[test]
    fn a_held_value_of_an_oversize_event_never_reaches_the_next_event() {
        // Split after the next event's first bytes, and inside the oversize line.
        let chunks: [[&[u8]; 2]; 2] = [
            [b"data: first\ndata: 0123456789abcdef\n\ndata: nex", b"t\n\n"],
            [b"data: first\ndata: 0123456789", b"abcdef\n\ndata: next\n\n"],
        ];
        for [a, b] in chunks {
            let mut p = SseParser::new(24);
            let mut out = Vec::new();
            p.push(a, &mut out);
            p.push(b, &mut out);
            assert!(matches!(out[0], SseItem::Oversize(_)), "{out:?}");
            assert_eq!(out[1], SseItem::Data("next".into()));
        }
    }

    #[test]
    fn other_fields_and_events_without_data_are_ignored() {
        assert_eq!(feed_all(&[b"id: 4\nevent: x\n\nretry: 5\n\n"]), vec![]);
    }
}
