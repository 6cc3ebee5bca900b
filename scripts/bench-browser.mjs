#!/usr/bin/env node
// Browser benchmark (printed figures, not a timed test):
//   1. per-frame cost of ingesting a burst of streamed mux frames (bytes in -> snapshot
//      published to one subscriber) next to a raw reader doing only fetch-stream + JSON.parse
//      of the same bytes, in the same page and run (goal <= 1.3x, never over 2x);
//   2. the same with a 1k-event and a 100k-event window (goal <= 1.3x between them);
//   3. gzipped size of the .wasm + JS glue.
// The host (target/debug/agent-session-host or $AGENT_SESSION_HOST_BIN) serves www/dist, which
// holds bench.html; sessions are seeded through the host's --faults `seed` command.
// Env: BENCH_FRAMES (2000), BENCH_REPEATS (9), BENCH_BIG (100000).
import { readFileSync, readdirSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'
import { ROOT, admin, cleanup, killHost, startHost, tempDir } from '../e2e/lib/host.mjs'
import { launch } from '../e2e/lib/browser.mjs'
import { prepare } from './e2e-prepare.mjs'

const FRAMES = Number(process.env.BENCH_FRAMES ?? 2000)
const REPEATS = Number(process.env.BENCH_REPEATS ?? 9)
const BIG = Number(process.env.BENCH_BIG ?? 100_000)

function gz(path) {
  const b = readFileSync(path)
  return { raw: b.length, gz: gzipSync(b, { level: 9 }).length }
}
const kb = (n) => `${(n / 1024).toFixed(1)} kB`
const us = (n) => `${n.toFixed(2)} µs`

if (process.env.E2E_SKIP_PREPARE !== '1') prepare()

const dir = tempDir('agent-session-bench-')
let host, browser
let exitCode = 0
try {
  host = await startHost({ db: join(dir, 'bench.sqlite'), staticDir: join(ROOT, 'www', 'dist'), chunkDelayMs: 0, faults: true })
  // Seeded logs: one user + one assistant message per 1000 events, text chunks between.
  const small = (await admin(host.url, { command: 'seed', events: 1000, messageEvery: 1000 })).results[0]
  const big = (await admin(host.url, { command: 'seed', events: BIG, messageEvery: 1000 })).results[0]
  console.log(`[bench] seeded ${small.sessionId} (1k events) and ${big.sessionId} (${BIG} events, ${big.elapsedMs.toFixed(0)} ms)`)

  browser = await launch()
  const page = await browser.newPage()
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') console.log(`[page ${m.type()}] ${m.text()}`)
  })
  await page.goto(`${host.url}/bench.html`)
  await page.waitForFunction(() => document.getElementById('out')?.textContent === 'ready')
  const all = await page.evaluate(
    (cfg) => window.runBench(cfg),
    {
      cases: [
        { label: '1k-event window', sessionId: small.sessionId, window: 1000 },
        { label: `${BIG / 1000}k-event window`, sessionId: big.sessionId, window: BIG },
      ],
      frames: FRAMES,
      repeats: REPEATS,
      warmup: 4,
    },
  )
  const results = all.filter((r) => r.ingestUsPerFrame !== undefined)
  const breakdown = all.find((r) => r.parseUsPerFrame !== undefined)

  console.log('')
  console.log(`Browser ingest benchmark (Chromium ${browser.version()}, ${FRAMES}-frame bursts, median of ${REPEATS})`)
  console.log('')
  console.log('| window | events in window | burst bytes | ingest → snapshot (per frame) | raw fetch-stream + JSON.parse (per frame) | ratio |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const r of results) {
    console.log(
      `| ${r.label} | ${r.windowEvents.toLocaleString('en')} | ${kb(r.bytes)} | ${us(r.ingestUsPerFrame)} | ${us(r.rawUsPerFrame)} | ${(r.ingestUsPerFrame / r.rawUsPerFrame).toFixed(2)}× |`,
    )
  }
  const [a, b] = results
  const windowRatio = b.ingestUsPerFrame / a.ingestUsPerFrame
  console.log('')
  console.log(`window cost ratio (${b.label} / ${a.label}): ${windowRatio.toFixed(2)}×   (goal ≤ 1.3×)`)
  if (breakdown) {
    const p = breakdown.parseUsPerFrame
    const share = (x) => `${Math.min(100, (100 * p) / x).toFixed(0)}%`
    console.log(
      `breakdown: ${breakdown.label}: ${us(p)} per frame = ${share(a.ingestUsPerFrame)} / ${share(b.ingestUsPerFrame)} of the full ingest cost (the rest: routing + fold + snapshot export)`,
    )
  }
  console.log(`subscriber notifications per ${FRAMES}-frame burst: ${results.map((r) => r.notificationsPerBurst).join(' / ')} (at most one per microtask)`)
  console.log(`window load: ${a.label} ${a.loadMs.toFixed(0)} ms, ${b.label} ${b.loadMs.toFixed(0)} ms (open + loadOlder pages)`)

  // sizes
  const wasm = gz(join(ROOT, 'pkg', 'agent_session_bg.wasm'))
  const glue = gz(join(ROOT, 'pkg', 'agent_session.js'))
  const entry = gz(join(ROOT, 'index.js'))
  const react = gz(join(ROOT, 'react', 'index.js'))
  console.log('')
  console.log('| file | bytes | gzip -9 |')
  console.log('|---|---:|---:|')
  console.log(`| pkg/agent_session_bg.wasm | ${wasm.raw.toLocaleString('en')} | ${wasm.gz.toLocaleString('en')} |`)
  console.log(`| pkg/agent_session.js (glue) | ${glue.raw.toLocaleString('en')} | ${glue.gz.toLocaleString('en')} |`)
  console.log(`| index.js + react/index.js | ${(entry.raw + react.raw).toLocaleString('en')} | ${(entry.gz + react.gz).toLocaleString('en')} |`)
  console.log(`| **wasm + glue** | ${(wasm.raw + glue.raw).toLocaleString('en')} | **${(wasm.gz + glue.gz).toLocaleString('en')}** (${kb(wasm.gz + glue.gz)}) |`)
  const assets = join(ROOT, 'www', 'dist', 'assets')
  const demoJs = readdirSync(assets).filter((f) => f.startsWith('main-') && f.endsWith('.js'))
  if (demoJs.length) {
    const d = demoJs.map((f) => gz(join(assets, f))).reduce((x, y) => ({ raw: x.raw + y.raw, gz: x.gz + y.gz }))
    console.log(`| (demo app JS incl. React, for reference) | ${d.raw.toLocaleString('en')} | ${d.gz.toLocaleString('en')} |`)
  }
  const worst = Math.max(...results.map((r) => r.ingestUsPerFrame / r.rawUsPerFrame))
  console.log('')
  console.log(
    `bench-browser: ingest/raw ${results.map((r) => (r.ingestUsPerFrame / r.rawUsPerFrame).toFixed(2) + '×').join(' / ')} (goal ≤ 1.3×, ${worst <= 2 ? 'within' : 'OVER'} the 2× ceiling), window ${b.label.split('-')[0]}/${a.label.split('-')[0]} ${windowRatio.toFixed(2)}×, wasm+glue ${kb(wasm.gz + glue.gz)} gzipped`,
  )
} catch (e) {
  console.error(e)
  console.log('bench-browser: FAILED')
  exitCode = 1
} finally {
  await browser?.close().catch(() => {})
  await killHost(host)
  cleanup(dir)
}
process.exit(exitCode)
