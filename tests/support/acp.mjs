// The real `claude-code-acp` (ACP over stdio, the pinned native Claude Code behind it) against
// the fake Anthropic Messages model, for browser tests of a `--agent acp` host:
//
//   const acp = await startAcpFixture()             // fake model + HOME + workspace
//   const host = await startHost({ db, staticDir, ...acp.hostOptions })
//   assert.deepEqual(acpProcesses({ home: acp.home }), [])   // after killing the host
//   await acp.close()
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, cleanup, tempDir } from './host.mjs'
import { liveProcesses, waitNone } from './procs.mjs'
import { startFakeMessages } from '../fake-models/anthropic-messages.mjs'

/** The pinned ACP agent and the native claude it is pointed at (scripts/bootstrap.sh). */
export const ACP_AGENT = join(ROOT, 'agents', 'node_modules', '.bin', 'claude-code-acp')
export const CLAUDE_BIN = join(ROOT, 'agents', 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude')

/**
 * Starts the fake model and makes a temp HOME (claude keeps its sessions there: the same HOME
 * across a host restart is what `session/load` reads) and workspace.
 * Returns { fake, home, workspace, dir, env, hostOptions, close() }: `hostOptions` = { extra,
 * env, cwd: workspace } for startHost (`extra` ends with `-- <agent>`: spread nothing after it).
 */
export async function startAcpFixture() {
  for (const bin of [ACP_AGENT, CLAUDE_BIN]) {
    if (!existsSync(bin)) throw new Error(`${bin} not found (run scripts/bootstrap.sh, or npm ci --prefix agents)`)
  }
  const fake = await startFakeMessages()
  const dir = tempDir('agent-session-e2e-acp-')
  const home = join(dir, 'home')
  const workspace = join(dir, 'workspace')
  mkdirSync(home, { recursive: true })
  mkdirSync(workspace, { recursive: true })
  const env = {
    HOME: home,
    ANTHROPIC_API_KEY: 'fake-key-not-secret',
    ANTHROPIC_BASE_URL: fake.url,
    CLAUDE_CODE_EXECUTABLE: CLAUDE_BIN,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    // Anything but 1 makes the SDK pass a flag the CLI refuses as root.
    IS_SANDBOX: '1',
  }
  const extra = ['--agent', 'acp', '--', ACP_AGENT]
  return {
    fake,
    home,
    workspace,
    dir,
    env,
    hostOptions: { extra, env, cwd: workspace },
    async close() {
      await fake.close()
      cleanup(dir)
    },
  }
}

/**
 * Live processes whose environment has HOME=`home` (the agent and the claude it starts), the
 * host itself left out: [{pid, ppid, argv}]. { parent } keeps only that pid's children.
 */
export function acpProcesses({ home, parent = null }) {
  const keep = (argv) => !argv.some((a) => a.endsWith('agent-session-host'))
  return liveProcesses({ keep, env: `HOME=${home}`, parent })
}

/** Waits until `acpProcesses(options)` is empty (a killed agent's claude takes a moment). */
export function waitNoAcp(options, timeoutMs = 10_000) {
  return waitNone(() => acpProcesses(options), timeoutMs)
}
