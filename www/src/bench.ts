// Browser benchmark page (driven by scripts/bench-browser.mjs; not part of the demo UI).
//
// The per-frame cost of ingesting a burst of streamed mux frames — bytes in, one snapshot
// published to one subscriber — next to a raw reader doing only fetch-stream + JSON.parse of
// the very same bytes, in the same page and run. The mux stream is the real one from the host;
// the bench splices its synthetic burst into that stream (a fetch wrapper installed before the
// HostClient starts), so the package runs its ordinary transport + ingest path.
import { fold, type HistoryItem } from './plain-client'
import init, { HostClient, type Session } from 'agent-session'

type Inject = (bytes: Uint8Array) => void
let inject: Inject | null = null

// Open/paging part: `session.history` request bodies are recorded while `historyLog` is set
// (so the floors replay the very same requests), and a request found in `served` (keyed by
// sessionId + beforeSeq) is answered in the page with its response text, fetched once from the
// host beforehand (`prime`). Package and floor go through this same fetch, so both see the
// same bytes at the same cost and the host's own serving time (a debug build in `npm test`)
// stays out of both.
let historyLog: string[] | null = null
const served = new Map<string, { prefix: string; suffix: string }>()
let servedMisses = 0
/** When set, the `served` answers come from the bench's loopback replay server
 *  (scripts/bench-replay.mjs) instead of a `Response` built in the page. */
let replay: string | null = null
/** When set, a served answer waits for it (the reload rows' "host answers after the cache"). */
let holdHistory: Promise<void> | null = null
const servedKey = (sessionId: string, beforeSeq?: number) => `${sessionId}|${beforeSeq ?? 'tail'}`

const realFetch = window.fetch.bind(window)
window.fetch = async (input: RequestInfo | URL, initArg?: RequestInit): Promise<Response> => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  if (url.endsWith('/api/session.history') && typeof initArg?.body === 'string') {
    const body = initArg.body
    historyLog?.push(body)
    if (served.size) {
      const req = JSON.parse(body) as { rpcId: string; payload: { sessionId: string; beforeSeq?: number } }
      const o = served.get(servedKey(req.payload.sessionId, req.payload.beforeSeq))
      if (o && holdHistory) await holdHistory
      if (!o) servedMisses++
      else if (replay) {
        return realFetch(`${replay}/replay`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: `${servedKey(req.payload.sessionId, req.payload.beforeSeq)}\n${req.rpcId}`,
          signal: initArg.signal,
          cache: 'no-store',
        })
      } else {
        return new Response(o.prefix + JSON.stringify(req.rpcId) + o.suffix, {
          status: 200,
          headers: { 'content-type': 'application/json' },
        })
      }
    }
  }
  const res = await realFetch(input, initArg)
  if (!url.endsWith('/api/events.mux') || !res.body) return res
  const upstream = res.body.getReader()
  let ctl!: ReadableStreamDefaultController<Uint8Array>
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      ctl = c
      inject = (bytes) => c.enqueue(bytes)
    },
    async pull(c) {
      const { done, value } = await upstream.read()
      if (done) c.close()
      else c.enqueue(value)
    },
    cancel(reason) {
      void upstream.cancel(reason)
    },
  })
  void ctl
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
}

const enc = new TextEncoder()

/** A burst of `n` frames continuing the session's log after `tail`: one whole streamed turn. */
function burst(sessionId: string, tail: number, n: number, turn: number): { bytes: Uint8Array<ArrayBuffer>; last: number } {
  const parts: string[] = []
  let seq = tail
  const t = Date.now()
  const frame = (type: string, data: unknown, extra: Record<string, unknown> = {}) => {
    seq++
    const payload = { type: 'session/event', sessionId, event: { type, seq, time: t, data, ...extra } }
    parts.push(`data: ${JSON.stringify({ type: 'server-request', rpcId: `bench-${seq}`, method: 'session/event', payload })}\n\n`)
  }
  const deltas = Math.max(1, n - 6)
  frame('turn/start', { turn, trigger: { kind: 'message', source: { kind: 'user', rpcId: 'bench' } } })
  frame('step/start', { turn, step: 1 })
  frame('assistant/chunk', { turn, step: 1, chunk: { type: 'block-start', index: 0, blockType: 'text' } })
  let text = ''
  for (let i = 0; i < deltas; i++) {
    const d = ` word${i % 97}`
    text += d
    frame('assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: d } })
  }
  frame('assistant/message', { turn, step: 1, content: [{ type: 'text', text }], provenance: { provider: 'bench', model: 'bench' } })
  frame('step/end', { turn, step: 1 })
  frame('turn/end', { turn, reason: { kind: 'completed' } })
  return { bytes: enc.encode(parts.join('')), last: seq }
}

/** The baseline: a fetch-style body stream read to the end, split into frames, JSON.parse each. */
async function rawRead(bytes: Uint8Array): Promise<number> {
  const reader = new Response(bytes as Uint8Array<ArrayBuffer>).body!.getReader()
  const dec = new TextDecoder()
  let buf = ''
  let frames = 0
  let sink = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    buf += dec.decode(value, { stream: true })
    let i: number
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i)
      buf = buf.slice(i + 2)
      if (block.startsWith('data: ')) {
        const v = JSON.parse(block.slice(6)) as { payload: { event: { seq: number } } }
        sink += v.payload.event.seq
        frames++
      }
    }
  }
  if (sink < 0) console.log(sink)
  return frames
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

function waitFor(session: Session, pred: () => boolean): Promise<number> {
  return new Promise((resolve) => {
    if (pred()) return resolve(performance.now())
    const off = session.subscribe(() => {
      if (pred()) {
        const t = performance.now()
        off()
        resolve(t)
      }
    })
  })
}

async function connected(host: HostClient): Promise<void> {
  if (host.getSnapshot().state === 'open') return
  await new Promise<void>((resolve) => {
    const off = host.subscribe(() => {
      if (host.getSnapshot().state === 'open') {
        off()
        resolve()
      }
    })
  })
}

export interface BenchCase {
  label: string
  sessionId: string
  /** Load older pages until the window holds at least this many events. */
  window: number
}
export interface BenchConfig {
  cases: BenchCase[]
  frames: number
  repeats: number
  warmup: number
}

async function run(cfg: BenchConfig) {
  await init()
  // SSE: the burst is spliced into the fetch-streamed mux, and the raw baseline reads SSE too.
  const host = new HostClient({ baseUrl: location.origin, transport: 'sse' })
  await connected(host)
  const out = []
  let turn = 100_000
  // Open every window first, then interleave the cases burst by burst, so JIT warm-up and
  // machine noise fall on all of them alike.
  const states = []
  for (const c of cfg.cases) {
    const session = host.session(c.sessionId)
    const tOpen = performance.now()
    await session.open()
    let snap = session.getSnapshot()
    while (snap.hasMore && snap.tailSeq - snap.baseSeq + 1 < c.window) {
      await session.loadOlder()
      const next = session.getSnapshot()
      if (next.baseSeq === snap.baseSeq) break
      snap = next
    }
    snap = session.getSnapshot()
    const st = {
      c,
      session,
      loadMs: performance.now() - tOpen,
      windowEvents: snap.tailSeq - snap.baseSeq + 1,
      notifications: 0,
      off: () => {},
      ingest: [] as number[],
      raw: [] as number[],
      perBurst: [] as number[],
    }
    // one subscriber, as a UI would have
    st.off = session.subscribe(() => {
      st.notifications++
      session.getSnapshot()
    })
    states.push(st)
  }
  for (let r = 0; r < cfg.warmup + cfg.repeats; r++) {
    for (const st of states) {
      const { session, c } = st
      const tail = session.getSnapshot().tailSeq
      const b = burst(c.sessionId, tail, cfg.frames, ++turn)
      const frames = b.last - tail
      // raw reader and ingest alternate which goes first
      const doRaw = async () => {
        const t0 = performance.now()
        const n = await rawRead(b.bytes)
        const dt = performance.now() - t0
        if (n !== frames) throw new Error(`raw reader saw ${n} frames, expected ${frames}`)
        return dt
      }
      const doIngest = async () => {
        const before = st.notifications
        const t0 = performance.now()
        const done = waitFor(session, () => session.getSnapshot().tailSeq >= b.last)
        inject!(b.bytes)
        const t1 = await done
        // let any trailing notification land before counting
        await new Promise((res) => setTimeout(res, 0))
        st.perBurst.push(st.notifications - before)
        return t1 - t0
      }
      let ri: number, rr: number
      if (r % 2 === 0) {
        rr = await doRaw()
        ri = await doIngest()
      } else {
        ri = await doIngest()
        rr = await doRaw()
      }
      if (r >= cfg.warmup) {
        st.ingest.push((ri * 1000) / frames)
        st.raw.push((rr * 1000) / frames)
      }
      await new Promise((res) => setTimeout(res, 20))
    }
  }
  for (const st of states) {
    st.off()
    const final = st.session.getSnapshot()
    out.push({
      label: st.c.label,
      windowEvents: st.windowEvents,
      windowAfter: final.tailSeq - final.baseSeq + 1,
      nodes: final.nodes.length,
      loadMs: st.loadMs,
      frames: cfg.frames,
      bytes: burst(st.c.sessionId, 0, cfg.frames, 1).bytes.length,
      ingestUsPerFrame: median(st.ingest),
      rawUsPerFrame: median(st.raw),
      ingestSamples: st.ingest,
      rawSamples: st.raw,
      notificationsPerBurst: Math.max(...st.perBurst),
    })
  }
  // Breakdown: the same bursts addressed to a session nobody opened. The package reads, splits
  // and parses every frame (envelope level) and drops it at the router, so this isolates the
  // transport + parse share of the ingest cost (completion seen through host.diagnostics()).
  const diag = () => (host as unknown as { diagnostics?: () => { frames: number } }).diagnostics?.()
  if (diag()) {
    const ch = new MessageChannel()
    const yieldTask = () => new Promise<void>((res) => { ch.port1.onmessage = () => res(); ch.port2.postMessage(0) })
    const parse: number[] = []
    for (let r = 0; r < cfg.warmup + cfg.repeats; r++) {
      const b = burst('session-bench-unrouted', 0, cfg.frames, 1)
      const before = diag()!.frames
      const t0 = performance.now()
      inject!(b.bytes)
      while (diag()!.frames - before < cfg.frames) await yieldTask()
      const dt = performance.now() - t0
      if (r >= cfg.warmup) parse.push((dt * 1000) / cfg.frames)
      await new Promise((res) => setTimeout(res, 20))
    }
    out.push({ label: 'transport + parse only (unrouted session)', parseUsPerFrame: median(parse), parseSamples: parse })
  }
  host.close()
  return out
}

// ---- open and paging -------------------------------------------------------------------------

export interface OpenCase {
  label: string
  sessionId: string
  /** Serve the whole log as one tail response (built in the page from the host's pages). */
  assemble?: boolean
  /** Overrides the config's repeats (small, noisy cases take more). */
  repeats?: number
  /** Serve the answers from the loopback replay server (a body streamed over the network
   *  stack) instead of from the page. */
  loopback?: boolean
}
export interface PagingCase {
  label: string
  sessionId: string
  repeats?: number
}
/** A reload of a session seen before: its window written to the local cache by one HostClient
 *  with `cache: true`, then opened by a fresh one (cache on) or by one without the option
 *  (cache off). The history answers are served as in the open rows. */
export interface ReloadCase {
  label: string
  sessionId: string
  /** Serve the whole log as one tail response, as the open rows' `assemble`. */
  assemble?: boolean
  repeats?: number
}
export interface OpenPagingConfig {
  open: OpenCase[]
  paging: PagingCase[]
  /** Run after the other rows: the first HostClient with `cache` loads cache.js, which wraps
   *  `Session.prototype.open`/`getSnapshot` for the rest of the page's life. */
  reload?: ReloadCase[]
  openRepeats: number
  pagingRepeats: number
  reloadRepeats?: number
  /** The loopback replay server (scripts/bench-replay.mjs), for the `loopback` cases. */
  replayUrl?: string
}

type HistoryResponse = {
  rpcId: string
  result: { ok: boolean; value: { events: { event: { seq: number } }[]; hasMore: boolean } }
}

const pause = (ms: number) => new Promise((res) => setTimeout(res, ms))

/** A fresh, connected HostClient (default transport). */
async function freshHost(options: { cache?: boolean } = {}): Promise<HostClient> {
  const host = new HostClient({ baseUrl: location.origin, ...options })
  await connected(host)
  return host
}

/** One `fetch` of a recorded `session.history` request + `JSON.parse` of the text. */
async function fetchPage(body: string): Promise<HistoryResponse> {
  const res = await window.fetch('/api/session.history', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    cache: 'no-store',
  })
  const v = JSON.parse(await res.text()) as HistoryResponse
  if (!v.result?.ok) throw new Error(`history failed: ${JSON.stringify(v).slice(0, 300)}`)
  return v
}

/** The plain-JS client of the memory bench (www/src/plain-client.ts) opening the same page:
 *  the floor's fetch + `JSON.parse`, then its fold of the events into nodes. */
async function plainOpen(body: string): Promise<number> {
  const events = (await fetchPage(body)).result.value.events as unknown as HistoryItem[]
  const { nodes } = fold(events)
  if (nodes.length === 0 && events.length > 0) throw new Error('the plain fold made no nodes')
  return events.length
}

/** The floor: one `fetch` of a recorded `session.history` request + `JSON.parse` of the text. */
async function fetchParse(body: string): Promise<number> {
  return (await fetchPage(body)).result.value.events.length
}

/** Fetches the session's history pages from the host (tail, then older pages back to seq 0,
 *  as the package asks for them) and serves them from the page from now on. With `assemble`,
 *  the tail response holds the whole log (the host's pages, each capped at MAX_PAGE_EVENTS,
 *  joined; hasMore false). Returns the host-served time of the tail fetch + JSON.parse. */
async function prime(sessionId: string, assemble: boolean): Promise<{ hostTailMs: number; events: number }> {
  const mark = 'BENCH-RPCID-PLACEHOLDER'
  const ask = async (beforeSeq?: number) => {
    const body = JSON.stringify({ type: 'client-request', rpcId: mark, method: 'session.history', payload: { sessionId, beforeSeq } })
    const res = await realFetch('/api/session.history', { method: 'POST', headers: { 'content-type': 'application/json' }, body, cache: 'no-store' })
    const text = await res.text()
    const v = JSON.parse(text) as HistoryResponse
    if (!v.result?.ok) throw new Error(`history failed: ${text.slice(0, 300)}`)
    return { text, v }
  }
  const split = (text: string) => {
    const at = text.indexOf(JSON.stringify(mark))
    if (at < 0) throw new Error('no rpcId in the history response')
    return { prefix: text.slice(0, at), suffix: text.slice(at + mark.length + 2) }
  }
  const t0 = performance.now()
  const tail = await ask()
  const hostTailMs = performance.now() - t0
  const pages = [tail]
  let before = tail.v.result.value.events[0]?.event.seq
  let more = tail.v.result.value.hasMore
  while (more && before !== undefined) {
    const page = await ask(before)
    pages.push(page)
    if (!assemble) served.set(servedKey(sessionId, before), split(page.text))
    before = page.v.result.value.events[0]?.event.seq
    more = page.v.result.value.hasMore
  }
  if (assemble) {
    const whole = tail.v
    whole.result.value.events = pages.reverse().flatMap((p) => p.v.result.value.events)
    whole.result.value.hasMore = false
    served.set(servedKey(sessionId), split(JSON.stringify(whole)))
    return { hostTailMs, events: whole.result.value.events.length }
  }
  served.set(servedKey(sessionId), split(tail.text))
  return { hostTailMs, events: tail.v.result.value.events.length }
}

/** `session.open()` on a fresh HostClient: ms until the promise resolves, and until the first
 *  snapshot after it is in hand. */
async function timeOpen(sessionId: string) {
  const host = await freshHost()
  await pause(20)
  const session = host.session(sessionId)
  historyLog = []
  const t0 = performance.now()
  await session.open()
  const t1 = performance.now()
  const snap = session.getSnapshot()
  const t2 = performance.now()
  const body = historyLog[0]
  historyLog = null
  if (snap.openState !== 'open') throw new Error(`open ended in ${snap.openState}: ${JSON.stringify(snap.openError)}`)
  const events = snap.tailSeq - snap.baseSeq + 1
  host.close()
  return { openMs: t1 - t0, snapshotMs: t2 - t0, events, nodes: snap.nodes.length, body }
}

/** `loadOlder()` from the tail window back to seq 0, one long turn across every page boundary. */
async function timePaging(sessionId: string) {
  const host = await freshHost()
  const session = host.session(sessionId)
  await session.open()
  let snap = session.getSnapshot()
  const tailEvents = snap.tailSeq - snap.baseSeq + 1
  await pause(20)
  const log: string[] = []
  historyLog = log
  const t0 = performance.now()
  while (snap.hasMore) {
    await session.loadOlder()
    const next = session.getSnapshot()
    if (next.baseSeq >= snap.baseSeq) throw new Error(`loadOlder made no progress at baseSeq ${snap.baseSeq}`)
    snap = next
  }
  const ms = performance.now() - t0
  historyLog = null
  host.close()
  if (snap.baseSeq !== 0) throw new Error(`paging stopped at baseSeq ${snap.baseSeq}`)
  return { ms, bodies: log, tailEvents, events: snap.tailSeq + 1, olderEvents: snap.tailSeq + 1 - tailEvents, nodes: snap.nodes.length }
}

// ---- reload with the local cache on and off ----------------------------------------------------

/** cache.js's database and its key of a session (`${baseUrl}\n${sessionId}`). */
const CACHE_DB = 'agent-session-cache'
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

/** The stored entry of `sessionId`, read in a transaction created after every write already
 *  begun (IndexedDB runs it after them), so it also waits for a flush in flight. */
async function storedEntry(sessionId: string): Promise<{ tailSeq: number; nodes: unknown[] } | undefined> {
  const d = await cacheDatabase()
  return new Promise((ok, fail) => {
    const t = d.transaction(['meta', 'entries'], 'readonly')
    const req = t.objectStore('entries').get(cacheKey(sessionId))
    t.oncomplete = () => ok(req.result as { tailSeq: number; nodes: unknown[] } | undefined)
    t.onerror = t.onabort = () => fail(t.error ?? new Error('the cache read aborted'))
  })
}

/** Waits (a task, then polling) until the entry of `sessionId` with `tailSeq` is stored. */
async function waitStored(sessionId: string, tailSeq: number) {
  const t0 = performance.now()
  for (;;) {
    await pause(0)
    const e = await storedEntry(sessionId)
    if (e && e.tailSeq === tailSeq) return e
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
  if (e.nodes.length !== snap.nodes.length) throw new Error(`the cache holds ${e.nodes.length} nodes, the window ${snap.nodes.length}`)
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
async function timeReload(sessionId: string, cache: boolean, hold = false, loopback: string | null = null) {
  const host = await freshHost(cache ? { cache: true } : {})
  await pause(20)
  const session = host.session(sessionId)
  const seen: { first?: { ms: number; cached: boolean; nodes: readonly object[] } } = {}
  let t0 = 0
  let release = () => {}
  const check = () => {
    if (seen.first) return
    const s = session.getSnapshot()
    if (s.nodes.length > 0) {
      seen.first = { ms: performance.now() - t0, cached: s.cached, nodes: s.nodes }
      release()
    }
  }
  let timer = 0
  if (hold) {
    // the history answer waits until a snapshot with nodes is seen (at most 5 s)
    holdHistory = new Promise<void>((res) => (release = res))
    timer = window.setTimeout(release, 5000)
  }
  const off = session.subscribe(check)
  replay = loopback
  t0 = performance.now()
  const opening = session.open()
  try {
    await opening
  } finally {
    clearTimeout(timer)
    holdHistory = null
    replay = null
  }
  check()
  off()
  const snap = session.getSnapshot()
  host.close()
  // the close's flush (cache on; its transaction is made within this task) is done before
  // the next run starts
  if (cache) {
    await pause(0)
    await storedEntry(sessionId)
  }
  const first = seen.first
  if (!first) throw new Error('no snapshot with nodes')
  if (snap.openState !== 'open' || snap.cached) throw new Error(`the reload ended in ${snap.openState} (cached ${snap.cached})`)
  const paint = new Set(first.cached ? first.nodes : [])
  return {
    ...first,
    events: snap.tailSeq - snap.baseSeq + 1,
    nodes: snap.nodes.length,
    // the cached paint's objects the host-confirmed window kept
    kept: snap.nodes.filter((n) => paint.has(n)).length,
  }
}

async function runReload(c: ReloadCase, repeats: number, replayUrl?: string) {
  const primed = await prime(c.sessionId, !!c.assemble)
  if (replayUrl) {
    for (const [key, o] of served) {
      const res = await realFetch(`${replayUrl}/store`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ key, ...o }) })
      if (!res.ok) throw new Error(`the replay server refused ${key}: HTTP ${res.status}`)
    }
  }
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
        const t = await timeReload(c.sessionId, true, true)
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
    return {
      kind: 'reload',
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

async function runOpenPaging(cfg: OpenPagingConfig) {
  await init()
  const out = []
  for (const c of cfg.open) {
    const primed = await prime(c.sessionId, !!c.assemble)
    if (c.loopback) {
      if (!cfg.replayUrl) throw new Error('a loopback case without a replay server')
      for (const [key, o] of served) {
        const res = await realFetch(`${cfg.replayUrl}/store`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ key, ...o }) })
        if (!res.ok) throw new Error(`the replay server refused ${key}: HTTP ${res.status}`)
      }
      replay = cfg.replayUrl
    }
    try {
      // warm-up (also records the package's own request, which the floor replays)
      const first = await timeOpen(c.sessionId)
      const body = first.body!
      const w = await fetchParse(body)
      await timeOpen(c.sessionId)
      const open: number[] = []
      const snapshot: number[] = []
      const floor: number[] = []
      const plain: number[] = []
      for (let r = 0; r < (c.repeats ?? cfg.openRepeats); r++) {
        const pkg = async () => {
          const t = await timeOpen(c.sessionId)
          if (t.events !== w) throw new Error(`open installed ${t.events} events, the page holds ${w}`)
          open.push(t.openMs)
          snapshot.push(t.snapshotMs)
        }
        const bare = async () => {
          const t0 = performance.now()
          const n = await fetchParse(body)
          floor.push(performance.now() - t0)
          if (n !== w) throw new Error(`floor saw ${n} events, expected ${w}`)
        }
        const js = async () => {
          const t0 = performance.now()
          const n = await plainOpen(body)
          plain.push(performance.now() - t0)
          if (n !== w) throw new Error(`the plain-JS client saw ${n} events, expected ${w}`)
        }
        // the order rotates, so no one of the three always runs first after a pause
        const order = [[bare, pkg, js], [pkg, js, bare], [js, bare, pkg]][r % 3] ?? []
        for (const run of order) {
          await run()
          await pause(30)
        }
      }
      out.push({
        kind: 'open',
        repeats: open.length,
        label: c.label,
        loopback: !!c.loopback,
        events: w,
        hostTailMs: c.assemble ? undefined : primed.hostTailMs,
        nodes: first.nodes,
        floorMs: median(floor),
        pkgMs: median(open),
        snapshotMs: median(snapshot),
        plainMs: median(plain),
        floorSamples: floor,
        pkgSamples: open,
        plainSamples: plain,
      })
    } finally {
      served.clear()
      replay = null
    }
  }
  for (const c of cfg.paging) {
    await prime(c.sessionId, false)
    const first = await timePaging(c.sessionId) // warm-up; records the older-page requests
    const bodies = first.bodies
    const pkg: number[] = []
    const floor: number[] = []
    for (let r = 0; r < (c.repeats ?? cfg.pagingRepeats); r++) {
      const runPkg = async () => {
        const t = await timePaging(c.sessionId)
        if (t.bodies.length !== bodies.length || t.events !== first.events) throw new Error('paging took a different path')
        pkg.push(t.ms)
      }
      const runFloor = async () => {
        const t0 = performance.now()
        let n = 0
        for (const b of bodies) n += await fetchParse(b)
        floor.push(performance.now() - t0)
        if (n !== first.olderEvents) throw new Error(`paging floor saw ${n} events, expected ${first.olderEvents}`)
      }
      if (r % 2 === 0) {
        await runFloor()
        await pause(30)
        await runPkg()
      } else {
        await runPkg()
        await pause(30)
        await runFloor()
      }
      await pause(30)
    }
    out.push({
      kind: 'paging',
      repeats: pkg.length,
      label: c.label,
      events: first.events,
      tailEvents: first.tailEvents,
      olderEvents: first.olderEvents,
      pages: bodies.length,
      nodes: first.nodes,
      floorMs: median(floor),
      pkgMs: median(pkg),
      floorSamples: floor,
      pkgSamples: pkg,
    })
    served.clear()
  }
  for (const c of cfg.reload ?? []) out.push(await runReload(c, c.repeats ?? cfg.reloadRepeats ?? cfg.openRepeats, cfg.replayUrl))
  if (servedMisses) throw new Error(`${servedMisses} history request(s) were not among the primed pages`)
  return out
}

;(window as unknown as { runBench: typeof run }).runBench = run
;(window as unknown as { runOpenPaging: typeof runOpenPaging }).runOpenPaging = runOpenPaging
document.getElementById('out')!.textContent = 'ready'
