// Builds what the browser tests and the benchmarks need, skipping what is present:
//   www/node_modules and tests/pages/node_modules (npm ci, again when the lock changed), pkg/
//   (npm run build), the demo's www/dist and the harness pages' target/pages (vite build of
//   each when older than its sources or the package; always checked unless
//   E2E_SKIP_WWW_BUILD=1 and the build is there), the host binary (cargo build -p agent-session-host).
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, hostBinary } from '../tests/support/host.mjs'
import { DEMO_DIST, PAGES_DIST } from '../tests/support/pages.mjs'

function run(cmd, args, cwd = ROOT) {
  console.log(`[e2e-prepare] ${cmd} ${args.join(' ')}${cwd !== ROOT ? `  (in ${cwd})` : ''}`)
  execFileSync(cmd, args, { cwd, stdio: 'inherit', env: process.env })
}

function newest(dir) {
  let t = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}

/** `npm ci` in `app`, again whenever its lock file changed since the last install (a
 *  dependency added later, e.g. the a11y checker, must not be missing from an older install). */
function install(app) {
  const lock = join(app, 'package-lock.json')
  const stamp = join(app, 'node_modules', '.e2e-lock-hash')
  const hash = existsSync(lock) ? createHash('sha256').update(readFileSync(lock)).digest('hex') : 'none'
  const installed = existsSync(join(app, 'node_modules', '.package-lock.json')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash
  if (!installed) {
    run('npm', [existsSync(lock) ? 'ci' : 'install', '--no-audit', '--no-fund', '--loglevel=error'], app)
    writeFileSync(stamp, hash)
  }
}

/** `npm run build` in `app` when `dist/<first>` is older than the app's sources (src/, its
 *  .html pages, its Vite config) or the package. */
function build(app, dist, first) {
  const built = join(dist, first)
  if (process.env.E2E_SKIP_WWW_BUILD === '1' && existsSync(built)) return
  const sources = readdirSync(app).filter((f) => f.endsWith('.html') || f.startsWith('vite.config.'))
  const stale =
    !existsSync(built) ||
    statSync(built).mtimeMs < Math.max(newest(join(app, 'src')), newest(join(ROOT, 'pkg')), ...sources.map((f) => statSync(join(app, f)).mtimeMs))
  if (stale || process.env.E2E_FORCE_WWW_BUILD === '1') run('npm', ['run', 'build'], app)
}

export function prepare() {
  const www = join(ROOT, 'www')
  const pages = join(ROOT, 'tests', 'pages')
  install(www)
  install(pages)
  if (!existsSync(join(ROOT, 'pkg', 'agent_session_bg.wasm'))) run('npm', ['run', 'build'])
  build(www, DEMO_DIST, 'index.html')
  build(pages, PAGES_DIST, 'bench.html')
  // Built unless a binary is handed in: cargo's own check keeps a stale one from being tested
  // (a no-op when it is fresh).
  if (!process.env.AGENT_SESSION_HOST_BIN || !existsSync(hostBinary())) run('cargo', ['build', '-p', 'agent-session-host'])
}

if (import.meta.url === `file://${process.argv[1]}`) prepare()
