#!/usr/bin/env node
// Browser benchmark (printed figures, not a timed test):
//   1. per-frame cost of ingesting a burst of streamed mux frames (bytes in -> snapshot
//      published to one subscriber) next to a raw reader doing only fetch-stream + JSON.parse
//      of the same bytes, in the same page and run (goal <= 1.3x, never over 2x);
//   2. the same with a 1k-event and a 100k-event window (goal <= 1.3x between them);
//   3. opening a tail page of W events (W = 1k, 10k = the host's MAX_PAGE_EVENTS, and 100k
//      served as one response assembled in the page from the host's pages) with
//      `session.open()` on a fresh HostClient, next to the open floor: one `fetch` of the same
//      `session.history` request + `JSON.parse` of the text (goal <= 1.3x at 100k, <= 2x at 1k),
//      and next to the memory bench's plain-JS client opening the same page (fetch + JSON.parse
//      + its fold into nodes; goal: the package no slower);
//   4. paging back with `loadOlder()` through a session that is one long turn (a streaming
//      partial across every page boundary) to seq 0, next to the paging floor: fetch +
//      `JSON.parse` of the same older-page requests (goal <= 2x);
//   5. a reload of a session seen before (the 1k session, the big session's tail page, and its
//      whole log served as one response, answers served in the page as in 3.): one HostClient
//      with `cache: true` opens it and closes (its window is written to IndexedDB), then a
//      fresh HostClient opens it again with the cache on, and one without the option: the time
//      from `open()` to the first snapshot with nodes and whether that snapshot was painted from
//      the cache (`cached: true`); with the cache on also with the history answer held until
//      that snapshot (the host answering after the cache; goal <= 100 ms at 100k). These rows
//      run last: the cache's module wraps Session methods once loaded;
//   6. gzipped size of the package: .wasm, wasm-bindgen glue, the shell's JS module and the entry;
//   7. the memory table (scripts/bench-memory.mjs, in its own Chromium with --expose-gc): open of
//      the 1k and big windows, visiting many sessions, one reconnect's history calls, and the
//      plateau over many reconnects, next to the parsed page and a plain-JS client.
// The host (target/debug/agent-session-host or $AGENT_SESSION_HOST_BIN) serves the harness pages
// (tests/pages, built into target/pages), which hold bench.html; sessions are seeded through the host's --faults `seed` command.
// Env: BENCH_FRAMES (2000), BENCH_REPEATS (9), BENCH_BIG (100000), BENCH_OPEN_REPEATS (7),
// BENCH_PAGING_REPEATS (5), BENCH_RELOAD_REPEATS (7), BENCH_MEMORY=0 (skips the memory table; its own knobs are in
// scripts/bench-memory.mjs).
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'
import { ROOT, admin, cleanup, hostBinary, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { DEMO_DIST, PAGES_DIST } from '../tests/support/pages.mjs'
import { prepare } from './e2e-prepare.mjs'
import { memoryBench } from './bench-memory.mjs'
import { startReplay } from './bench-replay.mjs'

const FRAMES = Number(process.env.BENCH_FRAMES ?? 2000)
const REPEATS = Number(process.env.BENCH_REPEATS ?? 9)
const BIG = Number(process.env.BENCH_BIG ?? 100_000)
const OPEN_REPEATS = Number(process.env.BENCH_OPEN_REPEATS ?? 7)
const PAGING_REPEATS = Number(process.env.BENCH_PAGING_REPEATS ?? 5)
const RELOAD_REPEATS = Number(process.env.BENCH_RELOAD_REPEATS ?? 7)
// the host's page caps (host/src/limits.rs): 50 messages by default, at most 10,000 events
const MAX_PAGE_EVENTS = 10_000

function gz(path) {
  const b = readFileSync(path)
  return { raw: b.length, gz: gzipSync(b, { level: 9 }).length }
}
const kb = (n) => `${(n / 1024).toFixed(1)} kB`
const us = (n) => `${n.toFixed(2)} µs`
const ms = (n) => `${n.toLocaleString('en', { maximumFractionDigits: n < 100 ? 1 : 0 })} ms`
const k = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : n.toLocaleString('en'))

if (process.env.E2E_SKIP_PREPARE !== '1') prepare()

const dir = tempDir('agent-session-bench-')
let host, browser, replay
let exitCode = 0
try {
  host = await startHost({ db: join(dir, 'bench.sqlite'), staticDir: PAGES_DIST, chunkDelayMs: 0, faults: true })
  // Seeded logs: one user + one assistant message per 1000 events, text chunks between.
  const small = (await admin(host.url, { command: 'seed', events: 1000, messageEvery: 1000 })).results[0]
  const big = (await admin(host.url, { command: 'seed', events: BIG, messageEvery: 1000 })).results[0]
  // Paging a 1k-event session: a message every 5 events, so the default 50-message pages hold
  // ~250 events (the 1k log above is a single tail page). Every seeded log is one long turn
  // (turn 1, no turn/end): each page boundary leaves a streaming partial pending.
  const pagingSmall = (await admin(host.url, { command: 'seed', events: 1000, messageEvery: 10 })).results[0]
  // and the big log again with a message every 20 events: ~1,000-event pages, 99 boundaries
  // (the shape of `cargo bench --bench core_paging`'s "one endless turn").
  const pagingBig = (await admin(host.url, { command: 'seed', events: BIG, messageEvery: 40 })).results[0]
  // And node-dense: every event its own node (a user and an assistant message every 2 events),
  // the shape of a conversation of many small messages.
  const nodeDense = (await admin(host.url, { command: 'seed', events: BIG, messageEvery: 2 })).results[0]
  console.log(`[bench] seeded ${small.sessionId} (1k events), ${pagingSmall.sessionId} (1k events, dense messages), ${big.sessionId} (${BIG} events, ${big.elapsedMs.toFixed(0)} ms) and ${pagingBig.sessionId} (${BIG} events, dense messages)`)

  replay = await startReplay()
  browser = await launch()
  const page = await browser.newPage()
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') console.log(`[page ${m.type()}] ${m.text()}`)
  })
  const pageErrors = []
  page.on('pageerror', (e) => {
    pageErrors.push(e)
    console.log(`[page error] ${e.stack ?? e}`)
  })
  await page.goto(`${host.url}/bench.html`)
  await page.waitForFunction(() => document.getElementById('out')?.textContent === 'ready')
  await page.evaluate(() => {
    window.__rejections = []
    window.addEventListener('unhandledrejection', (e) => window.__rejections.push(String(e.reason?.stack ?? e.reason)))
  })

  // Open and paging first (fresh HostClients on the default transport), then the ingest bursts.
  const tOpenPaging = Date.now()
  const bigLabel = k(BIG)
  const op = await page.evaluate((cfg) => window.runOpenPaging(cfg), {
    open: [
      { label: `tail page, ${k(1000)}-event session`, sessionId: small.sessionId, repeats: 3 * OPEN_REPEATS },
      { label: `tail page, ${bigLabel}-event session (host cap ${k(MAX_PAGE_EVENTS)} events)`, sessionId: big.sessionId },
      { label: `whole ${bigLabel}-event log as one response (host's pages joined, served in the page)`, sessionId: big.sessionId, assemble: true },
      { label: `tail page, ${bigLabel}-event session, over loopback`, sessionId: big.sessionId, loopback: true },
      { label: `whole ${bigLabel}-event log as one response, over loopback`, sessionId: big.sessionId, assemble: true, loopback: true },
      { label: `whole ${bigLabel}-event log, every event its own node, over loopback`, sessionId: nodeDense.sessionId, assemble: true, loopback: true },
    ],
    replayUrl: replay.url,
    paging: [
      { label: `${k(1000)}-event session, one long turn`, sessionId: pagingSmall.sessionId, repeats: 3 * PAGING_REPEATS },
      { label: `${bigLabel}-event session, one long turn`, sessionId: big.sessionId },
      { label: `${bigLabel}-event session, one long turn, dense messages`, sessionId: pagingBig.sessionId },
    ],
    openRepeats: OPEN_REPEATS,
    pagingRepeats: PAGING_REPEATS,
  })
  const openPagingSec = (Date.now() - tOpenPaging) / 1000
  const all = await page.evaluate(
    (cfg) => window.runIngest(cfg),
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
  // Reload with the local cache on and off: last, so the rows above ran without cache.js loaded.
  const tReload = Date.now()
  const reloads = await page.evaluate((cfg) => window.runReload(cfg), {
    cases: [
      { label: `${k(1000)}-event session (tail page = whole log)`, sessionId: small.sessionId, repeats: 3 * RELOAD_REPEATS },
      { label: `${k(MAX_PAGE_EVENTS)}-event tail page of the ${bigLabel}-event session`, sessionId: big.sessionId },
      { label: `whole ${bigLabel}-event log as one response (host's pages joined, served in the page)`, sessionId: big.sessionId, assemble: true },
      { label: `whole ${bigLabel}-event log, every event its own node, as one response`, sessionId: nodeDense.sessionId, assemble: true, repeats: 3, afterClose: true },
    ],
    repeats: RELOAD_REPEATS,
    replayUrl: replay.url,
  })
  const reloadSec = (Date.now() - tReload) / 1000
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

  // Each repeat times the floor and the package back to back (alternating which goes first), so
  // the ratio is the median of the per-repeat ratios: a slow patch of the machine (GC, another
  // process) moves both halves of a pair, not one column's median.
  const ratio = (r, floor = r.floorSamples) => {
    const pairs = r.pkgSamples.map((p, i) => p / floor[i]).sort((x, y) => x - y)
    const mid = pairs.length >> 1
    return pairs.length % 2 ? pairs[mid] : (pairs[mid - 1] + pairs[mid]) / 2
  }
  const opens = op.filter((r) => r.kind === 'open')
  const openTag = (r) => `${k(r.events)}${r.loopback ? ' loopback' : ''}`
  const pagings = op.filter((r) => r.kind === 'paging')
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
  console.log('')
  console.log(
    `Browser open and paging benchmark (fresh HostClient per measurement, default transport; median of ${OPEN_REPEATS} opens / ${PAGING_REPEATS} paging runs, 3× that for the 1k cases, each next to a floor run; ratio = median of the per-run ratios; ${openPagingSec.toFixed(0)} s in all)`,
  )
  console.log(
    'session.history answers (package and floor alike) are the texts fetched once from the host, so the host\'s own serving time stays out of both: served in the page (a `Response` of the text: CPU only), or, in the rows "over loopback", by the replay server in this script (node http, 64 KB writes), so the body crosses the browser\'s network stack as a host\'s answer does and a client can read it while it downloads',
  )
  console.log('')
  console.log('| what | events | floor: fetch + JSON.parse | agent-session | ratio | goal | plain-JS client: fetch + JSON.parse + fold | agent-session / plain-JS |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const r of opens) {
    const goal = r.events >= 100_000 ? '≤ 1.3×' : r.events <= 1000 ? '≤ 2×' : '—'
    console.log(
      `| open: ${r.label} | ${r.events.toLocaleString('en')} | ${ms(r.floorMs)} | ${ms(r.pkgMs)} (first snapshot ${ms(r.snapshotMs)}) | ${ratio(r).toFixed(2)}× | ${goal} | ${ms(r.plainMs)} (${ratio({ pkgSamples: r.plainSamples }, r.floorSamples).toFixed(2)}× the floor) | ${ratio(r, r.plainSamples).toFixed(2)}× (goal ≤ 1×) |`,
    )
  }
  const hostServed = opens.filter((r) => r.hostTailMs !== undefined && !r.loopback)
  for (const r of pagings) {
    console.log(
      `| paging: ${r.label}, loadOlder ×${r.pages} to seq 0 (tail page ${r.tailEvents.toLocaleString('en')}) | ${r.olderEvents.toLocaleString('en')} | ${ms(r.floorMs)} | ${ms(r.pkgMs)} | ${ratio(r).toFixed(2)}× | ≤ 2× |`,
    )
  }

  // sizes
  const wasm = gz(join(ROOT, 'pkg', 'agent_session_bg.wasm'))
  const glue = gz(join(ROOT, 'pkg', 'agent_session.js'))
  // the shell's JS module (a wasm-bindgen snippet), loaded with the glue
  const snippets = readdirSync(join(ROOT, 'pkg', 'snippets'), { recursive: true })
    .filter((f) => String(f).endsWith('.js'))
    .map((f) => gz(join(ROOT, 'pkg', 'snippets', String(f))))
    .reduce((x, y) => ({ raw: x.raw + y.raw, gz: x.gz + y.gz }), { raw: 0, gz: 0 })
  const entry = gz(join(ROOT, 'pkg', 'index.js'))
  const react = gz(join(ROOT, 'react', 'index.js'))
  console.log(
    `for reference, the same tail page fetched from the host (${hostBinary().includes('/debug/') ? 'debug' : 'given'} build) + JSON.parse, once: ${hostServed.map((r) => `${k(r.events)} ${ms(r.hostTailMs)}`).join(', ')}`,
  )
  console.log('')
  console.log(
    `Browser reload benchmark (a session seen before, opened again by a fresh HostClient: with \`cache: true\` and without the option; median of ${RELOAD_REPEATS} runs each, 3× that for 1k, the order alternating; ${reloadSec.toFixed(0)} s in all)`,
  )
  console.log(
    'seen before = a HostClient with `cache: true` opened it, read its snapshot and closed (the close flushes the write), and the entry was found in IndexedDB; each row starts and ends with `clearCache()`. Time: from `open()` to the first snapshot with nodes, as a listener subscribed before `open()` sees it (getSnapshot() on every notification). History answers are served in the page as in the open rows: there at once, read from memory without yielding a task, so the cache\'s IndexedDB read cannot finish first ("answer at once"); in "answer held" the page holds that answer until a snapshot with nodes is seen (at most 5 s), as a host answering after the cache; in "over loopback" the bench\'s replay server answers at once and the body crosses the network stack in 64 KB writes, as a host\'s answer (a race). The page has cache.js and its IndexedDB connection loaded already, which a real reload loads first',
  )
  console.log('')
  console.log('| reload of | events | nodes | cache off | cache on, answer at once | cached paint | cache on, answer held | cached paint | cache off, over loopback | cache on, over loopback | cached paint | cached nodes kept after the host answered (fewest in a run) |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  const yesNo = (n, of) => `${n === of ? 'yes' : n === 0 ? 'no' : 'sometimes'} (${n}/${of})`
  for (const r of reloads) {
    const goal = r.label.includes(`${bigLabel}-event`) ? ' (goal ≤ 100 ms)' : ''
    console.log(
      `| ${r.label} | ${r.events.toLocaleString('en')} | ${r.nodes.toLocaleString('en')} | ${ms(r.offMs)} | ${ms(r.onMs)} | ${yesNo(r.cachedPaints, r.repeats)} | ${ms(r.heldMs)}${goal} | ${yesNo(r.heldPaints, r.repeats)} | ${r.loopbackOffMs === undefined ? '—' : ms(r.loopbackOffMs)} | ${r.loopbackMs === undefined ? '—' : ms(r.loopbackMs)} | ${yesNo(r.loopbackPaints, r.repeats)} | ${r.cachedPaints + r.heldPaints + r.loopbackPaints ? `${r.keptNodes}/${r.nodes}` : '—'} |`,
    )
  }
  for (const r of reloads) {
    if (r.wholeHeldMs !== undefined) console.log(`reload of ${r.label}, answer held: the newest chunk painted in ${ms(r.heldMs)}, the whole kept window (${r.nodes.toLocaleString('en')} nodes) in ${ms(r.wholeHeldMs)}`)
    if (r.afterClose?.length) {
      const a = r.afterClose
      console.log(
        `reload 200 ms after the first close() of ${r.label} (the close's write the only one), answer held: cached paint ${a.filter((x) => x.cached).length}/${a.length}, ` +
          `first paint ${a.map((x) => `${x.painted.toLocaleString('en')} nodes in ${ms(x.ms)}`).join(', ')}`,
      )
    }
  }
  console.log('')
  console.log('| file | bytes | gzip -9 |')
  console.log('|---|---:|---:|')
  console.log(`| pkg/agent_session_bg.wasm | ${wasm.raw.toLocaleString('en')} | ${wasm.gz.toLocaleString('en')} |`)
  console.log(`| pkg/agent_session.js (glue) | ${glue.raw.toLocaleString('en')} | ${glue.gz.toLocaleString('en')} |`)
  console.log(`| pkg/snippets (the shell's JS) | ${snippets.raw.toLocaleString('en')} | ${snippets.gz.toLocaleString('en')} |`)
  console.log(`| pkg/index.js | ${entry.raw.toLocaleString('en')} | ${entry.gz.toLocaleString('en')} |`)
  const pkg = { raw: wasm.raw + glue.raw + snippets.raw + entry.raw, gz: wasm.gz + glue.gz + snippets.gz + entry.gz }
  console.log(`| **package: wasm + JS** (as \`scripts/size.mjs\` counts it) | ${pkg.raw.toLocaleString('en')} | **${pkg.gz.toLocaleString('en')}** (${kb(pkg.gz)}) |`)
  console.log(`| react/index.js (optional) | ${react.raw.toLocaleString('en')} | ${react.gz.toLocaleString('en')} |`)
  // The demo's entry script (the demo, React and the package's JS; the .wasm and the chunks
  // loaded on demand apart), as the demo's own build (www/dist) emits it.
  const demoHtml = join(DEMO_DIST, 'index.html')
  const demoJs = existsSync(demoHtml) ? [...readFileSync(demoHtml, 'utf8').matchAll(/<script type="module"[^>]*\ssrc="\/([^"]+\.js)"/g)].map((m) => m[1]) : []
  if (demoJs.length) {
    const d = demoJs.map((f) => gz(join(DEMO_DIST, f))).reduce((x, y) => ({ raw: x.raw + y.raw, gz: x.gz + y.gz }))
    console.log(`| (demo app's entry JS incl. React and the package's JS, for reference) | ${d.raw.toLocaleString('en')} | ${d.gz.toLocaleString('en')} |`)
  }
  const worst = Math.max(...results.map((r) => r.ingestUsPerFrame / r.rawUsPerFrame))
  const rejections = await page.evaluate(() => window.__rejections)
  if (pageErrors.length || rejections.length) {
    throw new Error(`the bench page reported ${pageErrors.length} page error(s) and ${rejections.length} unhandled rejection(s): ${[...pageErrors.map(String), ...rejections].join('; ')}`)
  }
  await browser.close()
  browser = null
  const memory = process.env.BENCH_MEMORY === '0' ? null : await memoryBench(host.url, { small: small.sessionId, big: big.sessionId, dense: pagingBig.sessionId, nodeDense: nodeDense.sessionId })
  console.log('')
  console.log(
    `bench-browser: ingest/raw ${results.map((r) => (r.ingestUsPerFrame / r.rawUsPerFrame).toFixed(2) + '×').join(' / ')} (goal ≤ 1.3×, ${worst <= 2 ? 'within' : 'OVER'} the 2× ceiling), window ${b.label.split('-')[0]}/${a.label.split('-')[0]} ${windowRatio.toFixed(2)}×, open/floor ${opens.map((r) => `${openTag(r)} ${ratio(r).toFixed(2)}×`).join(' / ')}, open/plain-JS ${opens.map((r) => `${openTag(r)} ${ratio(r, r.plainSamples).toFixed(2)}×`).join(' / ')}, paging/floor ${pagings.map((r) => `${k(r.events)} (${r.pages} pages) ${ratio(r).toFixed(2)}×`).join(' / ')}, reload to first nodes cache off / on / on with the answer held / over loopback ${reloads.map((r) => `${k(r.events)} ${ms(r.offMs)} / ${ms(r.onMs)} (cached ${r.cachedPaints}/${r.repeats}) / ${ms(r.heldMs)} (cached ${r.heldPaints}/${r.repeats}) / loopback off ${r.loopbackOffMs === undefined ? '—' : ms(r.loopbackOffMs)} on ${r.loopbackMs === undefined ? '—' : ms(r.loopbackMs)} (cached ${r.loopbackPaints}/${r.repeats})`).join(', ')}, wasm + JS ${kb(pkg.gz)} gzipped${memory ? `, memory: ${memory.summary}` : ''}`,
  )
} catch (e) {
  console.error(e)
  console.log('bench-browser: FAILED')
  exitCode = 1
} finally {
  await browser?.close().catch(() => {})
  await replay?.close()
  await killHost(host)
  cleanup(dir)
}
process.exit(exitCode)
