// The real `codex app-server` (the pinned install under agents/) against the fake Responses
// model, for browser tests of a `--agent codex` host:
//
//   const codex = await startCodexFixture()          // fake model + CODEX_HOME + workspace
//   const host = await startHost({ db, staticDir, ...codex.hostOptions })
//   ... host.createSession({ cwd: codex.workspace }) ...
//   assert.deepEqual(codexProcesses(), [])           // after killing the host
//   await codex.close()
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync } from 'node:fs'
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

function readProc(pid, file) {
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
 * Live `codex app-server` processes of the pinned binary: [{pid, ppid, argv}]. Zombies (already
 * exited, not yet reaped) are not live. options: { codexHome } keeps only the ones whose
 * environment has that CODEX_HOME (other engineers' runs on the machine are left out);
 * { parent } only the children of that pid.
 */
export function codexProcesses({ codexHome = null, parent = null } = {}) {
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
    if (argv[0] !== CODEX_BIN && exe !== CODEX_BIN) continue
    if (!argv.includes('app-server')) continue
    const state = readProc(pid, 'stat')?.toString()
    if (state && / Z /.test(state.slice(state.lastIndexOf(')')))) continue
    const ppid = parentPid(pid)
    if (parent !== null && ppid !== parent) continue
    if (codexHome !== null) {
      const environ = readProc(pid, 'environ')?.toString().split('\0') ?? []
      if (!environ.includes(`CODEX_HOME=${codexHome}`)) continue
    }
    out.push({ pid, ppid, argv })
  }
  return out
}

/** Waits until `codexProcesses(options)` is empty (a killed child takes a moment to go). */
export async function waitNoCodex(options = {}, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const left = codexProcesses(options)
    if (left.length === 0 || Date.now() > until) return left
    await new Promise((r) => setTimeout(r, 100))
  }
}
