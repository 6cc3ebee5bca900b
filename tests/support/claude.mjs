// The real Claude Code (the pinned native binary under agents/) against the fake Anthropic
// Messages model, for browser tests of a `--agent claude` host:
//
//   const claude = await startClaudeFixture()       // fake model + HOME + workspace
//   const host = await startHost({ db, staticDir, ...claude.hostOptions })
//   ... sessions created without a cwd (the demo's) work in claude.workspace ...
//   assert.deepEqual(claudeProcesses({ home: claude.home }), [])   // after killing the host
//   await claude.close()
import { existsSync, mkdirSync } from 'node:fs'
import { liveProcesses, waitNone } from './procs.mjs'
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

/**
 * Live processes of the pinned claude binary: [{pid, ppid, argv}]. options: { home } keeps only
 * those whose environment has that HOME (other runs on the machine are left out); { parent } only
 * the children of that pid.
 */
export function claudeProcesses({ home = null, parent = null } = {}) {
  const keep = (argv, exe) => argv[0] === CLAUDE_BIN || exe === CLAUDE_BIN
  return liveProcesses({ keep, env: home === null ? null : `HOME=${home}`, parent })
}

/** Waits until `claudeProcesses(options)` is empty (a killed child takes a moment to go). */
export function waitNoClaude(options = {}, timeoutMs = 10_000) {
  return waitNone(() => claudeProcesses(options), timeoutMs)
}
