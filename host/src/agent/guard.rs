//! The reaper of an agent's process tree.
//!
//! Agents run their shells in process groups of their own (Codex does, and so do Claude
//! Code's Bash tool and an ACP agent's terminals), so neither the parent-death signal (which
//! only reaches the agent itself) nor a kill of its group ends them: after a SIGKILL of the
//! host, or a crash of the agent, its commands would live on. So every agent child carries a
//! tag in its environment ([`TAG_ENV`], inherited by everything it starts), and a guard process
//! (this binary again, `--agent-guard TAG`, in its own process group so a terminal's Ctrl-C does
//! not end it first) waits for its stdin to close: the host holds the other end, and the kernel
//! closes it when the host dies however it dies. Then the guard SIGKILLs every process that
//! carries the tag and exits. The host closes it itself when the child ends (exit, crash,
//! kill).

use std::io::Read;
use std::time::Duration;

/// The environment variable that tags an agent child and its descendants.
pub const TAG_ENV: &str = "AGENT_SESSION_AGENT_TREE";

/// The guard's body: waits for EOF on stdin, then kills the tagged processes.
pub fn run(tag: &str) -> ! {
    let mut buf = [0u8; 256];
    let mut stdin = std::io::stdin();
    while matches!(stdin.read(&mut buf), Ok(n) if n > 0) {}
    let needle = format!("{TAG_ENV}={tag}").into_bytes();
    // Rescan until a pass finds nothing: a process may fork while its parent is being killed.
    for _ in 0..50 {
        if kill_tagged(&needle) == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::process::exit(0)
}

/// SIGKILLs every readable process whose environment holds `needle`; how many.
fn kill_tagged(needle: &[u8]) -> usize {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else { return 0 };
    let mut killed = 0;
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if pid == me {
            continue;
        }
        // Zombies and other users' processes read as empty.
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { continue };
        if environ.split(|&b| b == 0).any(|kv| kv == needle) {
            if let Ok(pid) = i32::try_from(pid) {
                // SAFETY: kill(2) on a process that carries our tag.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                killed += 1;
            }
        }
    }
    killed
}
