#!/usr/bin/env node
// Memory bench (printed figures, not a test): what a long-lived tab pays, measured after forced
// GC in headless Chromium launched with --js-flags=--expose-gc. JS heap = CDP
// `Runtime.getHeapUsage().usedSize` after gc() ×4 (a turn of the event loop between, so
// finalizers run) and `HeapProfiler.collectGarbage`; wasm memory = the byte length of every
// WebAssembly.Memory the page instantiated (tests/pages/src/bench-memory.ts), which never shrinks: its
// growth is the high-water mark. Every scenario runs in a fresh page (fresh wasm memory) and
// is reported as its growth over the page's own baseline, next to floors from the same run:
//   (a) the parsed page: the history page `JSON.parse`d and kept (1k and BIG events, and the
//       dense BIG log when given);
//   (b) a minimal plain-JS client (tests/pages/src/plain-client.ts): parsed events kept + nodes;
//   (c) `session.open()` of the 1k and BIG windows (the whole log served as one response), and
//       of a BIG window with a message every 40 events (5,000 nodes at 100k);
//   (d) visiting N sessions of E events (subscribe, open, unsubscribe), growth per session, and
//       N node-dense ones (every event its own node);
//   (e) the `session.history` calls one reconnect makes after that (one session watched);
//   (f) R reconnects of one watched W-event session: the plateau (min / max / last).
// Run by scripts/bench-browser.mjs (after its timed parts), or alone: `node scripts/bench-memory.mjs`
// (its own host; sessions seeded through the host's --faults `seed` command).
// Env: BENCH_BIG (100000), BENCH_MEM_VISITS (100), BENCH_MEM_VISIT_EVENTS (2000),
// BENCH_MEM_WATCHED (10000), BENCH_MEM_RECONNECTS (100), BENCH_MEM_VISIT_SETTLE_MS (0: waited
// after the last visit before measuring it).
import { join } from 'node:path'
import { ROOT, admin, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { PAGES_DIST } from '../tests/support/pages.mjs'
import { prepare } from './e2e-prepare.mjs'

const BIG = Number(process.env.BENCH_BIG ?? 100_000)
const VISITS = Number(process.env.BENCH_MEM_VISITS ?? 100)
const VISIT_EVENTS = Number(process.env.BENCH_MEM_VISIT_EVENTS ?? 2000)
const WATCHED = Number(process.env.BENCH_MEM_WATCHED ?? 10_000)
const RECONNECTS = Number(process.env.BENCH_MEM_RECONNECTS ?? 100)
// waited after the last visit before measuring (a lifecycle with a grace period releases then)
const VISIT_SETTLE_MS = Number(process.env.BENCH_MEM_VISIT_SETTLE_MS ?? 0)

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`
const kb = (n) => `${(n / 1e3).toFixed(0)} kB`
const k = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : n.toLocaleString('en'))
const x = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}×` : '—')

/** A fresh bench-memory page with its CDP session; `measure()` = JS heap + wasm after GC. */
async function freshPage(browser, url, problems) {
  const page = await browser.newPage()
  page.setDefaultTimeout(120_000)
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') console.log(`[memory page ${m.type()}] ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.stack ?? e}`))
  await page.addInitScript(() => {
    window.addEventListener('unhandledrejection', (e) => console.error(`unhandledrejection: ${e.reason?.stack ?? e.reason}`))
  })
  page.on('console', (m) => {
    if (m.text().startsWith('unhandledrejection:')) problems.push(m.text())
  })
  await page.goto(`${url}/bench-memory.html`)
  await page.waitForFunction(() => document.getElementById('out')?.textContent === 'ready')
  const cdp = await page.context().newCDPSession(page)
  const measure = async (turns = 4) => {
    await page.evaluate((n) => window.mem.gcTurns(n), turns)
    await cdp.send('HeapProfiler.collectGarbage')
    const { usedSize } = await cdp.send('Runtime.getHeapUsage')
    const wasm = await page.evaluate(() => window.mem.wasmBytes())
    return { js: usedSize, wasm }
  }
  const ev = (fn, arg) => page.evaluate(fn, arg)
  return { page, measure, ev, close: () => page.close() }
}

const delta = (a, b) => ({ js: b.js - a.js, wasm: b.wasm - a.wasm, total: b.js - a.js + (b.wasm - a.wasm) })

/**
 * Seeds what it needs besides `small` (1k events) and `big` (BIG events), runs every scenario
 * on `url` (a host with --faults serving the harness pages, target/pages) and prints the memory table.
 */
export async function memoryBench(url, { small, big, dense, nodeDense }) {
  const t0 = Date.now()
  const problems = []
  const seed = async (events, messageEvery = 1000) => (await admin(url, { command: 'seed', events, messageEvery })).results[0].sessionId
  const visitIds = []
  for (let i = 0; i < VISITS; i++) visitIds.push(await seed(VISIT_EVENTS))
  // The same visits to node-dense sessions: every event its own message node.
  const denseVisitIds = []
  for (let i = 0; i < VISITS; i++) denseVisitIds.push(await seed(VISIT_EVENTS, 2))
  const watchedId = await seed(WATCHED)
  const seedSec = (Date.now() - t0) / 1000

  const browser = await launch({ exposeGc: true })
  const secs = {}
  let tSection = Date.now()
  const section = (name) => {
    secs[name] = (Date.now() - tSection) / 1000
    tSection = Date.now()
  }
  try {
    const windows = [
      { events: 1000, id: small, label: '' },
      { events: BIG, id: big, label: '' },
      ...(dense ? [{ events: BIG, id: dense, label: ', dense messages', dense: 40 }] : []),
      ...(nodeDense ? [{ events: BIG, id: nodeDense, label: ', every event its own node', dense: 2 }] : []),
    ]
    // (a) and (b): JS only
    const rows = []
    for (const w of windows) {
      for (const kind of ['floor', 'plainOpen']) {
        const p = await freshPage(browser, url, problems)
        const primed = await p.ev((id) => window.mem.prime(id), w.id)
        const m0 = await p.measure()
        const r = await p.ev(([fn, id]) => window.mem[fn](id), [kind, w.id])
        if (r.events !== primed.events) throw new Error(`${kind} saw ${r.events} events, the page holds ${primed.events}`)
        const m1 = await p.measure()
        rows.push({ kind, dense: w.dense ?? 0, events: r.events, nodes: r.nodes, pageChars: primed.chars, ...delta(m0, m1) })
        await p.close()
      }
    }
    section('a+b')
    // (c) the package's open
    for (const w of windows) {
      const p = await freshPage(browser, url, problems)
      const primed = await p.ev((id) => window.mem.prime(id), w.id)
      const conn = await p.ev(() => window.mem.connect())
      const m0 = await p.measure()
      const r = await p.ev((id) => window.mem.open(id), w.id)
      if (r.events !== primed.events) throw new Error(`open installed ${r.events} events, the page holds ${primed.events}`)
      const m1 = await p.measure()
      rows.push({ kind: 'open', dense: w.dense ?? 0, ...r, pageChars: primed.chars, initWasm: conn.wasm, memories: conn.memories, base: m0, after: m1, ...delta(m0, m1) })
      await p.close()
    }
    section('c')
    // (d) + (e): visiting, then one reconnect
    const visit = {}
    {
      const p = await freshPage(browser, url, problems)
      await p.ev(() => window.mem.connect())
      const m0 = await p.measure()
      await p.ev((ids) => window.mem.visit(ids), visitIds)
      if (VISIT_SETTLE_MS > 0) await new Promise((res) => setTimeout(res, VISIT_SETTLE_MS))
      const m1 = await p.measure()
      visit.pkg = delta(m0, m1)
      await p.ev((id) => window.mem.watch(id), visitIds[visitIds.length - 1])
      visit.reconnect = await p.ev(() => window.mem.reconnect(500))
      await p.close()
    }
    {
      const p = await freshPage(browser, url, problems)
      const m0 = await p.measure()
      await p.ev((ids) => window.mem.plainVisit(ids), visitIds)
      const m1 = await p.measure()
      visit.plain = delta(m0, m1)
      await p.close()
    }
    for (const [key, fn] of [['densePkg', 'visit'], ['densePlain', 'plainVisit']]) {
      const p = await freshPage(browser, url, problems)
      if (fn === 'visit') await p.ev(() => window.mem.connect())
      // Each answered whole (2,000 nodes), not as the host's tail page (50 messages).
      await p.ev(async (ids) => {
        for (const id of ids) await window.mem.prime(id)
      }, denseVisitIds)
      const m0 = await p.measure()
      await p.ev(([fn, ids]) => window.mem[fn](ids), [fn, denseVisitIds])
      if (VISIT_SETTLE_MS > 0 && fn === 'visit') await new Promise((res) => setTimeout(res, VISIT_SETTLE_MS))
      const m1 = await p.measure()
      visit[key] = delta(m0, m1)
      await p.close()
    }
    section('d+e')
    // (f) reconnects of one watched session (a short backoff: the plateau, not the waiting)
    const plateau = { js: [], wasm: [], total: [], ms: [], calls: 0 }
    let watchedBase
    {
      const p = await freshPage(browser, url, problems)
      await p.ev(() => window.mem.connect(25))
      const mInit = await p.measure()
      await p.ev((id) => window.mem.watch(id), watchedId)
      const mOpen = await p.measure()
      watchedBase = { init: mInit, open: delta(mInit, mOpen) }
      for (let i = 0; i < RECONNECTS; i++) {
        const r = await p.ev(() => window.mem.reconnect(100))
        plateau.calls += r.calls
        plateau.ms.push(r.ms)
        // one gc() turn here (no finalizer is waited for): the plateau, at a bearable cost
        const m = await p.measure(1)
        const d = delta(mInit, m)
        plateau.js.push(d.js)
        plateau.wasm.push(d.wasm)
        plateau.total.push(d.total)
      }
      await p.close()
    }
    section('f')
    if (problems.length) throw new Error(`the memory bench pages reported: ${problems.join('; ')}`)

    const find = (kind, events, dense = 0) => rows.find((r) => r.kind === kind && r.events === events && r.dense === dense)
    const sec = (Date.now() - t0) / 1000
    console.log('')
    console.log(
      `Browser memory benchmark (Chromium ${browser.version()} --expose-gc; after gc() ×4 + CDP HeapProfiler.collectGarbage; JS heap = CDP Runtime.getHeapUsage usedSize, wasm = byte length of every WebAssembly.Memory, its growth = the high-water mark; each scenario in a fresh page, as growth over that page's baseline; MB = 10^6 bytes; ${sec.toFixed(0)} s in all: ${seedSec.toFixed(0)} s seeding, ${Object.entries(secs).map(([n, t]) => `${n} ${t.toFixed(0)} s`).join(', ')})`,
    )
    console.log('')
    console.log('| what | events | JS heap | wasm memory | total | × parsed page | × plain-JS client |')
    console.log('|---|---:|---:|---:|---:|---:|---:|')
    for (const w of windows) {
      const floor = find('floor', w.events, w.dense ?? 0)
      const plainRow = find('plainOpen', w.events, w.dense ?? 0)
      const open = find('open', w.events, w.dense ?? 0)
      const n = `${w.events.toLocaleString('en')}${w.label}`
      console.log(`| (a) parsed page: the history page \`JSON.parse\`d and kept (${mb(floor.pageChars)} of JSON) | ${n} | ${mb(floor.js)} | — | ${mb(floor.total)} | 1.00× | ${x(floor.total, plainRow.total)} |`)
      console.log(`| (b) plain-JS client: parsed events kept + ${plainRow.nodes} nodes | ${n} | ${mb(plainRow.js)} | — | ${mb(plainRow.total)} | ${x(plainRow.total, floor.total)} | 1.00× |`)
      console.log(
        `| (c) agent-session \`open()\` (${open.nodes} nodes; wasm memory ${mb(open.base.wasm)} → ${mb(open.after.wasm)}) | ${n} | ${mb(open.js)} | ${mb(open.wasm)} | **${mb(open.total)}** | **${x(open.total, floor.total)}** | **${x(open.total, plainRow.total)}** |`,
      )
    }
    const n = visitIds.length
    const per = (d) => ({ js: d.js / n, wasm: d.wasm / n, total: d.total / n })
    const vp = per(visit.plain)
    const va = per(visit.pkg)
    console.log(`| (d) visiting ${n} sessions of ${k(VISIT_EVENTS)} events, per visited session: plain-JS client (keeps every visited session) | ${VISIT_EVENTS.toLocaleString('en')} | ${kb(vp.js)} | — | ${kb(vp.total)} | — | 1.00× |`)
    console.log(`| (d) the same, agent-session (subscribe, open, unsubscribe; none watched at the end) | ${VISIT_EVENTS.toLocaleString('en')} | ${kb(va.js)} | ${kb(va.wasm)} | **${kb(va.total)}** | — | **${x(va.total, vp.total)}** |`)
    const dp = per(visit.densePlain)
    const da = per(visit.densePkg)
    console.log(`| (d) visiting ${n} node-dense sessions (${k(VISIT_EVENTS)} events, each its own node, each answered whole), per visited session: plain-JS client | ${VISIT_EVENTS.toLocaleString('en')} | ${kb(dp.js)} | — | ${kb(dp.total)} | — | 1.00× |`)
    console.log(`| (d) the same, agent-session (none watched at the end) | ${VISIT_EVENTS.toLocaleString('en')} | ${kb(da.js)} | ${kb(da.wasm)} | **${kb(da.total)}** | — | **${x(da.total, dp.total)}** |`)
    const rc = visit.reconnect
    console.log(`| (e) one reconnect after the visits (1 of ${n} visited sessions watched again): \`session.history\` calls | — | — | — | **${rc.calls} calls** (${rc.sessions} sessions, ${rc.ms.toFixed(0)} ms) | — | (goal ≤ 1) |`)
    const mm = (xs) => `${mb(Math.min(...xs))} / ${mb(Math.max(...xs))} / ${mb(xs[xs.length - 1])}`
    console.log(
      `| (f) ${RECONNECTS} reconnects of one watched ${k(WATCHED)}-event session, over the page before its open (open alone: ${mb(watchedBase.open.total)}): min / max / last | ${WATCHED.toLocaleString('en')} | ${mm(plateau.js)} | ${mm(plateau.wasm)} | **${mm(plateau.total)}** | — | — |`,
    )
    const big100 = find('open', BIG)
    console.log('')
    for (const w of windows.slice(1)) {
      const o = find('open', w.events, w.dense ?? 0)
      console.log(
        `open stages (wasm memory length, ${k(w.events)} window${w.label}): ${mb(o.initWasm)} after init + connect (${o.memories} WebAssembly.Memory), ${mb(o.before)} before open(), ${mb(o.opened)} once open() resolved, ${mb(o.exported)} after the first snapshot (its ${o.nodes} nodes as JSON: ${mb(o.nodesJsonChars)})`,
      )
    }
    const sorted = [...plateau.ms].sort((a, b) => a - b)
    console.log(`reconnects: ${plateau.calls} history calls in ${RECONNECTS} reconnects of the watched session; drop-streams → established → resynced and quiet: median ${sorted[sorted.length >> 1]?.toFixed(0)} ms`)
    const note = (dense, what) => {
      const o = find('open', BIG, dense)
      return o ? ` (${what} ${x(o.total, find('floor', BIG, dense).total)} / ${x(o.total, find('plainOpen', BIG, dense).total)})` : ''
    }
    const denseNote = note(40, 'dense messages') + note(2, 'every event its own node')
    const summary = `open ${k(BIG)} ${x(big100.total, find('floor', BIG).total)} the parsed page (${x(big100.total, find('plainOpen', BIG).total)} plain-JS)${denseNote}, ${kb(va.total)} per visited session (plain-JS ${kb(vp.total)}; node-dense ${kb(da.total)}, plain-JS ${kb(dp.total)}), ${rc.calls} history calls on one reconnect, reconnect plateau ≤ ${mb(Math.max(...plateau.total))}`
    return { rows, visit, plateau, summary }
  } finally {
    await browser.close().catch(() => {})
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.env.E2E_SKIP_PREPARE !== '1') prepare()
  const dir = tempDir('agent-session-bench-memory-')
  let host
  let code = 0
  try {
    host = await startHost({ db: join(dir, 'bench.sqlite'), staticDir: PAGES_DIST, chunkDelayMs: 0, faults: true })
    const small = (await admin(host.url, { command: 'seed', events: 1000, messageEvery: 1000 })).results[0].sessionId
    const big = (await admin(host.url, { command: 'seed', events: BIG, messageEvery: 1000 })).results[0].sessionId
    const dense = (await admin(host.url, { command: 'seed', events: BIG, messageEvery: 40 })).results[0].sessionId
    const nodeDense = (await admin(host.url, { command: 'seed', events: BIG, messageEvery: 2 })).results[0].sessionId
    const { summary } = await memoryBench(host.url, { small, big, dense, nodeDense })
    console.log('')
    console.log(`bench-memory: ${summary}`)
  } catch (e) {
    console.error(e)
    console.log('bench-memory: FAILED')
    code = 1
  } finally {
    await killHost(host)
    cleanup(dir)
  }
  process.exit(code)
}
