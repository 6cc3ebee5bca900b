// The real `codex app-server` (the pinned install under agents/) against the fake Responses
// model, for browser tests of a `--agent codex` host:
//
//   const codex = await startCodexFixture()          // fake model + CODEX_HOME + workspace
//   const host = await startHost({ db, staticDir, ...codex.hostOptions })
//   ... host.createSession({ cwd: codex.workspace }) ...
//   assert.deepEqual(codexProcesses(), [])           // after killing the host
//   await codex.close()
import { existsSync, mkdirSync } from 'node:fs'
import { liveProcesses, waitNone } from './procs.mjs'
import { join } from 'node:path'
import { ROOT, cleanup, tempDir } from './host.mjs'
import { startFakeResponses } from '../fake-models/openai-responses.mjs'
import { CODEX_MODEL, FAKE_KEY_ENV, writeCodexHome } from '../fake-models/codex-home.mjs'

/** The pinned codex binary (scripts/bootstrap.sh installs it). */
export const CODEX_BIN = join(ROOT, 'agents', 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex')
export { CODEX_MODEL }

/**
 * Starts the fake model and writes a temp CODEX_HOME and workspace.
 * Returns { fake, home, workspace, dir, env, extra, hostOptions, close() }:
 *   `hostOptions` = { extra, env, cwd: workspace } for startHost (spread it next to db/staticDir):
 *     sessions created without a cwd (the demo's) work in the workspace;
 *   `extra` = ['--agent','codex','--codex-bin',CODEX_BIN,'--codex-approval-policy',policy, …];
 *   `env` = CODEX_HOME + the fake key.
 * options: { approvalPolicy = 'untrusted', extra = [], streamIdleTimeoutMs }
 */
export async function startCodexFixture({ approvalPolicy = 'untrusted', extra = [], streamIdleTimeoutMs = null } = {}) {
  if (!existsSync(CODEX_BIN)) throw new Error(`codex not found at ${CODEX_BIN} (run scripts/bootstrap.sh, or npm ci --prefix agents)`)
  const fake = await startFakeResponses()
  const dir = tempDir('agent-session-e2e-codex-')
  const home = join(dir, 'codex-home')
  const workspace = join(dir, 'workspace')
  mkdirSync(workspace, { recursive: true })
  writeCodexHome(home, fake.url, { streamIdleTimeoutMs })
  const env = { CODEX_HOME: home, [FAKE_KEY_ENV]: 'fake-key-not-secret' }
  const args = ['--agent', 'codex', '--codex-bin', CODEX_BIN, '--codex-approval-policy', approvalPolicy, ...extra]
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
 * Live `codex app-server` processes of the pinned binary: [{pid, ppid, argv}]. options:
 * { codexHome } keeps only the ones whose environment has that CODEX_HOME (other engineers' runs
 * on the machine are left out); { parent } only the children of that pid.
 */
export function codexProcesses({ codexHome = null, parent = null } = {}) {
  const keep = (argv, exe) => (argv[0] === CODEX_BIN || exe === CODEX_BIN) && argv.includes('app-server')
  return liveProcesses({ keep, env: codexHome === null ? null : `CODEX_HOME=${codexHome}`, parent })
}

/** Waits until `codexProcesses(options)` is empty (a killed child takes a moment to go). */
export function waitNoCodex(options = {}, timeoutMs = 10_000) {
  return waitNone(() => codexProcesses(options), timeoutMs)
}
