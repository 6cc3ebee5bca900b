// Where the built pages are, for the hosts the tests and benchmarks start with `--static`:
// the demo (www/, its own Vite build into www/dist) and the harness pages (tests/pages/:
// bench.html, bench-memory.html, lifetimes.html, cache.html, built into target/pages). Both
// are built by scripts/e2e-prepare.mjs when stale.
import { cpSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './host.mjs'

export const DEMO_DIST = join(ROOT, 'www', 'dist')
export const PAGES_DIST = join(ROOT, 'target', 'pages')

/**
 * One folder (`dir`/static) holding both builds, for a host that serves the demo and a
 * harness page on the same origin (the host serves one static folder). Vite names every
 * asset after its content, so a name both builds hold (the package's .wasm) is one file.
 */
export function demoAndPages(dir) {
  for (const d of [DEMO_DIST, PAGES_DIST]) {
    if (!existsSync(d)) throw new Error(`${d} missing: run scripts/e2e.mjs (scripts/e2e-prepare.mjs builds it)`)
  }
  const out = join(dir, 'static')
  cpSync(DEMO_DIST, out, { recursive: true })
  cpSync(PAGES_DIST, out, { recursive: true, force: false })
  return out
}
