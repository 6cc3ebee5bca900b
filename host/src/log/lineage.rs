//! Where a session comes from, kept in SQLite (`lineage`, one row per child) so a restart keeps
//! it: a fork's parent, and for a subagent (2026-08 dialect) its durable identity too: upstream
//! lists `origin: 'subagent'` children by `parentSessionId` and reads their `mode` and `label`
//! from the child's `subagent/descriptor`, so the catalog must outlive the process. The types
//! only: `store` writes and reads them (table `lineage`).

/// A subagent's lifecycle mode, as upstream's descriptor names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One run whose result returns to the parent's tool call; never prompted again.
    OneShot,
    /// A conversation `subagent.prompt` continues.
    Continuable,
}

impl Mode {
    /// Upstream's word (`one-shot`, `continuable`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::OneShot => "one-shot",
            Mode::Continuable => "continuable",
        }
    }

    /// The mode upstream's word names.
    pub fn parse(word: &str) -> Option<Mode> {
        match word {
            "one-shot" => Some(Mode::OneShot),
            "continuable" => Some(Mode::Continuable),
            _ => None,
        }
    }
}

/// A subagent child's identity: what `subagent.list` answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subagent {
    pub mode: Mode,
    /// The delegation's short description (required upstream for a continuable child).
    pub label: Option<String>,
}

/// A child session's parent, and its subagent identity when a subagent spawned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lineage {
    pub parent_id: String,
    /// `None`: a fork's child (an ordinary session).
    pub subagent: Option<Subagent>,
}
