//! A fake model server of `tests/fake-models/` (the vendor's real streaming API, scripted by
//! tags in the prompt) for the tests that drive a real agent, and the pinned agent binaries.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A pinned agent binary under `agents/` (installed by the bootstrap), or a panic saying how
/// to install it.
pub fn pinned(relative: &str) -> PathBuf {
    let bin = root().join("agents/node_modules").join(relative);
    assert!(
        bin.exists(),
        "{} is not installed: run `bash scripts/bootstrap.sh` (it runs `npm ci --prefix agents`)",
        bin.display()
    );
    bin
}

/// A fake model server, killed on drop.
pub struct FakeServer {
    child: Child,
    /// Where it listens (`http://127.0.0.1:PORT`).
    pub url: String,
    log: PathBuf,
}

impl FakeServer {
    /// Starts `tests/fake-models/<script>` with its request log in `dir`; `banner` is its first
    /// stdout line before the URL (`fake-messages listening on `).
    pub fn start(script: &str, banner: &str, dir: &Path) -> FakeServer {
        let log = dir.join("model-requests.jsonl");
        let mut child = Command::new("node")
            .arg(root().join("tests/fake-models").join(script))
            .args(["--port", "0", "--requests-log"])
            .arg(&log)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn node (the fake model server {script}): {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("first line");
        let url = line.trim().strip_prefix(banner).unwrap_or_else(|| panic!("fake server said {line:?}")).to_string();
        FakeServer { child, url, log }
    }

    /// Every request it logged so far, in order.
    pub fn logged(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
