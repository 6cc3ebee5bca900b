//! What the scripted agent says: deterministic text derived from the prompt, split into
//! word-sized deltas the way a model streams.

use serde_json::{json, Value};

pub const PROVIDER: &str = "scripted";
pub const MODEL: &str = "scripted-agent-1";

/// Markers in a prompt that make the agent do more than answer.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Markers {
    pub question: bool,
    /// Plan mode only: present a plan for review (`exit_plan_mode` asks the user).
    pub plan_review: bool,
    pub approval: bool,
    pub tool: bool,
    /// The reply shows Markdown: a GFM table, a link, a code block (and text a renderer must
    /// not turn into markup).
    pub markdown: bool,
    /// Delegate to a subagent (`[subagent]` one-shot, `[subagent:continuable]`; 2026-08 only).
    pub subagent: bool,
    pub continuable: bool,
}

impl Markers {
    pub fn parse(text: &str) -> Markers {
        Markers {
            question: text.contains("[question]"),
            plan_review: text.contains("[plan-review]"),
            approval: text.contains("[approval]"),
            tool: text.contains("[tool]"),
            markdown: text.contains("[markdown]"),
            subagent: text.contains("[subagent]") || text.contains("[subagent:continuable]"),
            continuable: text.contains("[subagent:continuable]"),
        }
    }
    pub fn any(&self) -> bool {
        self.question || self.approval || self.tool || self.subagent
    }
}

/// The plain text of a prompt's text blocks.
pub fn prompt_text(content: &[Value]) -> String {
    content.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
}

/// One sentence per image reference of a prompt: the scripted "model" echoes each one's size.
pub fn image_notes(content: &[Value]) -> Vec<String> {
    content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("image"))
        .filter_map(|b| b.get("attachment"))
        .map(|a| {
            let n = |k: &str| a.get(k).and_then(Value::as_u64).unwrap_or(0);
            let media = a.get("mediaType").and_then(Value::as_str).unwrap_or("image");
            format!("I see a {}x{} {media} image of {} bytes.", n("width"), n("height"), n("bytes"))
        })
        .collect()
}

fn excerpt(text: &str, max_chars: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max_chars {
        return flat;
    }
    let mut s: String = flat.chars().take(max_chars).collect();
    s.push('…');
    s
}

/// Upstream's title limits (its bundled `session-title` config): the fallback keeps the first
/// 5 words within 40 UTF-8 bytes; any accepted title is cut to 80 bytes.
const FALLBACK_MAX_WORDS: usize = 5;
const FALLBACK_MAX_BYTES: usize = 40;
const MAX_TITLE_BYTES: usize = 80;

/// One line without control or invisible direction characters (a title must not be able to
/// mislead), whitespace runs collapsed.
fn clean_title(text: &str) -> String {
    let visible = text.chars().filter(|c| {
        (!c.is_control() || c.is_whitespace())
            && !matches!(c, '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}')
    });
    visible.collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The longest prefix within `max` UTF-8 bytes that does not split a character.
fn cut_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let end = (0..=max).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
    s[..end].trim_end()
}

/// The fallback title of the first message with text (upstream's first-prompt rule); `None`
/// when the message has no visible text (the next one titles the session).
pub fn fallback_title(text: &str) -> Option<String> {
    let words: Vec<String> = clean_title(text).split(' ').take(FALLBACK_MAX_WORDS).map(str::to_owned).collect();
    let t = cut_bytes(&words.join(" "), FALLBACK_MAX_BYTES).to_string();
    (!t.is_empty()).then_some(t)
}

/// The scripted "model" title: the prompt's first sentence, capitalised, within the
/// accepted-title budget (never empty: it follows a fallback title).
pub fn model_title(text: &str) -> String {
    // A model would not repeat the demo's markers in a title.
    let unmarked =
        ["[question]", "[approval]", "[tool]", "[plan-review]"].iter().fold(text.to_string(), |t, m| t.replace(m, " "));
    let clean = clean_title(&unmarked);
    let sentence = clean.split(['.', '?', '!', '\n']).next().unwrap_or_default().trim();
    let sentence = if sentence.is_empty() { clean.as_str() } else { sentence };
    let mut chars = sentence.chars();
    let capitalised: String = chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
    let t = cut_bytes(&capitalised, MAX_TITLE_BYTES).to_string();
    if t.is_empty() {
        "New session".to_string()
    } else {
        t
    }
}

/// What the reply says about a question's answer: the chosen labels, never the raw JSON.
pub fn answer_sentence(value: &Value) -> String {
    fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::String(s) if !s.trim().is_empty() => out.push(s),
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut picked = Vec::new();
    strings(value.get("answers").unwrap_or(value), &mut picked);
    if picked.is_empty() {
        return "The user answered the question.".to_string();
    }
    let quoted: Vec<String> = picked.iter().map(|s| format!("\u{201C}{}\u{201D}", excerpt(s, 80))).collect();
    format!("The user answered {}.", quoted.join(" and "))
}

/// The reply before tools run.
pub fn tool_intro(m: Markers) -> String {
    let mut parts = Vec::new();
    if m.question {
        parts.push("ask you a question");
    }
    if m.approval {
        parts.push("run a command (it needs your approval)");
    }
    if m.tool {
        parts.push("read a file");
    }
    if m.subagent {
        parts.push("delegate a task to a subagent");
    }
    format!("First I will {}.", parts.join(", then "))
}

/// The subagent tool's `description` (the child's label) and the child's prompt.
pub const SUBAGENT_LABEL: &str = "Summarize the README";
pub const SUBAGENT_PROMPT: &str = "Summarize README.md in one sentence.";

/// The final answer of a turn. In plan mode it is a markdown plan and nothing is done.
pub fn reply(prompt: &str, plan_mode: bool, notes: &[String]) -> String {
    let ask = excerpt(prompt, 120);
    if plan_mode {
        return format!(
            "# Plan\n\n1. Understand the request: \"{ask}\".\n2. Inspect the relevant files (read-only).\n3. Make the change in small steps.\n4. Verify and report back.\n\nSwitch off plan mode to carry it out."
        );
    }
    let mut text = format!("You asked: \"{ask}\".");
    for n in notes {
        text.push(' ');
        text.push_str(n);
    }
    text.push_str(" Done.");
    if Markers::parse(prompt).markdown {
        text.push_str(MARKDOWN_SAMPLE);
    }
    text
}

/// What a `[markdown]` prompt's reply ends with: GFM a UI should render, and markup it must not.
const MARKDOWN_SAMPLE: &str = "\n\n| Step | Status |\n|---|---|\n| Parse | ~~pending~~ done |\n| Render | done |\n\n\
See [the docs](https://example.com/docs) and [this](javascript:alert(1)).\n\n\
```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n<img src=x onerror=alert(1)> stays text.";

/// Word-sized deltas whose concatenation is `text` (each keeps its leading whitespace).
pub fn deltas(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    for ch in text.chars() {
        if ch.is_whitespace() && in_word {
            out.push(std::mem::take(&mut cur));
            in_word = false;
        } else if !ch.is_whitespace() {
            in_word = true;
        }
        cur.push(ch);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The plan a `[plan-review]` prompt presents in plan mode.
pub const REVIEWED_PLAN: &str = "# Plan\n1. Read the code.\n2. Make the change.\n3. Run the tests.";

/// The plan-review question `exit_plan_mode` asks (the 2026-08 shape, with its intent):
/// answering `Approve` leaves plan mode.
pub fn plan_review_question() -> Value {
    json!({
        "id": "plan-review",
        "header": "Plan review",
        "question": "Approve this plan and leave plan mode?",
        "detail": REVIEWED_PLAN,
        "options": [
            { "label": "Approve", "description": "Leave plan mode; the plan is carried out from the next step." },
            { "label": "Keep planning", "description": "Stay in plan mode; feedback goes back to the model." }
        ],
        "intent": { "kind": "plan-review", "approve": "Approve" }
    })
}

/// Whether an answer to the plan review chose `Approve` (in any answer shape: `{answers:
/// {id: label}}`, or upstream's `{answer: {answers: [{id, selected: [label]}]}}`).
pub fn approves_plan(answer: &Value) -> bool {
    fn any_approve(v: &Value) -> bool {
        match v {
            Value::String(s) => s == "Approve",
            Value::Array(items) => items.iter().any(any_approve),
            Value::Object(map) => map.iter().any(|(k, v)| k != "id" && any_approve(v)),
            _ => false,
        }
    }
    any_approve(answer)
}

/// The question `[question]` asks.
pub fn question(id: &str) -> Value {
    json!({
        "id": id,
        "question": "Which approach should I take?",
        "header": "Approach",
        "options": [
            { "label": "Small change (Recommended)", "description": "Touch as little as possible." },
            { "label": "Refactor", "description": "Clean up the surrounding code too." }
        ],
        "multiSelect": false
    })
}

/// The request header the agent "sends" (logged when it changes).
pub fn request_header(plan_mode: bool) -> Value {
    let mut system = String::from("You are the scripted agent of the agent-session reference host.\n\n");
    if plan_mode {
        system.push_str("You are in plan mode. Explore with read-only tools, then present the complete plan. Do not edit files.\n\n");
    }
    system.push_str("Answer deterministically from the prompt.");
    let tool = |name: &str, description: &str| json!({ "name": name, "description": description, "parameters": { "type": "object" } });
    json!({
        "config": { "provider": PROVIDER, "model": MODEL },
        "system": system,
        "tools": [
            tool("ask_user_question", "Ask the user a question."),
            tool("bash", "Run a shell command (needs approval)."),
            tool("exit_plan_mode", "Present the plan and leave plan mode."),
            tool("read", "Read a UTF-8 text file."),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_follow_upstreams_first_prompt_rules() {
        assert_eq!(
            fallback_title("  Fix the\tlogin   bug in the auth module please").as_deref(),
            Some("Fix the login bug in")
        );
        assert_eq!(fallback_title("\u{202E}evil\u{1b} name").as_deref(), Some("evil name"));
        assert_eq!(fallback_title(" \n\t"), None, "no visible text: no title yet");
        let long = fallback_title("Antidisestablishmentarianism Pneumonoultramicroscopic éé").unwrap();
        assert!(long.len() <= 40 && long.starts_with("Antidisestablishmentarianism"), "{long}");
        assert_eq!(cut_bytes("aé", 2), "a", "never splits a character");
        assert_eq!(model_title("fix the login bug. Then deploy."), "Fix the login bug");
        assert_eq!(model_title("Pick a layout [question]"), "Pick a layout", "markers are not part of a title");
        assert!(model_title(&"word ".repeat(40)).len() <= 80);
    }

    #[test]
    fn an_answer_reads_as_words_not_json() {
        assert_eq!(
            answer_sentence(&json!({ "answers": { "approach": "Refactor" } })),
            "The user answered \u{201C}Refactor\u{201D}."
        );
        assert_eq!(
            answer_sentence(&json!({ "answers": { "a": ["x", "y"] } })),
            "The user answered \u{201C}x\u{201D} and \u{201C}y\u{201D}."
        );
        assert_eq!(answer_sentence(&json!({})), "The user answered the question.");
    }

    #[test]
    fn deltas_rebuild_the_text() {
        let t = "# Plan\n\n1. Do  it.";
        assert_eq!(deltas(t).concat(), t);
        assert_eq!(deltas("Hello from the host."), vec!["Hello", " from", " the", " host."]);
        assert!(deltas("").is_empty());
    }
}
