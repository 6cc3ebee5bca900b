//! What the scripted agent says: deterministic text derived from the prompt, split into
//! word-sized deltas the way a model streams.

use serde_json::{json, Value};

pub const PROVIDER: &str = "scripted";
pub const MODEL: &str = "scripted-agent-1";

/// Markers in a prompt that make the agent do more than answer.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Markers {
    pub question: bool,
    pub approval: bool,
    pub tool: bool,
}

impl Markers {
    pub fn parse(text: &str) -> Markers {
        Markers {
            question: text.contains("[question]"),
            approval: text.contains("[approval]"),
            tool: text.contains("[tool]"),
        }
    }
    pub fn any(&self) -> bool {
        self.question || self.approval || self.tool
    }
}

/// The plain text of a prompt's text blocks.
pub fn prompt_text(content: &[Value]) -> String {
    content.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
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

/// The fallback title: the first message, flattened and cut.
pub fn fallback_title(text: &str) -> String {
    let t = excerpt(text, 80);
    if t.is_empty() {
        "New session".to_string()
    } else {
        t
    }
}

/// The "model" title: the first five words.
pub fn model_title(text: &str) -> String {
    let words: Vec<_> = text.split_whitespace().take(5).collect();
    if words.is_empty() {
        "New session".to_string()
    } else {
        words.join(" ")
    }
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
    format!("First I will {}.", parts.join(", then "))
}

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
    text
}

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
    fn deltas_rebuild_the_text() {
        let t = "# Plan\n\n1. Do  it.";
        assert_eq!(deltas(t).concat(), t);
        assert_eq!(deltas("Hello from the host."), vec!["Hello", " from", " the", " host."]);
        assert!(deltas("").is_empty());
    }
}
