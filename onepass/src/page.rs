//! A `session.history` response read as its bytes arrive: each event item is read the moment
//! its last byte is in, and only the rest of the document (the envelope with its `events`
//! array emptied: a few hundred bytes) is kept to be read at the end.
//!
//! Why: a 100k-event page is ~15 MB of text. Read whole, the body and the items parsed from
//! it sat in wasm memory side by side, and wasm memory never shrinks: the tab paid the body's
//! size on top of the window's for as long as it lived. Split as it streams, what is held at
//! once is the window being built plus one fetch chunk.
//!
//! Exactness: the items are found by their brackets (strings and escapes skipped), each is
//! read strictly on its own, the separators between them are checked here, and the rest is
//! read strictly at the end; so a body splits only if it is JSON, and every reading is the one
//! the whole body would have given. The `events` array is recognised only at `result.value`
//! and only when its key is written without escapes; anywhere else it stays in the rest and
//! the general reader reads it.

/// Deepest nesting taken, the general reader's own limit (it refuses deeper documents too).
const MAX_DEPTH: usize = 128;

/// Where the `events` array sits: the key wanted at depth 1, 2 and 3.
const PATH: [&[u8]; 3] = [b"result", b"value", b"events"];

/// Where the items of a page go.
pub trait ItemSink {
    /// Reads the item at the start of `text` if it ends there, giving the bytes it took;
    /// `None` lets the splitter cut it out (it goes on in the next piece, or is unusual).
    fn read_at(&mut self, text: &str) -> Option<usize>;
    /// An item the splitter cut out, to be read.
    fn cut(&mut self, bytes: &[u8]);
}

/// Inside a string: whether the last byte was a backslash.
#[derive(Clone, Copy, PartialEq)]
enum Str {
    Out,
    In { escaped: bool },
}

impl Str {
    /// Steps over `b`; true when `b` is outside every string (structural).
    fn step(&mut self, b: u8) -> bool {
        match *self {
            Str::In { escaped: true } => *self = Str::In { escaped: false },
            Str::In { escaped: false } if b == b'\\' => *self = Str::In { escaped: true },
            Str::In { escaped: false } if b == b'"' => *self = Str::Out,
            Str::In { .. } => {}
            Str::Out if b == b'"' => *self = Str::In { escaped: false },
            Str::Out => return true,
        }
        false
    }
}

/// The reading of the `events` array.
#[derive(Clone, Copy, PartialEq)]
enum Items {
    /// After `[` (`first`: `]` may follow) or after `,`.
    Before { first: bool },
    /// Inside an item: its open brackets.
    In { depth: usize },
    /// After an item: `,` or `]`.
    After,
}

/// Splits one response body, fed in any pieces, into its items and the rest.
pub struct PageSplitter {
    /// The document without its items (`"events":[]`), read when the body ends.
    rest: Vec<u8>,
    /// The start of an item the previous pieces left unfinished.
    item: Vec<u8>,
    /// Bytes fed so far (error offsets).
    offset: usize,
    /// Whether each open container of the rest is an object.
    objects: Vec<bool>,
    /// How many open containers are on the path: the root object, then one per key of
    /// [`PATH`] matched (the array itself is `items`).
    matched: usize,
    /// The next string of the rest is a member key; the key being read (`None`: it cannot
    /// be on the path); the key just read is the path's next.
    expect_key: bool,
    key: Key,
    key_matches: bool,
    /// Strings of the rest, and of an item.
    string: Str,
    /// Inside the `events` array: where its reading is.
    items: Option<Items>,
}

impl Default for PageSplitter {
    fn default() -> Self {
        PageSplitter {
            rest: Vec::new(),
            item: Vec::new(),
            offset: 0,
            objects: Vec::new(),
            matched: 0,
            expect_key: false,
            key: Key::default(),
            key_matches: false,
            string: Str::Out,
            items: None,
        }
    }
}

/// A member key as far as it can be on the path: its first bytes (the path's keys are at
/// most 6 long), `len` past them when longer or escaped.
#[derive(Default)]
struct Key {
    bytes: [u8; 8],
    len: usize,
}

impl Key {
    fn push(&mut self, b: u8) {
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = b;
        }
        self.len += 1;
    }
    /// Whether the key is `want`.
    fn is(&self, want: Option<&[u8]>) -> bool {
        want.is_some_and(|w| self.bytes.get(..self.len) == Some(w))
    }
}

/// Why a body is not JSON: the message, as a syntax error is reported.
pub type SplitError = String;

impl PageSplitter {
    /// A splitter at the start of a body.
    pub fn new() -> PageSplitter {
        PageSplitter::default()
    }

    /// Feeds the next piece of the body; `items` reads each item completed in it (this file
    /// knows nothing of events). An item that lies whole in the piece is read where it lies
    /// in one pass (most of them: a piece is kilobytes, an item ~150 bytes); the others are
    /// cut out by their brackets first.
    pub fn feed(&mut self, bytes: &[u8], items: &mut dyn ItemSink) -> Result<(), SplitError> {
        // The piece's text: one UTF-8 check per piece (its last character may be cut off;
        // an item with invalid UTF-8 is then cut out and read with replacements).
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
        };
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            match self.items {
                None => self.rest_byte(b).map_err(|e| self.error(i, e))?,
                Some(Items::Before { first }) => match b {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b']' if first => self.end_items(),
                    b']' => return Err(self.error(i, "trailing comma")),
                    b',' => return Err(self.error(i, "expected value")),
                    _ => {
                        if let Some(n) = text.get(i..).filter(|_| b == b'{').and_then(|t| items.read_at(t)) {
                            self.items = Some(Items::After);
                            i += n;
                            continue;
                        }
                        self.items = Some(Items::In { depth: 0 });
                        continue;
                    }
                },
                Some(Items::After) => match b {
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    b',' => self.items = Some(Items::Before { first: false }),
                    b']' => self.end_items(),
                    _ => return Err(self.error(i, "expected `,` or `]`")),
                },
                Some(Items::In { depth }) => {
                    let start = i;
                    let end = self.scan_item(depth, bytes, &mut i).map_err(|e| self.error(i, e))?;
                    match end {
                        Some(end) if self.item.is_empty() => items.cut(&bytes[start..end]),
                        Some(end) => {
                            self.item.extend_from_slice(&bytes[start..end]);
                            items.cut(&self.item);
                            self.item.clear();
                        }
                        None => self.item.extend_from_slice(&bytes[start..]),
                    }
                    continue;
                }
            }
            i += 1;
        }
        self.offset += bytes.len();
        Ok(())
    }

    /// Ends the body: the rest of the document, to be read as a whole.
    pub fn finish(self) -> Result<Vec<u8>, SplitError> {
        match self.items {
            None => Ok(self.rest),
            Some(_) => Err(self.error(0, "EOF while parsing a list")),
        }
    }

    #[inline(never)]
    fn error(&self, at: usize, what: &str) -> SplitError {
        format!("{what} at byte {}", self.offset + at)
    }

    /// Scans an item from `*i`: `Some(end)` when it ends in this piece (`*i` is then past it),
    /// `None` when the piece ends first. Brackets of both kinds are counted alike: in JSON
    /// they nest, and an item that is not JSON fails its own reading.
    fn scan_item(&mut self, mut depth: usize, bytes: &[u8], i: &mut usize) -> Result<Option<usize>, &'static str> {
        while *i < bytes.len() {
            let b = bytes[*i];
            let structural = self.string.step(b);
            if structural {
                match b {
                    b'{' | b'[' => {
                        depth += 1;
                        if self.objects.len() + depth >= MAX_DEPTH {
                            return Err("recursion limit exceeded");
                        }
                    }
                    b'}' | b']' if depth > 0 => depth -= 1,
                    // A number or literal ends before its separator.
                    b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => {
                        self.items = Some(Items::After);
                        return Ok(Some(*i));
                    }
                    _ => {}
                }
            }
            *i += 1;
            if depth == 0 && self.string == Str::Out && (b == b'}' || b == b']' || b == b'"') {
                self.items = Some(Items::After);
                return Ok(Some(*i));
            }
        }
        self.items = Some(Items::In { depth });
        Ok(None)
    }

    /// One byte of the rest: copied, with the containers, keys and path followed.
    fn rest_byte(&mut self, b: u8) -> Result<(), &'static str> {
        self.rest.push(b);
        let was_key = self.expect_key && self.string != Str::Out;
        if !self.string.step(b) {
            match (was_key, self.string) {
                // A key's byte, or its closing quote.
                (true, Str::In { escaped: false }) if b != b'\\' => self.key.push(b),
                // An escape: no key of the path.
                (true, Str::In { .. }) => self.key.len = usize::MAX / 2,
                (true, Str::Out) => {
                    self.expect_key = false;
                    let want = self.matched.checked_sub(1).and_then(|l| PATH.get(l)).copied();
                    self.key_matches = self.matched == self.objects.len() && self.key.is(want);
                }
                (false, Str::In { .. }) if self.expect_key => self.key = Key::default(),
                _ => {}
            }
            return Ok(());
        }
        match b {
            b'{' | b'[' => {
                let depth = self.objects.len();
                if depth >= MAX_DEPTH {
                    return Err("recursion limit exceeded");
                }
                let on_path = depth == self.matched && (depth == 0 || self.key_matches);
                self.key_matches = false;
                if on_path && depth == PATH.len() && b == b'[' {
                    // `result.value.events`: its items are read, not kept.
                    self.items = Some(Items::Before { first: true });
                    return Ok(());
                }
                if on_path && b == b'{' && depth < PATH.len() {
                    self.matched = depth + 1;
                }
                self.objects.push(b == b'{');
                self.expect_key = b == b'{';
            }
            b'}' | b']' => {
                self.objects.pop();
                self.matched = self.matched.min(self.objects.len());
                self.expect_key = false;
            }
            b',' => self.expect_key = self.objects.last() == Some(&true),
            b':' | b' ' | b'\t' | b'\n' | b'\r' => {}
            // Any other value: not a container on the path.
            _ => self.key_matches = false,
        }
        Ok(())
    }

    /// The array's `]`: back to the rest, after the (now empty) array value.
    fn end_items(&mut self) {
        self.rest.push(b']');
        self.items = None;
        self.expect_key = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Collects item texts; `in_place` reads whole items where they lie (any JSON value).
    struct Texts {
        items: Vec<String>,
        in_place: bool,
    }

    impl ItemSink for Texts {
        fn read_at(&mut self, text: &str) -> Option<usize> {
            if !self.in_place {
                return None;
            }
            let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
            stream.next()?.ok()?;
            self.items.push(text[..stream.byte_offset()].to_string());
            Some(stream.byte_offset())
        }
        fn cut(&mut self, bytes: &[u8]) {
            self.items.push(String::from_utf8(bytes.to_vec()).expect("utf-8"));
        }
    }

    /// Splits `body` in pieces of `n` bytes: the items' texts and the rest, or the error.
    fn split_with(body: &str, n: usize, in_place: bool) -> Result<(Vec<String>, String), SplitError> {
        let mut s = PageSplitter::new();
        let mut texts = Texts { items: Vec::new(), in_place };
        for piece in body.as_bytes().chunks(n.max(1)) {
            s.feed(piece, &mut texts)?;
        }
        Ok((texts.items, String::from_utf8(s.finish()?).expect("utf-8")))
    }

    fn split(body: &str, n: usize) -> Result<(Vec<String>, String), SplitError> {
        let cut = split_with(body, n, false);
        let in_place = split_with(body, n, true);
        assert_eq!(cut, in_place, "read in place or cut out, the same split: {body}");
        cut
    }

    /// What the split must give for a JSON `body`: its `result.value.events` elements, and the
    /// document with that array emptied.
    fn expected(body: &str) -> (Vec<Value>, Value) {
        let mut doc: Value = serde_json::from_str(body).expect("json");
        if body.contains(r"\u0065") {
            // The key is written with an escape: not recognised, the rest keeps the array.
            return (Vec::new(), doc);
        }
        let items = match doc.pointer_mut("/result/value/events") {
            Some(Value::Array(a)) => std::mem::take(a),
            _ => Vec::new(),
        };
        (items, doc)
    }

    #[test]
    fn a_page_split_at_any_byte_gives_its_items_and_the_rest_with_events_emptied() {
        let bodies = [
            r#"{"type":"server-response","rpcId":"r1","result":{"ok":true,"value":{"events":[{"event":{"type":"a","seq":0,"time":1,"data":{"t":"} ] \" \\ {"}}},{"event":{"type":"b","seq":1,"time":2,"data":[[1,{"x":[]}]]}}],"hasMore":true}}}"#,
            r#" { "rpcId" : "r1" , "result" : { "value" : { "hasMore" : false , "events" : [ { "event" : {} } , [ 1 , 2 ] , "s\"]" , 12.5e3 , null ] , "projections" : { "asOfSeq" : 3 } } , "ok" : true } , "type" : "server-response" } "#,
            r#"{"result":{"ok":true,"value":{"events":[],"hasMore":false}}}"#,
            // Not at result.value, or an escaped key: left in the rest for the general reader.
            r#"{"result":{"ok":false,"error":{"events":[{"a":1}]}},"events":[{"b":2}]}"#,
            r#"{"result":{"ok":true,"value":{"ev\u0065nts":[{"event":{}}],"hasMore":false}}}"#,
            r#"{"result":{"value":{"x":{"events":[{"c":3}]},"events":[{"d":"é😀"}]}}}"#,
        ];
        for body in bodies {
            let (want_items, want_rest) = expected(body);
            for n in [1, 2, 3, 5, 7, 16, 64, body.len()] {
                let (items, rest) = split(body, n).unwrap_or_else(|e| panic!("{e}: {body}"));
                let items: Vec<Value> = items.iter().map(|t| serde_json::from_str(t).expect("item json")).collect();
                assert_eq!(items, want_items, "pieces of {n}: {body}");
                let rest: Value = serde_json::from_str(&rest).unwrap_or_else(|e| panic!("{e}: {rest}"));
                assert_eq!(rest, want_rest, "pieces of {n}: {body}");
            }
        }
    }

    #[test]
    fn a_body_that_is_not_json_around_its_items_does_not_split() {
        for body in [
            r#"{"result":{"value":{"events":[{"event":{}},]}}}"#,
            r#"{"result":{"value":{"events":[,{"event":{}}]}}}"#,
            r#"{"result":{"value":{"events":[{"event":{}} {"event":{}}]}}}"#,
            r#"{"result":{"value":{"events":[{"event":{}}"#,
            r#"{"result":{"value":{"events":[{"event":{"#,
        ] {
            for n in [1, 4, body.len()] {
                let out = split(body, n);
                assert!(out.is_err(), "pieces of {n}: {body} split as {out:?}");
            }
        }
        // A body too deep for the general reader is refused here too.
        let deep = format!(r#"{{"result":{{"value":{{"events":[{}{}]}}}}}}"#, "[".repeat(200), "]".repeat(200));
        assert!(split(&deep, 64).is_err());
    }
}
