#!/usr/bin/env node
// Size check: packs the npm package (npm pack --dry-run lists its files), then gzips the
// shipped .wasm and the JS entry glue and compares the sum with the committed budget.
//
// The budget is a ratchet: size-budget.json (repo root) holds the packed size reached so far,
// rounded up to the next 0.5 KB, and this check fails (exit 1) whenever the package is over
// it. Lower it when a change makes the package smaller (the check prints the figure to
// commit); raising it is a decision made in review. The goal is printed next to
// it, and so is the hard ceiling (120 KB) whenever the budget is above it.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'

const root = new URL('..', import.meta.url).pathname
// The ratchet's hard ceiling and the goal, in KB.
const CEILING_KB = 120
const TARGET_KB = 110
const budgetKB = JSON.parse(readFileSync(root + 'size-budget.json', 'utf8')).budgetKB
if (!(typeof budgetKB === 'number' && budgetKB > 0)) {
  console.error(`size: size-budget.json must hold a positive budgetKB (got ${budgetKB})`)
  process.exit(1)
}
const BUDGET = budgetKB * 1024
const listing = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }))
const files = listing[0].files.map((f) => f.path)
// Everything the browser entry loads: the module, the wasm-bindgen glue, the JS modules it
// imports (pkg/snippets: the shell's src/wasm/shell.js) and the entry as shipped (pkg/index.js,
// index.js minified by scripts/build.sh).
const counted = files.filter(
  (p) => p.endsWith('.wasm') || p === 'pkg/index.js' || p === 'pkg/agent_session.js' || p.startsWith('pkg/snippets/'),
)
let total = 0
// Float formatting (core's flt2dec, ~10 KB gzipped) must not come back: it was linked only by
// serde's invalid-type messages, which the wire readers never build (wire/src/visit.rs). Its
// panic locations name its source file, so the packed module holding that name means it is in.
let floatFormatting = false
for (const p of counted) {
  const raw = readFileSync(root + p)
  if (p.endsWith('.wasm') && raw.includes('num/flt2dec/')) floatFormatting = true
  const gz = gzipSync(raw, { level: 9 }).length
  total += gz
  console.log(`  ${p.padEnd(60)} ${String(raw.length).padStart(8)} B  ${String(gz).padStart(7)} B gz`)
}
console.log(`  package files: ${files.join(', ')}`)
// The modules the entry loads on demand are not in the total every app pays: each is shown and
// bounded on its own (size-budget.json). The local cache (cacheKB) by apps that turn it on; the
// many-tabs layer (shareKB) by every HostClient in a browser with Web Locks and
// BroadcastChannel (unless `share: false`); the workspaces store (workspacesKB) by the first
// `host.workspaces()`; the models store (modelsKB) by the first `host.models(id)`; the subagents store
// (subagentsKB) by the first `host.subagents(id)`; what the stores and the cache
// share (storeKB) with the first of them.
const budgets = JSON.parse(readFileSync(root + 'size-budget.json', 'utf8'))
let lazyWithin = true
for (const m of ['cache', 'share', 'workspaces', 'models', 'subagents', 'store']) {
  const bound = budgets[`${m}KB`]
  const f = `pkg/${m}.js`
  const gz = files.includes(f) ? gzipSync(readFileSync(root + f), { level: 9 }).length : 0
  const ok = gz > 0 && gz <= bound * 1024
  lazyWithin &&= ok
  console.log(`size: ${f} (loaded on demand) = ${(gz / 1024).toFixed(1)} KB gzipped (bound ${bound} KB): ${ok ? 'within' : gz ? 'OVER' : 'FAILED (not packed)'}`)
}
// Over the budget, or a package without its .wasm, is a failure.
const hasWasm = counted.some((p) => p.endsWith('.wasm'))
const within = total <= BUDGET && !floatFormatting
if (floatFormatting) {
  console.error('size: FAILED: the module links float formatting (core::num::flt2dec); something reaches serde\'s invalid_type or formats an f64 (see wire/src/visit.rs)')
}
const kb = total / 1024
const target = `target ${TARGET_KB} KB: ${kb <= TARGET_KB ? 'met' : 'not met'}${budgetKB > CEILING_KB ? `; budget above the ${CEILING_KB} KB ceiling` : ''}`
console.log(`size: wasm + JS glue = ${kb.toFixed(1)} KB gzipped (budget ${budgetKB} KB): ${!hasWasm ? 'FAILED (no .wasm packed)' : floatFormatting ? 'FAILED (float formatting linked)' : within ? 'within budget' : 'OVER BUDGET'} (${target})`)
// The ratchet only goes down: say so when the package is a 0.5 KB step or more under it.
const ratchet = Math.ceil(kb * 2) / 2
if (hasWasm && within && ratchet < budgetKB) {
  console.log(`size: ${budgetKB - ratchet} KB under the budget: lower budgetKB in size-budget.json to ${ratchet}`)
}
process.exit(!hasWasm || !within || !lazyWithin ? 1 : 0)
