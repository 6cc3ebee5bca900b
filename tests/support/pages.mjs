// Where the built pages are, for the hosts the tests and benchmarks start with `--static`:
// the demo (www/, its own Vite build into www/dist) and the harness pages (tests/pages/:
// bench.html, bench-memory.html, lifetimes.html, cache.html, built into target/pages). Both
// are built by scripts/e2e-prepare.mjs when stale.
import { cpSync, existsSync, writeFileSync } from 'node:fs'
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

// The package's own modules as it ships them unbundled (the entry and what it loads on demand).
const MODULES = ['index.js', 'cache.js', 'share.js', 'workspaces.js', 'models.js', 'subagents.js', 'store.js']

/**
 * A folder (`dir`/www) serving the package as a browser imports it unbundled (`pkg/` and the
 * entry's modules) and one bare page `name` that imports the entry, initialises it and runs
 * `script` (a module body; `HostClient` is in scope). Returns the folder.
 */
export function barePage(dir, name, script) {
  const www = join(dir, 'www')
  cpSync(join(ROOT, 'pkg'), join(www, 'pkg'), { recursive: true })
  for (const f of MODULES) cpSync(join(ROOT, f), join(www, f))
  const page = `<!doctype html><meta charset="utf-8"><title>${name}</title><link rel="icon" href="data:,">
<script type="module">
import init, { HostClient } from './index.js'
await init()
${script}
</script>`
  writeFileSync(join(www, name), page)
  return www
}
