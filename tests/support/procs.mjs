// The live processes of the machine, read from /proc, for the tests that drive real agents:
// which of them are still running (no child may outlive the host or the tests).
import { readFileSync, readdirSync, readlinkSync } from 'node:fs'

export function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`)
  } catch {
    return null
  }
}

/** The parent pid of `pid` (from /proc/PID/stat), or null when it is gone. */
export function parentPid(pid) {
  const stat = readProc(pid, 'stat')?.toString()
  if (!stat) return null
  // "pid (comm) state ppid …": comm may hold spaces and parentheses; split after the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(rest[1])
}

/**
 * Live processes (zombies, exited and not yet reaped, are not live) other than this one:
 * [{pid, ppid, argv}]. `keep(argv, exe)` says which are wanted (`exe`: the /proc exe link, or
 * null); `env` (`NAME=value`) keeps those whose environment has it; `parent` only that pid's
 * children.
 */
export function liveProcesses({ keep, env = null, parent = null }) {
  const out = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const pid = Number(name)
    if (pid === process.pid) continue
    const argv = (readProc(pid, 'cmdline')?.toString() ?? '').split('\0').filter(Boolean)
    if (argv.length === 0) continue
    let exe = null
    try {
      exe = readlinkSync(`/proc/${pid}/exe`)
    } catch {
      /* gone, or not ours */
    }
    if (!keep(argv, exe)) continue
    const state = readProc(pid, 'stat')?.toString()
    if (state && / Z /.test(state.slice(state.lastIndexOf(')')))) continue
    const ppid = parentPid(pid)
    if (parent !== null && ppid !== parent) continue
    if (env !== null && !(readProc(pid, 'environ')?.toString().split('\0') ?? []).includes(env)) continue
    out.push({ pid, ppid, argv })
  }
  return out
}

/** Waits until `list()` is empty (a killed process takes a moment to go); what is left then. */
export async function waitNone(list, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const left = list()
    if (left.length === 0 || Date.now() > until) return left
    await new Promise((r) => setTimeout(r, 100))
  }
}
