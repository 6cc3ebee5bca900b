//! What every profile script shares: the turn it scripts ([`Ctx`]) and the plan text.

/// What a profile script knows about the turn it scripts.
pub struct Ctx<'a> {
    pub session_id: &'a str,
    pub turn: u64,
    /// The user's prompt text.
    pub prompt: &'a str,
}

/// Short excerpt of the prompt for the plan text.
pub fn ask_excerpt(prompt: &str) -> String {
    let flat = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 80 {
        return flat;
    }
    let mut s: String = flat.chars().take(80).collect();
    s.push('…');
    s
}

/// The markdown plan every profile proposes, shaped by the user's choice.
pub fn plan_markdown(prompt: &str, choice: &str) -> String {
    format!(
        "# Plan\n\n1. Understand the request: \"{}\".\n2. Inspect the relevant files (read-only).\n3. Make the change ({choice}).\n4. Verify and report back.\n",
        ask_excerpt(prompt)
    )
}
