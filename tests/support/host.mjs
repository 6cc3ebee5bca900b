// Starts and stops the reference host binary for browser tests. The host is always killed by
// its PID (never by name), also when a test fails.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))

export function hostBinary() {
  const env = process.env.AGENT_SESSION_HOST_BIN
  if (env) return resolve(ROOT, env)
  const targetDir = process.env.CARGO_TARGET_DIR ? resolve(ROOT, process.env.CARGO_TARGET_DIR) : join(ROOT, 'target')
  return join(targetDir, 'debug', 'agent-session-host')
}

export function tempDir(prefix = 'agent-session-e2e-') {
  return mkdtempSync(join(tmpdir(), prefix))
}

const live = new Set()
function killAll() {
  for (const h of live) {
    try {
      process.kill(h.pid, 'SIGKILL')
    } catch {
      /* already gone */
    }
  }
}
process.on('exit', killAll)
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll()
    process.exit(130)
  })
}

/**
 * Starts the host; resolves once its first stdout line (`listening on http://ADDR:PORT`) is read.
 * options: { listen = '127.0.0.1:0', db, staticDir, chunkDelayMs = 20, faults = true, extra = [],
 *   env = {}, cwd = ROOT }: `env` is merged over process.env (e.g. CODEX_HOME for `--agent codex`);
 *   `cwd` is the host's working directory (the default cwd of the sessions it creates).
 */
export async function startHost(options = {}) {
  const bin = hostBinary()
  if (!existsSync(bin)) throw new Error(`host binary not found at ${bin} (cargo build -p agent-session-host, or set AGENT_SESSION_HOST_BIN)`)
  const args = ['--listen', options.listen ?? '127.0.0.1:0', '--db', options.db, '--chunk-delay-ms', String(options.chunkDelayMs ?? 20)]
  if (options.staticDir) args.push('--static', options.staticDir)
  if (options.faults !== false) args.push('--faults')
  args.push(...(options.extra ?? []))
  const env = options.env ? { ...process.env, ...options.env } : process.env
  const child = spawn(bin, args, { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const handle = { pid: child.pid, child, url: null, stderr: '' }
  live.add(handle)
  child.stderr.on('data', (d) => {
    handle.stderr += d
    if (handle.stderr.length > 20000) handle.stderr = handle.stderr.slice(-10000)
  })
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })))
  handle.exited = exited
  exited.then(() => live.delete(handle))
  handle.url = await new Promise((res, rej) => {
    let buf = ''
    const timer = setTimeout(() => rej(new Error(`host did not start in 20s: ${handle.stderr}`)), 20000)
    child.stdout.on('data', (d) => {
      buf += d
      const m = /^listening on (http:\/\/\S+)/m.exec(buf)
      if (m) {
        clearTimeout(timer)
        res(m[1])
      }
    })
    exited.then(({ code, signal }) => {
      clearTimeout(timer)
      rej(new Error(`host exited early (code ${code}, signal ${signal}): ${handle.stderr}`))
    })
  })
  child.stdout.resume()
  return handle
}

/** kill -9 by PID and wait for the exit. */
export async function killHost(handle, signal = 'SIGKILL') {
  if (!handle || !live.has(handle)) return
  try {
    process.kill(handle.pid, signal)
  } catch {
    /* gone */
  }
  await handle.exited
}

/** Restarts on the same address (retries while the port is still held). */
export async function startHostOn(url, options) {
  const listen = url.replace(/^http:\/\//, '')
  let last
  for (let i = 0; i < 40; i++) {
    try {
      return await startHost({ ...options, listen })
    } catch (e) {
      last = e
      await new Promise((r) => setTimeout(r, 250))
    }
  }
  throw last
}

export async function admin(url, command) {
  const r = await fetch(`${url}/admin/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(command),
  })
  if (!r.ok) throw new Error(`admin ${JSON.stringify(command)}: HTTP ${r.status} ${await r.text()}`)
  return r.json()
}

export function cleanup(dir) {
  try {
    rmSync(dir, { recursive: true, force: true })
  } catch {
    /* ignore */
  }
}
