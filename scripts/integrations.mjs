#!/usr/bin/env node
// Integrations layer: the packed tarball in a fresh app per toolchain, each checked against
// the reference host. Apps are copied from tests/integrations/<name>/ (exact versions, their
// lockfiles) into target/integrations/apps/<name>/; their dependencies are installed once
// (again only when package.json or the lockfile changed; the npm cache is reused), the
// tarball on every run. The React apps run the README's first code block itself, extracted
// from README.md, plus tests/integrations/shared/harness.tsx.
//
// Browser checks (headless system Chromium): connection open, a session created, a prompt
// sent, the streamed reply on screen, and no page error, console error or failed request.
// Prints one line per toolchain and the layer's total time; exits 1 if any failed.
// Args: toolchain names to run only those. Env: INTEGRATIONS_KEEP=1 leaves servers' logs.
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { launch } from '../tests/support/browser.mjs'
import { ROOT, startHost, tempDir } from '../tests/support/host.mjs'
import { prepare } from './e2e-prepare.mjs'

const started = Date.now()
const T = join(ROOT, 'tests', 'integrations')
const OUT = join(ROOT, 'target', 'integrations')
const APPS = join(OUT, 'apps')
const SITE = join(OUT, 'site')
const only = process.argv.slice(2)
const env = { ...process.env, npm_config_update_notifier: 'false', NEXT_TELEMETRY_DISABLED: '1' }
const children = new Set()
process.on('exit', () => {
  for (const c of children) killGroup(c)
})

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    /* gone */
  }
}

function sh(cmd, args, cwd, extraEnv = {}) {
  try {
    return execFileSync(cmd, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 })
  } catch (e) {
    const out = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n')
    throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}:\n${out}`)
  }
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer()
    s.once('error', rej)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => res(port))
    })
  })
}

// ---- the tarball -------------------------------------------------------------------------

function pack() {
  mkdirSync(OUT, { recursive: true })
  // prepack builds pkg/ when it is missing or stale (scripts/prepack.sh).
  const info = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', OUT], ROOT))[0]
  const tarball = join(OUT, 'agent-session.tgz')
  renameSync(join(OUT, info.filename), tarball)
  const files = info.files.map((f) => f.path)
  if (!files.includes('pkg/agent_session_bg.wasm')) throw new Error(`the tarball lacks its .wasm: ${files.join(', ')}`)
  return tarball
}

// ---- apps --------------------------------------------------------------------------------

/** The README's first code block, its host URL replaced, with the harness appended. */
function readmeModule(hostUrl) {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const m = /```tsx\n([\s\S]*?)```/.exec(readme)
  if (!m || !m[1].includes("'http://127.0.0.1:7878'")) throw new Error("README.md's first tsx block (with baseUrl 'http://127.0.0.1:7878') not found")
  const harness = readFileSync(join(T, 'shared', 'harness.tsx'), 'utf8')
  return m[1].replace("'http://127.0.0.1:7878'", JSON.stringify(hostUrl)) + '\n' + harness
}

/** Copies the template over the app dir, installs its dependencies if they changed, then the tarball. */
function setup(name, tarball) {
  const app = join(APPS, name)
  mkdirSync(app, { recursive: true })
  cpSync(join(T, name), app, { recursive: true })
  const lock = join(T, name, 'package-lock.json')
  const stamp = createHash('sha256')
    .update(readFileSync(join(T, name, 'package.json')))
    .update(existsSync(lock) ? readFileSync(lock) : '')
    .digest('hex')
  const stampFile = join(app, 'node_modules', '.integrations-stamp')
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
    // `npm install` with the committed lockfile, not `npm ci`: npm 11 leaves some optional
    // platform packages out of lockfiles it writes, and `npm ci` then refuses them.
    sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], app)
    mkdirSync(join(app, 'node_modules'), { recursive: true })
    writeFileSync(stampFile, stamp)
  }
  sh('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], app)
  return app
}

function sub(name) {
  const dir = join(SITE, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  return dir
}

function vanillaPage(dir, script, importMap = '') {
  const html = readFileSync(join(T, 'shared', 'vanilla.html'), 'utf8').replace('SCRIPT', script).replace('<!-- IMPORTMAP -->', importMap)
  writeFileSync(join(dir, 'index.html'), html)
}

// ---- the browser check -------------------------------------------------------------------

let browser = null
async function browserCheck(url) {
  browser ??= await launch()
  const page = await browser.newPage()
  const problems = []
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()} at ${m.location()?.url ?? '?'}`)
  })
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`)
  })
  page.on('requestfailed', (r) => {
    // Streams and calls the client aborts itself (e.g. on close) are not failures of the page.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`)
  })
  const t0 = Date.now()
  try {
    await page.goto(url)
    await page.locator('#conn', { hasText: /^open$/ }).waitFor({ timeout: 15000 })
    const opened = Date.now() - t0
    await page.locator('#create').click()
    await page.getByRole('button', { name: 'send', exact: true }).click({ timeout: 15000 })
    await page.locator('.node.assistant', { hasText: 'You asked: "hi"' }).waitFor({ timeout: 15000 })
    await page.waitForTimeout(100)
    if (problems.length) throw new Error(problems.join('\n'))
    return `open in ${opened} ms, reply on screen`
  } catch (e) {
    const body = await page.locator('body').innerText().catch(() => '')
    throw new Error(`${e.message.split('\n')[0]}\n${problems.join('\n')}\npage: ${body.slice(0, 300)}`)
  } finally {
    await page.close()
  }
}

// ---- toolchains --------------------------------------------------------------------------

function viteApp(name, ctx, readme) {
  const app = setup(name, ctx.tarball)
  if (readme) writeFileSync(join(app, 'src', 'readme.tsx'), readmeModule(ctx.host.url))
  else for (const f of readdirSync(join(app, 'src'))) {
    const p = join(app, 'src', f)
    writeFileSync(p, readFileSync(p, 'utf8').replace("'http://127.0.0.1:7878'", JSON.stringify(ctx.host.url)))
  }
  if (readme) sh('npx', ['--no-install', 'tsc', '--noEmit', '-p', '.'], app)
  sh('npx', ['--no-install', 'vite', 'build', '--logLevel', 'error', '--outDir', sub(name), '--emptyOutDir'], app)
  return browserCheck(`${ctx.host.url}/${name}/`)
}

/** Starts `cmd` in `app` (its own process group) and waits until `url` answers. */
async function serve(app, args, url) {
  const child = spawn('npx', ['--no-install', ...args], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  children.add(child)
  const server = { child, log: '', html: null, stop: () => (killGroup(child), children.delete(child)) }
  child.stdout.on('data', (d) => (server.log += d))
  child.stderr.on('data', (d) => (server.log += d))
  for (let i = 0; i < 300 && server.html === null; i++) {
    server.html = await fetch(url).then((r) => (r.ok ? r.text() : null), () => null)
    if (server.html === null) await new Promise((r) => setTimeout(r, 100))
  }
  if (server.html === null) {
    server.stop()
    throw new Error(`${args.join(' ')} did not answer at ${url}: ${server.log}`)
  }
  return server
}

/** `vite` dev (dep pre-bundling included) of a React app, in the browser. */
async function viteDev(name, ctx) {
  const app = setup(name, ctx.tarball)
  writeFileSync(join(app, 'src', 'readme.tsx'), readmeModule(ctx.host.url))
  rmSync(join(app, 'node_modules', '.vite'), { recursive: true, force: true })
  const url = `http://127.0.0.1:${ctx.devPort}/`
  const server = await serve(app, ['vite', '--host', '127.0.0.1', '--port', String(ctx.devPort), '--strictPort'], url)
  try {
    return `vite dev: ${await browserCheck(url)}`
  } finally {
    server.stop()
  }
}

/** Next.js App Router: `next build` (Turbopack, or webpack with `--webpack`) + `next start`. */
async function nextApp(ctx, webpack) {
  const app = setup('next', ctx.tarball)
  writeFileSync(join(app, 'app', 'readme.tsx'), readmeModule(ctx.host.url))
  rmSync(join(app, '.next'), { recursive: true, force: true })
  sh('npx', ['--no-install', 'next', 'build', ...(webpack ? ['--webpack'] : [])], app)
  const child = spawn('npx', ['--no-install', 'next', 'start', '-H', '127.0.0.1', '-p', String(ctx.nextPort)], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  children.add(child)
  let log = ''
  child.stdout.on('data', (d) => (log += d))
  child.stderr.on('data', (d) => (log += d))
  try {
    const url = `http://127.0.0.1:${ctx.nextPort}/`
    let html = null
    for (let i = 0; i < 150 && html === null; i++) {
      html = await fetch(url).then((r) => r.text(), () => null)
      if (html === null) await new Promise((r) => setTimeout(r, 100))
    }
    if (html === null) throw new Error(`next start did not answer: ${log}`)
    // The server rendered the README's component with an inert client: its first frame.
    if (!html.includes('<p id="conn">connecting</p>')) throw new Error(`the server-rendered page lacks the connecting frame: ${html.slice(0, 400)}`)
    const r = await browserCheck(url)
    if (/error/i.test(log)) throw new Error(`next start logged an error: ${log}`)
    return `next build${webpack ? ' --webpack' : ''} + next start, prerendered 'connecting', hydrated: ${r}`
  } finally {
    killGroup(child)
    children.delete(child)
  }
}

const toolchains = {
  next: (ctx) => nextApp(ctx, false),
  'next-webpack': (ctx) => nextApp(ctx, true),
  vite8: (ctx) => viteApp('vite8', ctx, true),
  vite6: (ctx) => viteApp('vite6', ctx, true),
  'vite8-dev': (ctx) => viteDev('vite8', ctx),
  'vite6-dev': (ctx) => viteDev('vite6', ctx),
  async webpack5(ctx) {
    const app = setup('webpack5', ctx.tarball)
    mkdirSync(join(app, 'src'), { recursive: true })
    writeFileSync(join(app, 'src', 'index.js'), readFileSync(join(T, 'shared', 'vanilla.js'), 'utf8').replace("'http://127.0.0.1:7878'", JSON.stringify(ctx.host.url)))
    const dir = sub('webpack5')
    // No webpack config: the defaults (entry src/index.js), output into the served dir.
    sh('npx', ['--no-install', 'webpack', '--mode', 'production', '--output-path', dir], app)
    vanillaPage(dir, './main.js')
    return browserCheck(`${ctx.host.url}/webpack5/`)
  },
  async 'webpack5-react'(ctx) {
    const app = setup('webpack5-react', ctx.tarball)
    writeFileSync(join(app, 'src', 'readme.tsx'), readmeModule(ctx.host.url))
    sh('npx', ['--no-install', 'tsc', '--noEmit', '-p', '.'], app)
    const dir = sub('webpack5-react')
    sh('npx', ['--no-install', 'webpack', '--mode', 'production', '--output-path', dir], app)
    cpSync(join(app, 'index.html'), join(dir, 'index.html'))
    return `README block (ts-loader): ${await browserCheck(`${ctx.host.url}/webpack5-react/`)}`
  },
  async esm(ctx) {
    const dir = sub('esm')
    // The package as published, served as is; an import map names it.
    mkdirSync(join(dir, 'agent-session'))
    sh('tar', ['-xzf', ctx.tarball, '-C', join(dir, 'agent-session'), '--strip-components=1'], dir)
    writeFileSync(join(dir, 'app.js'), readFileSync(join(T, 'shared', 'vanilla.js'), 'utf8').replace("'http://127.0.0.1:7878'", JSON.stringify(ctx.host.url)))
    vanillaPage(dir, './app.js', '<script type="importmap">{ "imports": { "agent-session": "./agent-session/index.js" } }</script>')
    return browserCheck(`${ctx.host.url}/esm/`)
  },
  vue: (ctx) => viteApp('vue', ctx, false),
  svelte: (ctx) => viteApp('svelte', ctx, false),
  async vitest(ctx) {
    const app = setup('vitest', ctx.tarball)
    writeFileSync(join(app, 'src', 'readme.tsx'), readmeModule(ctx.host.url))
    const out = sh('npx', ['--no-install', 'vitest', 'run', '--reporter=dot'], app)
    const m = /Tests\s+(\d+ passed[^\n]*)/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''))
    return `jsdom + happy-dom component tests: ${m ? m[1].trim() : 'passed'}`
  },
  async node(ctx) {
    const app = setup('node', ctx.tarball)
    const plain = sh(process.execPath, ['check.mjs', ctx.host.url], app).trim().split('\n').pop()
    // Node 22's global WebSocket is undici's, which Node 20 exposes behind this flag.
    const ws = sh(process.execPath, ['--experimental-websocket', 'check.mjs', ctx.host.url], app).trim().split('\n').pop()
    return `${plain}; ${ws}`
  },
  async bindings(ctx) {
    const app = setup('types', ctx.tarball)
    return sh(process.execPath, ['bindings.mjs'], app).trim().split('\n').pop()
  },
  async types(ctx) {
    const app = setup('types', ctx.tarball)
    for (const r of ['bundler', 'node16', 'nodenext']) sh('npx', ['--no-install', 'tsc', '-p', `tsconfig.${r}.json`], app)
    return 'tsc --noEmit strict, skipLibCheck off, lib ES2022+DOM: bundler, node16, nodenext over agent-session, /react, /vue, /svelte'
  },
}

// ---- run ---------------------------------------------------------------------------------

const names = only.length ? only : Object.keys(toolchains)
for (const n of names) if (!toolchains[n]) throw new Error(`unknown toolchain ${n} (${Object.keys(toolchains).join(', ')})`)
let failed = 0
let host = null
const lines = []
const db = tempDir('agent-session-integrations-')
try {
  // playwright-core (www/node_modules) and the host binary, as the e2e tests have them.
  process.env.E2E_SKIP_WWW_BUILD ??= '1'
  prepare()
  const tarball = pack()
  const nextPort = await freePort()
  const devPort = await freePort()
  mkdirSync(SITE, { recursive: true })
  host = await startHost({
    db: join(db, 'host.sqlite'),
    staticDir: SITE,
    chunkDelayMs: 5,
    faults: false,
    extra: ['--allow-origin', `http://127.0.0.1:${nextPort}`, '--allow-origin', `http://127.0.0.1:${devPort}`, '--allow-origin', 'http://localhost:3000'],
  })
  const ctx = { tarball, host, nextPort, devPort }
  for (const name of names) {
    const t0 = Date.now()
    let line
    try {
      const what = await toolchains[name](ctx)
      line = `ok      ${name} (${((Date.now() - t0) / 1000).toFixed(1)}s): ${what}`
    } catch (e) {
      failed++
      line = `FAILED  ${name} (${((Date.now() - t0) / 1000).toFixed(1)}s): ${e.message}`
    }
    lines.push(line)
    console.log(`integrations: ${line}`)
  }
} catch (e) {
  failed++
  console.log(`integrations: FAILED before the toolchains: ${e.message}`)
} finally {
  await browser?.close()
  if (host) process.kill(host.pid, 'SIGKILL')
  rmSync(db, { recursive: true, force: true })
}
const secs = ((Date.now() - started) / 1000).toFixed(1)
console.log(`integrations: ${failed ? `FAILED (${failed} of ${names.length})` : `ok (${names.length} toolchains)`} in ${secs}s`)
process.exit(failed ? 1 : 0)
