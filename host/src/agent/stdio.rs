//! What every agent process's stdio needs, whatever it speaks (Codex's and an ACP agent's
//! JSON-RPC, Claude Code's stream-json): its stdout read as bounded JSON lines, its stderr kept
//! as a bounded tail (and echoed in part), the tree guard started beside it, and the words a
//! crash is reported in.

use serde_json::Value;
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{ChildStdin, Command};

/// A line of an agent's stdout longer than this is dropped (and reported).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// How much of an agent's stderr is kept for a crash report.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;
/// stderr lines echoed to the host's own stderr per process (the rest only kept in the tail).
pub const STDERR_ECHO_LINES: usize = 200;

/// One line of an agent's stdout.
pub enum Line {
    /// A JSON object.
    Object(Value),
    /// A line that could not be read: what it was (its size, its first bytes).
    Malformed(String),
}

/// An agent's stdout as bounded lines: every line is read the same way whichever request is
/// outstanding (an answer and the message after it can arrive in one read), a line longer than
/// [`MAX_LINE_BYTES`] is dropped without being held, and blank lines are skipped.
pub struct Lines<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    /// Reads `stdout` in 64 KiB pieces.
    pub fn new(stdout: R) -> Self {
        Lines { reader: BufReader::with_capacity(64 * 1024, stdout), line: Vec::new() }
    }

    /// The next line, or `None` once stdout ended.
    pub async fn next(&mut self) -> Option<Line> {
        let mut too_long = false;
        loop {
            let (done, used) = match self.reader.fill_buf().await {
                Ok([]) | Err(_) => return None,
                Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        if !too_long {
                            self.line.extend_from_slice(&buf[..i]);
                        }
                        (true, i + 1)
                    }
                    None => {
                        if !too_long {
                            self.line.extend_from_slice(buf);
                        }
                        (false, buf.len())
                    }
                },
            };
            self.reader.consume(used);
            if self.line.len() > MAX_LINE_BYTES {
                too_long = true;
                self.line = Vec::new();
            }
            if !done {
                continue;
            }
            if too_long {
                return Some(Line::Malformed(format!("a line over {MAX_LINE_BYTES} bytes")));
            }
            let line = std::mem::take(&mut self.line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(match serde_json::from_slice::<Value>(&line) {
                Ok(v @ Value::Object(_)) => Line::Object(v),
                _ => {
                    let preview = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
                    Line::Malformed(format!("a line that is not a JSON object ({} bytes: {preview:?})", line.len()))
                }
            });
        }
    }
}

/// The last [`STDERR_TAIL_BYTES`] an agent wrote to its stderr.
#[derive(Default)]
pub struct StderrTail(Mutex<VecDeque<u8>>);

impl StderrTail {
    /// The tail as text, trimmed.
    pub fn text(&self) -> String {
        let tail = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let bytes: Vec<u8> = tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim().to_string()
    }

    fn keep(&self, buf: &[u8]) {
        let mut tail = self.0.lock().unwrap_or_else(|e| e.into_inner());
        tail.extend(buf[buf.len().saturating_sub(STDERR_TAIL_BYTES)..].iter().copied());
        let over = tail.len().saturating_sub(STDERR_TAIL_BYTES);
        tail.drain(..over);
    }
}

/// Reads an agent's stderr into `tail`, echoing its first [`STDERR_ECHO_LINES`] lines to the
/// host's stderr as `label: line`.
pub async fn read_stderr(stderr: impl AsyncRead + Unpin, tail: &StderrTail, label: &str) {
    // Read in chunks, not `lines()`: a newline-less flood must not grow one line without
    // bound. A line is echoed (cut at ECHO_LINE_BYTES) when it ends or reaches that size;
    // every byte goes to the bounded tail.
    const ECHO_LINE_BYTES: usize = 500;
    let mut reader = BufReader::with_capacity(64 * 1024, stderr);
    let mut echoed = 0;
    let mut line: Vec<u8> = Vec::new();
    let mut line_echoed = false;
    loop {
        let used = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(buf) => {
                tail.keep(buf);
                for &b in buf.iter() {
                    if b == b'\n' {
                        if !line_echoed && echoed < STDERR_ECHO_LINES {
                            echoed += 1;
                            eprintln!("{label}: {}", String::from_utf8_lossy(&line));
                        }
                        line.clear();
                        line_echoed = false;
                    } else if line.len() < ECHO_LINE_BYTES {
                        line.push(b);
                    } else if !line_echoed {
                        line_echoed = true;
                        if echoed < STDERR_ECHO_LINES {
                            echoed += 1;
                            eprintln!("{label}: {}…", String::from_utf8_lossy(&line));
                        }
                    }
                }
                buf.len()
            }
        };
        reader.consume(used);
    }
    if !line.is_empty() && !line_echoed && echoed < STDERR_ECHO_LINES {
        eprintln!("{label}: {}", String::from_utf8_lossy(&line));
    }
}

/// Starts the tree guard for `tag` (this binary, `--agent-guard`, [`crate::agent::guard`]); its
/// stdin's write end, whose drop reaps the tree. Without one (the binary cannot be found), the
/// child still has its parent-death signal.
pub fn spawn_guard(tag: &str, label: &str) -> Option<ChildStdin> {
    let exe = std::env::current_exe().ok()?;
    let spawned = Command::new(exe)
        .arg("--agent-guard")
        .arg(tag)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    let mut guard = match spawned {
        Ok(g) => g,
        Err(e) => {
            eprintln!("agent-session-host: cannot start the {label} tree guard: {e}");
            return None;
        }
    };
    let stdin = guard.stdin.take();
    tokio::spawn(async move {
        let _ = guard.wait().await; // reaped when it is done
    });
    stdin
}

/// The last `n` non-empty lines of a text without terminal colour codes, joined by " | ".
fn last_lines(text: &str, n: usize) -> String {
    let plain = strip_ansi(text);
    let lines: Vec<&str> = plain.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

/// Drops ANSI escape sequences (`ESC [ … letter`), which agents' log lines carry.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.next() == Some('[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        }
    }
    out
}

/// How an ended agent process is reported: `name exited (status)`, with the last three lines
/// of its stderr when it wrote any.
pub fn exit_report(name: &str, status: &str, tail: &StderrTail) -> String {
    let tail = tail.text();
    if tail.is_empty() {
        format!("{name} exited ({status})")
    } else {
        format!("{name} exited ({status}); its last words: {}", last_lines(&tail, 3))
    }
}
