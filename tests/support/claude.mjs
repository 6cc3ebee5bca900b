// The real Claude Code (the pinned native binary under agents/) against the fake Anthropic
// Messages model, for browser tests of a `--agent claude` host:
//
//   const claude = await startClaudeFixture()       // fake model + HOME + workspace
//   const host = await startHost({ db, staticDir, ...claude.hostOptions })
//   ... sessions created without a cwd (the demo's) work in claude.workspace ...
//   assert.deepEqual(claudeProcesses({ home: claude.home }), [])   // after killing the host
//   await claude.close()
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, cleanup, tempDir } from './host.mjs'
import { startFakeMessages } from '../fake-models/anthropic-messages.mjs'

/** The pinned Claude Code's native binary (scripts/bootstrap.sh installs it). */
export const CLAUDE_BIN = join(ROOT, 'agents', 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude')

/**
 * Starts the fake model and makes a temp HOME and workspace.
 * Returns { fake, home, workspace, dir, env, extra, hostOptions, close() }:
 *   `hostOptions` = { extra, env, cwd: workspace } for startHost (spread it next to db/staticDir);
 *   `extra` = ['--agent', 'claude', '--claude-bin', CLAUDE_BIN, …extra];
 *   `env` = a fresh HOME, the fake as ANTHROPIC_BASE_URL, a fake key, no telemetry or updates.
 */
export async function startClaudeFixture({ extra = [] } = {}) {
  if (!existsSync(CLAUDE_BIN)) throw new Error(`claude not found at ${CLAUDE_BIN} (run scripts/bootstrap.sh, or npm ci --prefix agents)`)
  const fake = await startFakeMessages()
  const dir = tempDir('agent-session-e2e-claude-')
  const home = join(dir, 'home')
  const workspace = join(dir, 'workspace')
  mkdirSync(home, { recursive: true })
  mkdirSync(workspace, { recursive: true })
  const env = {
    HOME: home,
    ANTHROPIC_API_KEY: 'fake-key-not-secret',
    ANTHROPIC_BASE_URL: fake.url,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
  }
  const args = ['--agent', 'claude', '--claude-bin', CLAUDE_BIN, ...extra]
  return {
    fake,
    home,
    workspace,
    dir,
    env,
    extra: args,
    hostOptions: { extra: args, env, cwd: workspace },
    async close() {
      await fake.close()
      cleanup(dir)
    },
  }
}

function readProc(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`)
  } catch {
    return null
  }
}

/** The parent pid of `pid` (from /proc/PID/stat), or null when it is gone. */
function parentPid(pid) {
  const stat = readProc(pid, 'stat')?.toString()
  if (!stat) return null
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(rest[1])
}

/**
 * Live processes of the pinned claude binary: [{pid, ppid, argv}] (zombies are not live).
 * options: { home } keeps only those whose environment has that HOME (other runs on the machine
 * are left out); { parent } only the children of that pid.
 */
export function claudeProcesses({ home = null, parent = null } = {}) {
  const out = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const pid = Number(name)
    const cmdline = readProc(pid, 'cmdline')
    if (!cmdline || cmdline.length === 0) continue
    const argv = cmdline.toString().split('\0').filter(Boolean)
    let exe = null
    try {
      exe = readlinkSync(`/proc/${pid}/exe`)
    } catch {
      /* gone, or not ours */
    }
    if (argv[0] !== CLAUDE_BIN && exe !== CLAUDE_BIN) continue
    const state = readProc(pid, 'stat')?.toString()
    if (state && / Z /.test(state.slice(state.lastIndexOf(')')))) continue
    const ppid = parentPid(pid)
    if (parent !== null && ppid !== parent) continue
    if (home !== null) {
      const environ = readProc(pid, 'environ')?.toString().split('\0') ?? []
      if (!environ.includes(`HOME=${home}`)) continue
    }
    out.push({ pid, ppid, argv })
  }
  return out
}

/** Waits until `claudeProcesses(options)` is empty (a killed child takes a moment to go). */
export async function waitNoClaude(options = {}, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const left = claudeProcesses(options)
    if (left.length === 0 || Date.now() > until) return left
    await new Promise((r) => setTimeout(r, 100))
  }
}
