//! The one table of provider names: what `session.create {provider}` accepts, which adapter
//! reads a session's native messages and which scripted profile (or real runtime) speaks them.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Codex,
    Claude,
    Cursor,
    /// Any ACP agent the host drives (`--agent acp`); its adapter is the ACP one, its
    /// capabilities what the agent advertises. Only an `--agent acp` host offers it.
    Acp,
}

/// What `session.create`'s `provider` accepts.
pub const NAMES: &[&str] = &["default", "codex", "claude", "cursor", "acp"];

/// A `provider` that names no profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProvider(pub String);

impl std::fmt::Display for UnknownProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown provider {:?}: expected one of {}", self.0, NAMES.join(", "))
    }
}

impl std::error::Error for UnknownProvider {}

impl Provider {
    /// `Ok(None)` for the default agent (absent or `default`), `Err` for an unknown name.
    pub fn parse(name: Option<&str>) -> Result<Option<Provider>, UnknownProvider> {
        match name {
            None | Some("default") => Ok(None),
            Some("codex") => Ok(Some(Provider::Codex)),
            Some("claude") => Ok(Some(Provider::Claude)),
            Some("cursor") => Ok(Some(Provider::Cursor)),
            Some("acp") => Ok(Some(Provider::Acp)),
            Some(other) => Err(UnknownProvider(other.to_string())),
        }
    }

    #[allow(dead_code)] // read by the agent runtimes
    pub fn name(self) -> &'static str {
        match self {
            Provider::Codex => "codex",
            Provider::Claude => "claude",
            Provider::Cursor => "cursor",
            Provider::Acp => "acp",
        }
    }
}
