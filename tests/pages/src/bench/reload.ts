// The reload benchmark (window.runReload, driven by scripts/bench-browser.mjs after the other
// two: the first HostClient with `cache` loads cache.js, which wraps `Session.prototype.open`
// and `getSnapshot` for the rest of the page's life): a session seen before opened again by a
// fresh HostClient with `cache: true` and without the option, the time from `open()` to the
// first snapshot with nodes. The history answers are served as in the open rows (shared.ts).
import init from 'agent-session'
import { freshHost, median, pause, prime, served, storeOnReplay, tap } from './shared'
import { CACHE_DB } from '../cache-db'

/** A reload of a session seen before: its window written to the local cache by one HostClient
 *  with `cache: true`, then opened by a fresh one (cache on) or by one without the option
 *  (cache off). The history answers are served as in the open rows. */
export interface ReloadCase {
  label: string
  sessionId: string
  /** Serve the whole log as one tail response, as the open rows' `assemble`. */
  assemble?: boolean
  repeats?: number
  /** Also time reloads 200 ms after the first close() of a client that wrote nothing before. */
  afterClose?: boolean
}
export interface ReloadConfig {
  cases: ReloadCase[]
  repeats: number
  /** The loopback replay server (scripts/bench-replay.mjs), for the "over loopback" rows. */
  replayUrl?: string
}

/** cache.js's database and its key of a session (`${baseUrl}\n${sessionId}`). */
const cacheKey = (sessionId: string) => `${location.origin.replace(/\/+$/, '')}\n${sessionId}`
let cacheDb: Promise<IDBDatabase> | null = null

/** The bench's own connection to the cache's database, opened only after cache.js made it
 *  (`clearCache()`): at its version, and an upgrade (no such database) is refused, never done here. */
function cacheDatabase(): Promise<IDBDatabase> {
  if (!cacheDb) {
    cacheDb = new Promise<IDBDatabase>((ok, fail) => {
      const req = indexedDB.open(CACHE_DB)
      req.onupgradeneeded = () => req.transaction!.abort()
      req.onsuccess = () => {
        const d = req.result
        d.onversionchange = () => {
          d.close()
          cacheDb = null
        }
        ok(d)
      }
      req.onerror = () => fail(new Error(`the bench could not open ${CACHE_DB}: ${req.error?.message}`))
    })
    cacheDb.catch(() => (cacheDb = null))
  }
  return cacheDb
}

/** The stored entry of `sessionId` (its tail, how many nodes its chunks hold, whether they
 *  are all in), read in a transaction created after every write already begun (IndexedDB runs
 *  it after them), so it also waits for a flush in flight. */
async function storedEntry(sessionId: string): Promise<{ tailSeq: number; nodes: number; whole: boolean } | undefined> {
  const d = await cacheDatabase()
  return new Promise((ok, fail) => {
    const t = d.transaction(['meta', 'entries'], 'readonly')
    const head = t.objectStore('entries').get(cacheKey(sessionId))
    const meta = t.objectStore('meta').get(cacheKey(sessionId))
    t.oncomplete = () => {
      const e = head.result as { tailSeq: number; nodes: unknown[] } | undefined
      const m = meta.result as { n: number; from: number } | undefined
      ok(e && m && { tailSeq: e.tailSeq, nodes: (m.n - 1) * 1000 + e.nodes.length, whole: m.from === 0 })
    }
    t.onerror = t.onabort = () => fail(t.error ?? new Error('the cache read aborted'))
  })
}

/** Waits (a task, then polling) until the entry of `sessionId` with `tailSeq` is stored. */
async function waitStored(sessionId: string, tailSeq: number) {
  const t0 = performance.now()
  for (;;) {
    await pause(0)
    const e = await storedEntry(sessionId)
    if (e && e.tailSeq === tailSeq && e.whole) return e
    if (performance.now() - t0 > 20_000) throw new Error(`no cache entry of ${sessionId} at tailSeq ${tailSeq} after 20 s (found ${e ? `tailSeq ${e.tailSeq}` : 'none'})`)
    await pause(10)
  }
}

/** "The session was seen": a HostClient with the cache on opens it, reads its snapshot (which
 *  queues the write) and closes (which flushes it); returns once the entry is stored. */
async function seenBefore(sessionId: string, events: number) {
  const host = await freshHost({ cache: true })
  const session = host.session(sessionId)
  await session.open()
  const snap = session.getSnapshot()
  host.close()
  if (snap.openState !== 'open' || snap.cached) throw new Error(`the seeding open ended in ${snap.openState} (cached ${snap.cached})`)
  if (snap.tailSeq - snap.baseSeq + 1 !== events) throw new Error(`the seeding open installed ${snap.tailSeq - snap.baseSeq + 1} events, expected ${events}`)
  const e = await waitStored(sessionId, snap.tailSeq)
  if (e.nodes !== snap.nodes.length) throw new Error(`the cache holds ${e.nodes} nodes, the window ${snap.nodes.length}`)
  return snap.nodes.length
}

/** A reload: a fresh HostClient (cache on or off) opens the session; the time from `open()` to
 *  the first snapshot with nodes, seen by a listener subscribed before `open()` that reads
 *  `getSnapshot()` on every notification (and once more when `open()` resolves). With `hold`,
 *  the history answer is held until that snapshot is seen (or 5 s passed): the host answering
 *  after the cache. Without it the served answer is there at once, and the package reads the
 *  in-memory body without yielding a task, so an IndexedDB read never finishes first. With
 *  `loopback` (the replay server's URL) the answer comes from there at once, its body over
 *  the network stack in 64 KB writes, as a host's: a race the cache may win. */
async function timeReload(sessionId: string, cache: boolean, hold = false, loopback: string | null = null, wholeAt = 0) {
  const host = await freshHost(cache ? { cache: true } : {})
  await pause(20)
  const session = host.session(sessionId)
  const seen: { first?: { ms: number; cached: boolean; nodes: readonly object[] }; whole?: number } = {}
  let t0 = 0
  let release = () => {}
  const check = () => {
    const s = session.getSnapshot()
    if (!seen.first && s.nodes.length > 0) {
      seen.first = { ms: performance.now() - t0, cached: s.cached, nodes: s.nodes }
      // With `wholeAt`, a held answer waits for the whole kept window's paint too (a window of
      // many chunks paints its newest chunk first).
      if (!wholeAt || !s.cached) release()
    }
    if (wholeAt && s.cached && seen.whole === undefined && s.nodes.length >= wholeAt) {
      seen.whole = performance.now() - t0
      release()
    }
  }
  let timer = 0
  if (hold) {
    // the history answer waits until a snapshot with nodes is seen (at most 5 s)
    tap.holdHistory = new Promise<void>((res) => (release = res))
    timer = window.setTimeout(release, 5000)
  }
  const off = session.subscribe(check)
  tap.replay = loopback
  t0 = performance.now()
  const opening = session.open()
  try {
    await opening
  } finally {
    clearTimeout(timer)
    tap.holdHistory = null
    tap.replay = null
  }
  check()
  off()
  const snap = session.getSnapshot()
  host.close()
  // the close's write (cache on: every chunk of it, when this page wrote the window whole) is
  // done before the next run starts
  if (cache) await waitStored(sessionId, snap.tailSeq)
  const first = seen.first
  if (!first) throw new Error('no snapshot with nodes')
  if (snap.openState !== 'open' || snap.cached) throw new Error(`the reload ended in ${snap.openState} (cached ${snap.cached})`)
  const paint = new Set(first.cached ? first.nodes : [])
  return {
    ...first,
    painted: first.nodes.length,
    wholeMs: seen.whole,
    tailSeq: snap.tailSeq,
    events: snap.tailSeq - snap.baseSeq + 1,
    nodes: snap.nodes.length,
    // the cached paint's objects the host-confirmed window kept
    kept: snap.nodes.filter((n) => paint.has(n)).length,
  }
}

async function reloadCase(c: ReloadCase, repeats: number, replayUrl?: string) {
  const primed = await prime(c.sessionId, !!c.assemble)
  if (replayUrl) await storeOnReplay(replayUrl)
  const clear = async () => {
    const h = await freshHost()
    try {
      await h.clearCache()
    } finally {
      h.close()
    }
  }
  try {
    await clear()
    const nodes = await seenBefore(c.sessionId, primed.events)
    // warm-up of both paths
    await timeReload(c.sessionId, false)
    await timeReload(c.sessionId, true)
    await timeReload(c.sessionId, true, true)
    if (replayUrl) await timeReload(c.sessionId, true, false, replayUrl)
    if (replayUrl) await timeReload(c.sessionId, false, false, replayUrl)
    const off: number[] = []
    const wire: number[] = []
    const wireOff: number[] = []
    let wirePaints = 0
    const on: number[] = []
    const held: number[] = []
    const kept: number[] = []
    const wholeHeld: number[] = []
    let paints = 0
    let heldPaints = 0
    for (let r = 0; r < repeats; r++) {
      const runOff = async () => {
        const t = await timeReload(c.sessionId, false)
        if (t.cached) throw new Error('a snapshot painted from the cache with the cache off')
        if (t.events !== primed.events || t.nodes !== nodes) throw new Error(`a cache-off reload showed ${t.events} events / ${t.nodes} nodes, expected ${primed.events} / ${nodes}`)
        off.push(t.ms)
      }
      const runOn = async () => {
        const t = await timeReload(c.sessionId, true)
        if (t.events !== primed.events || t.nodes !== nodes) throw new Error(`a cache-on reload showed ${t.events} events / ${t.nodes} nodes once confirmed, expected ${primed.events} / ${nodes}`)
        on.push(t.ms)
        if (t.cached) {
          paints++
          kept.push(t.kept)
        }
      }
      const runHeld = async () => {
        const t = await timeReload(c.sessionId, true, true, null, nodes > 1000 ? nodes : 0)
        if (t.wholeMs !== undefined) wholeHeld.push(t.wholeMs)
        if (t.events !== primed.events || t.nodes !== nodes) throw new Error(`a held cache-on reload showed ${t.events} events / ${t.nodes} nodes once confirmed, expected ${primed.events} / ${nodes}`)
        held.push(t.ms)
        if (t.cached) {
          heldPaints++
          kept.push(t.kept)
        }
      }
      const runWire = async () => {
        const t = await timeReload(c.sessionId, true, false, replayUrl!)
        if (t.events !== primed.events || t.nodes !== nodes) throw new Error(`a cache-on reload over loopback showed ${t.events} events / ${t.nodes} nodes once confirmed, expected ${primed.events} / ${nodes}`)
        wire.push(t.ms)
        if (t.cached) {
          wirePaints++
          kept.push(t.kept)
        }
      }
      const runWireOff = async () => {
        const t = await timeReload(c.sessionId, false, false, replayUrl!)
        if (t.cached) throw new Error('a snapshot painted from the cache with the cache off')
        if (t.events !== primed.events || t.nodes !== nodes) throw new Error(`a cache-off reload over loopback showed ${t.events} events / ${t.nodes} nodes, expected ${primed.events} / ${nodes}`)
        wireOff.push(t.ms)
      }
      const runs = replayUrl ? [runOff, runOn, runHeld, runWireOff, runWire] : [runOff, runOn, runHeld]
      // the order rotates, so no one of them always runs first
      for (const run of runs.map((_, i) => runs[(i + r) % runs.length]!)) {
        await run()
        await pause(30)
      }
    }
    // A reload 200 ms after the first close() of a client that had written nothing (its first
    // write is the close's): what it paints, held answer.
    const afterClose: { ms: number; cached: boolean; painted: number }[] = []
    for (let r = 0; c.afterClose && r < repeats; r++) {
      await clear()
      const h = await freshHost({ cache: true })
      const s = h.session(c.sessionId)
      await s.open()
      s.getSnapshot()
      h.close()
      await pause(200)
      const t = await timeReload(c.sessionId, true, true)
      afterClose.push({ ms: t.ms, cached: t.cached, painted: t.painted })
    }
    return {
      kind: 'reload',
      afterClose,
      wholeHeldMs: wholeHeld.length ? median(wholeHeld) : undefined,
      label: c.label,
      repeats,
      events: primed.events,
      nodes,
      offMs: median(off),
      onMs: median(on),
      cachedPaints: paints,
      heldMs: median(held),
      heldPaints,
      loopbackMs: wire.length ? median(wire) : undefined,
      loopbackOffMs: wireOff.length ? median(wireOff) : undefined,
      loopbackPaints: wirePaints,
      keptNodes: kept.length ? Math.min(...kept) : 0,
      offSamples: off,
      onSamples: on,
      heldSamples: held,
      loopbackSamples: wire,
      loopbackOffSamples: wireOff,
    }
  } finally {
    await clear()
    served.clear()
  }
}

export async function runReload(cfg: ReloadConfig) {
  await init()
  const out = []
  for (const c of cfg.cases) out.push(await reloadCase(c, c.repeats ?? cfg.repeats, cfg.replayUrl))
  if (tap.servedMisses) throw new Error(`${tap.servedMisses} history request(s) were not among the primed pages`)
  return out
}
