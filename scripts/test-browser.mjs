#!/usr/bin/env node
// Browser tests: builds the reference host, starts it (plus a tiny control endpoint that can
// kill -9 / restart it on the same port and database), runs the wasm-bindgen-test suite in
// headless Chromium against it, and always kills the host by PID at the end.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const root = new URL('..', import.meta.url).pathname
const targetDir = process.env.CARGO_TARGET_DIR || join(root, 'target')
const runnerPort = Number(process.env.AGENT_SESSION_RUNNER_PORT || 18473)
const runnerOrigin = `http://127.0.0.1:${runnerPort}`
const log = (m) => console.log(`[test-browser] ${m}`)

const build = spawnSync('cargo', ['build', '-p', 'agent-session-host'], { cwd: root, stdio: 'inherit' })
if (build.status !== 0) process.exit(build.status ?? 1)
const bin = join(targetDir, 'debug', 'agent-session-host')
const dir = mkdtempSync(join(tmpdir(), 'agent-session-browser-'))
const db = join(dir, 'host.sqlite')

let host = null
let hostUrl = null

function startHost(listen) {
  return new Promise((resolve, reject) => {
    const args = ['--listen', listen, '--faults', '--chunk-delay-ms', '5', '--allow-origin', runnerOrigin, '--db', db]
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    host = child
    const rl = createInterface({ input: child.stdout })
    const timer = setTimeout(() => reject(new Error('host did not start')), 30000)
    rl.once('line', (line) => {
      clearTimeout(timer)
      const m = /listening on (http:\/\/\S+)/.exec(line)
      if (!m) return reject(new Error(`unexpected first host line: ${line}`))
      child.stdout.resume()
      resolve(m[1])
    })
    child.once('exit', (code, sig) => { if (host === child) host = null; clearTimeout(timer); reject(new Error(`host exited (${code ?? sig})`)) })
  })
}

function killHost() {
  if (host && host.exitCode === null) {
    try { process.kill(host.pid, 'SIGKILL') } catch {}
  }
  host = null
}

process.on('exit', () => { killHost(); rmSync(dir, { recursive: true, force: true }) })
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130))

// The control endpoint: POST /kill (kill -9), /start (same port, same db), /restart.
const control = createServer(async (req, res) => {
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'content-type',
  }
  if (req.method === 'OPTIONS') { res.writeHead(204, cors); return res.end() }
  try {
    const port = new URL(hostUrl).port
    if (req.url === '/kill' || req.url === '/restart') killHost()
    if (req.url === '/start' || req.url === '/restart') {
      for (let i = 0; ; i++) {
        try { await startHost(`127.0.0.1:${port}`); break } catch (e) { if (i > 50) throw e; await new Promise((r) => setTimeout(r, 100)) }
      }
    }
    res.writeHead(200, { ...cors, 'content-type': 'application/json' })
    res.end(JSON.stringify({ ok: true, url: hostUrl }))
  } catch (e) {
    res.writeHead(500, { ...cors, 'content-type': 'text/plain' })
    res.end(String(e))
  }
})

hostUrl = await startHost('127.0.0.1:0')

// A second host that requires a bearer token (the token test proves the header is sent and
// that a client without it is refused).
const TOKEN = 'browser-test-token'
const tokenDir = mkdtempSync(join(tmpdir(), 'agent-session-token-'))
const tokenHost = spawn(bin, ['--listen', '127.0.0.1:0', '--token', TOKEN, '--allow-origin', runnerOrigin, '--db', join(tokenDir, 'host.sqlite')], { stdio: ['ignore', 'pipe', 'inherit'] })
const tokenHostUrl = await new Promise((resolve, reject) => {
  const rl = createInterface({ input: tokenHost.stdout })
  rl.once('line', (line) => {
    const m = /listening on (http:\/\/\S+)/.exec(line)
    if (!m) return reject(new Error(`unexpected first token-host line: ${line}`))
    tokenHost.stdout.resume()
    resolve(m[1])
  })
  tokenHost.once('exit', (code, sig) => reject(new Error(`token host exited (${code ?? sig})`)))
})
process.on('exit', () => { try { process.kill(tokenHost.pid, 'SIGKILL') } catch {} rmSync(tokenDir, { recursive: true, force: true }) })
await new Promise((r) => control.listen(0, '127.0.0.1', r))
const controlUrl = `http://127.0.0.1:${control.address().port}`
log(`host ${hostUrl} (pid ${host.pid}), control ${controlUrl}, runner ${runnerOrigin}`)

const env = {
  ...process.env,
  AGENT_SESSION_HOST_URL: hostUrl,
  AGENT_SESSION_CONTROL_URL: controlUrl,
  AGENT_SESSION_TOKEN_HOST_URL: tokenHostUrl,
  AGENT_SESSION_TOKEN: TOKEN,
  WASM_BINDGEN_TEST_ADDRESS: `127.0.0.1:${runnerPort}`,
  WASM_BINDGEN_TEST_TIMEOUT: process.env.WASM_BINDGEN_TEST_TIMEOUT || '90',
  CHROMEDRIVER: process.env.CHROMEDRIVER || '/usr/bin/chromedriver',
  WASM_BINDGEN_TEST_WEBDRIVER_JSON: join(root, 'webdriver.json'),
}
const code = await new Promise((resolve) => {
  const t = spawn('cargo', ['test', '--target', 'wasm32-unknown-unknown', '--test', 'browser', ...process.argv.slice(2)], { cwd: root, env, stdio: 'inherit' })
  t.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)))
})
control.close()
killHost()
log(code === 0 ? 'browser tests: ok' : `browser tests: FAILED (exit ${code})`)
process.exit(code)
