#!/usr/bin/env node
// Browser tests: builds the reference host, starts it (plus a tiny control endpoint that can
// kill -9 / restart it on the same port and database), runs the wasm-bindgen-test suite in
// headless Chromium against it once per downlink carrier (AGENT_SESSION_TRANSPORT, read by the
// tests at compile time; AGENT_SESSION_TRANSPORTS=websocket runs one pass only), and always
// kills the hosts by PID at the end.
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

// A side host with its own database, killed by PID on exit; resolves to its URL.
async function sideHost(name, extra) {
  const sideDir = mkdtempSync(join(tmpdir(), `agent-session-${name}-`))
  const child = spawn(bin, ['--listen', '127.0.0.1:0', '--allow-origin', runnerOrigin, '--db', join(sideDir, 'host.sqlite'), ...extra], { stdio: ['ignore', 'pipe', 'inherit'] })
  process.on('exit', () => { try { process.kill(child.pid, 'SIGKILL') } catch {} rmSync(sideDir, { recursive: true, force: true }) })
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout })
    rl.once('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line)
      if (!m) return reject(new Error(`unexpected first ${name} line: ${line}`))
      child.stdout.resume()
      resolve(m[1])
    })
    child.once('exit', (code, sig) => reject(new Error(`${name} exited (${code ?? sig})`)))
  })
}

// A host that requires a bearer token (the token test proves the header and the upgrade
// ticket are sent and that a client without it is refused), and one host per carrier (auto
// must pick WebSocket on a 2026-08-like host, 426 on GET, and SSE on a seed-like one).
const TOKEN = 'browser-test-token'
const tokenHostUrl = await sideHost('token-host', ['--token', TOKEN])
const wsOnlyUrl = await sideHost('ws-only-host', ['--downlinks', 'ws', '--faults'])
const sseOnlyUrl = await sideHost('sse-only-host', ['--downlinks', 'sse', '--faults'])
const expiredTicketUrl = await sideHost('expired-ticket-host', ['--token', TOKEN, '--ticket-ttl-ms', '0'])
// The 2026-08 generation (plan and title as projections, /plan commands, the 2026-08 event
// shapes, WebSocket downlinks only): the same scenario must pass against it and the seed host.
const upstreamUrl = await sideHost('upstream-wire-host', ['--wire', '2026-08', '--downlinks', 'ws', '--faults', '--chunk-delay-ms', '5'])
await new Promise((r) => control.listen(0, '127.0.0.1', r))
const controlUrl = `http://127.0.0.1:${control.address().port}`
log(`host ${hostUrl} (pid ${host.pid}), control ${controlUrl}, runner ${runnerOrigin}`)

const env = {
  ...process.env,
  AGENT_SESSION_HOST_URL: hostUrl,
  AGENT_SESSION_CONTROL_URL: controlUrl,
  AGENT_SESSION_TOKEN_HOST_URL: tokenHostUrl,
  AGENT_SESSION_TOKEN: TOKEN,
  AGENT_SESSION_WS_ONLY_HOST_URL: wsOnlyUrl,
  AGENT_SESSION_SSE_ONLY_HOST_URL: sseOnlyUrl,
  AGENT_SESSION_EXPIRED_TICKET_HOST_URL: expiredTicketUrl,
  AGENT_SESSION_UPSTREAM_HOST_URL: upstreamUrl,
  WASM_BINDGEN_TEST_ADDRESS: `127.0.0.1:${runnerPort}`,
  WASM_BINDGEN_TEST_TIMEOUT: process.env.WASM_BINDGEN_TEST_TIMEOUT || '90',
  CHROMEDRIVER: process.env.CHROMEDRIVER || '/usr/bin/chromedriver',
  WASM_BINDGEN_TEST_WEBDRIVER_JSON: join(root, 'webdriver.json'),
}
const transports = (process.env.AGENT_SESSION_TRANSPORTS || 'websocket,sse').split(',').filter(Boolean)
const results = []
for (const transport of transports) {
  log(`pass: transport ${transport}`)
  const code = await new Promise((resolve) => {
    const t = spawn('cargo', ['test', '--target', 'wasm32-unknown-unknown', '--test', 'browser', ...process.argv.slice(2)], { cwd: root, env: { ...env, AGENT_SESSION_TRANSPORT: transport }, stdio: 'inherit' })
    t.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)))
  })
  results.push([transport, code])
  if (code !== 0) break
}
control.close()
killHost()
const failed = results.find(([, c]) => c !== 0)
const summary = results.map(([t, c]) => `${t} ${c === 0 ? 'ok' : 'FAILED'}`).join(', ')
log(failed ? `browser tests: FAILED (${summary})` : `browser tests: ok (${summary})`)
process.exit(failed ? failed[1] : 0)
