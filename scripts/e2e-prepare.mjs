// Builds what the browser tests and the benchmark need, skipping what is present:
//   www/node_modules (npm ci), pkg/ (npm run build), www/dist (vite build, always unless
//   E2E_SKIP_WWW_BUILD=1), the host binary (cargo build -p agent-session-host).
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, hostBinary } from '../e2e/lib/host.mjs'

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

export function prepare() {
  const www = join(ROOT, 'www')
  // Installed again whenever the lock file changed since the last install (a dependency added
  // later, e.g. the a11y checker, must not be missing from an older install).
  const lock = join(www, 'package-lock.json')
  const stamp = join(www, 'node_modules', '.e2e-lock-hash')
  const hash = existsSync(lock) ? createHash('sha256').update(readFileSync(lock)).digest('hex') : 'none'
  const installed = existsSync(join(www, 'node_modules', '.package-lock.json')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash
  if (!installed) {
    run('npm', [existsSync(lock) ? 'ci' : 'install', '--no-audit', '--no-fund', '--loglevel=error'], www)
    writeFileSync(stamp, hash)
  }
  if (!existsSync(join(ROOT, 'pkg', 'agent_session_bg.wasm'))) run('npm', ['run', 'build'])
  const dist = join(www, 'dist', 'index.html')
  if (process.env.E2E_SKIP_WWW_BUILD !== '1' || !existsSync(dist)) {
    const stale =
      !existsSync(dist) ||
      statSync(dist).mtimeMs <
        Math.max(
          newest(join(www, 'src')),
          newest(join(ROOT, 'pkg')),
          // every page vite builds (index, bench, bench-memory, lifetimes, cache)
          ...readdirSync(www).filter((f) => f.endsWith('.html')).map((f) => statSync(join(www, f)).mtimeMs),
        )
    if (stale || process.env.E2E_FORCE_WWW_BUILD === '1') run('npm', ['run', 'build'], www)
  }
  if (!existsSync(hostBinary())) run('cargo', ['build', '-p', 'agent-session-host'])
}

if (import.meta.url === `file://${process.argv[1]}`) prepare()
