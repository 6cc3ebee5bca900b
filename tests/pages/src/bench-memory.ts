// Memory bench page (driven by scripts/bench-memory.mjs; not part of the demo UI). Each scenario
// runs in a fresh page, so the package's wasm memory starts at its initial size; the driver
// forces GC (gc() with awaits between, then CDP's HeapProfiler.collectGarbage) and reads the JS
// heap over CDP, and this page reports the byte length of every WebAssembly.Memory it created
// (a wasm memory never shrinks: its length is the high-water mark the tab pays).
//
// `session.history` requests are counted here (one reconnect's re-fetches), and a primed
// session's tail request is answered in the page with the whole log as one response (the
// host caps a page at 10k events), for the floor, the plain-JS client and the package alike.
import init, { HostClient, type Session } from 'agent-session'
import { openPlain, type PlainSession } from './plain-client'

// ---- every WebAssembly.Memory this page instantiates ---------------------------------------------

const memories: WebAssembly.Memory[] = []
function collect(...objs: unknown[]) {
  for (const o of objs) {
    if (!o || typeof o !== 'object') continue
    for (const v of Object.values(o)) {
      if (v instanceof WebAssembly.Memory && !memories.includes(v)) memories.push(v)
      else if (v && typeof v === 'object' && !(v instanceof WebAssembly.Memory)) {
        // an import object's namespaces
        for (const w of Object.values(v)) if (w instanceof WebAssembly.Memory && !memories.includes(w)) memories.push(w)
      }
    }
  }
}
const instanceOf = (r: WebAssembly.Instance | WebAssembly.WebAssemblyInstantiatedSource) =>
  r instanceof WebAssembly.Instance ? r : r.instance
const realStreaming = WebAssembly.instantiateStreaming.bind(WebAssembly)
const realInstantiate = WebAssembly.instantiate.bind(WebAssembly) as (...a: unknown[]) => Promise<WebAssembly.Instance | WebAssembly.WebAssemblyInstantiatedSource>
WebAssembly.instantiateStreaming = async (source, imports) => {
  const r = await realStreaming(source, imports)
  collect(r.instance.exports, imports)
  return r
}
;(WebAssembly as { instantiate: unknown }).instantiate = async (source: unknown, imports?: WebAssembly.Imports) => {
  const r = await realInstantiate(source, imports)
  collect(instanceOf(r).exports, imports)
  return r
}
const wasmBytes = () => memories.reduce((n, m) => n + m.buffer.byteLength, 0)

// ---- session.history: counted, and a primed tail served in the page ------------------------------

const history = { calls: 0, sessions: new Set<string>(), inFlight: 0, lastAt: 0 }
// The primed sessions' whole logs, each served as its session's tail response.
const served = new Map<string, { prefix: string; suffix: string }>()
const realFetch = window.fetch.bind(window)
window.fetch = async (input: RequestInfo | URL, initArg?: RequestInit): Promise<Response> => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  if (!url.endsWith('/api/session.history') || typeof initArg?.body !== 'string') return realFetch(input, initArg)
  const req = JSON.parse(initArg.body) as { rpcId: string; payload: { sessionId: string; beforeSeq?: number } }
  history.calls++
  history.sessions.add(req.payload.sessionId)
  history.inFlight++
  history.lastAt = performance.now()
  try {
    const whole = served.get(req.payload.sessionId)
    if (whole && req.payload.beforeSeq === undefined) {
      return new Response(whole.prefix + JSON.stringify(req.rpcId) + whole.suffix, {
        status: 200,
        headers: { 'content-type': 'application/json' },
      })
    }
    return await realFetch(input, initArg)
  } finally {
    history.inFlight--
    history.lastAt = performance.now()
  }
}

type Page = { result: { ok: boolean; value: { events: { event: { seq: number } }[]; hasMore: boolean } } }

/** The session's whole log (the host's pages joined) served as its tail response from now on. */
async function prime(sessionId: string): Promise<{ events: number; chars: number }> {
  const mark = 'BENCH-RPCID-PLACEHOLDER'
  const ask = async (beforeSeq?: number) => {
    const body = JSON.stringify({ type: 'client-request', rpcId: mark, method: 'session.history', payload: { sessionId, beforeSeq } })
    const res = await realFetch('/api/session.history', { method: 'POST', headers: { 'content-type': 'application/json' }, body, cache: 'no-store' })
    const v = JSON.parse(await res.text()) as Page
    if (!v.result?.ok) throw new Error(`history failed: ${JSON.stringify(v).slice(0, 300)}`)
    return v
  }
  const tail = await ask()
  const pages = [tail]
  for (let p = tail; p.result.value.hasMore; ) {
    const before = p.result.value.events[0]?.event.seq
    if (before === undefined) break
    p = await ask(before)
    pages.push(p)
  }
  tail.result.value.events = pages.reverse().flatMap((p) => p.result.value.events)
  tail.result.value.hasMore = false
  const text = JSON.stringify(tail)
  const at = text.indexOf(JSON.stringify(mark))
  served.set(sessionId, { prefix: text.slice(0, at), suffix: text.slice(at + mark.length + 2) })
  return { events: tail.result.value.events.length, chars: text.length }
}

// ---- what each scenario keeps alive ---------------------------------------------------------------

/** What the page holds on purpose (as a UI holds its state), released by `drop()`. */
let kept: unknown[] = []
let host: HostClient | null = null
const plain = new Map<string, PlainSession>()
const watching: (() => void)[] = []

const pause = (ms: number) => new Promise((res) => setTimeout(res, ms))

async function connected(h: HostClient, after = -1): Promise<void> {
  const ok = () => h.getSnapshot().state === 'open' && h.getSnapshot().generation > after
  if (ok()) return
  await new Promise<void>((resolve) => {
    const off = h.subscribe(() => {
      if (ok()) {
        off()
        resolve()
      }
    })
  })
}

/** Until no history request has been in flight or started for `quietMs`. */
async function quiet(quietMs: number): Promise<void> {
  while (history.inFlight > 0 || performance.now() - history.lastAt < quietMs) await pause(20)
}

function mustOpen(s: Session) {
  const snap = s.getSnapshot()
  if (snap.openState !== 'open') throw new Error(`${s.sessionId}: open ended in ${snap.openState}: ${JSON.stringify(snap.openError)}`)
  return snap
}

const api = {
  wasmBytes,
  memories: () => memories.length,
  /** gc() `n` times with a turn of the event loop between (finalizers run in their own tasks). */
  async gcTurns(n: number) {
    const gc = (window as unknown as { gc?: () => void }).gc
    if (!gc) throw new Error('gc() is not exposed: launch Chromium with --js-flags=--expose-gc')
    for (let i = 0; i < n; i++) {
      gc()
      await pause(50)
    }
  },
  prime,
  drop() {
    kept = []
    plain.clear()
  },
  /** The floor: the history page fetched, `JSON.parse`d and kept. */
  async floor(sessionId: string) {
    const res = await window.fetch('/api/session.history', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'client-request', rpcId: 'floor', method: 'session.history', payload: { sessionId } }),
      cache: 'no-store',
    })
    const v = JSON.parse(await res.text()) as Page
    kept.push(v)
    return { events: v.result.value.events.length }
  },
  async plainOpen(sessionId: string) {
    const s = await openPlain(sessionId)
    plain.set(sessionId, s)
    return { events: s.events.length, nodes: s.nodes.length }
  },
  async plainVisit(ids: string[]) {
    for (const id of ids) plain.set(id, await openPlain(id))
    return { sessions: plain.size }
  },
  async connect(backoffMs?: number) {
    await init()
    host = new HostClient({ baseUrl: location.origin, ...(backoffMs ? { backoff: { baseMs: backoffMs, maxMs: 4 * backoffMs } } : {}) })
    await connected(host)
    return { wasm: wasmBytes(), memories: memories.length }
  },
  /** `session.open()`, the wasm memory's length before it, once it resolved (before any
   *  snapshot was taken) and after the first snapshot; the snapshot is kept, as a UI keeps it. */
  async open(sessionId: string) {
    const s = host!.session(sessionId)
    const before = wasmBytes()
    await s.open()
    const opened = wasmBytes()
    const snap = mustOpen(s)
    const exported = wasmBytes()
    kept.push(snap)
    return {
      before,
      opened,
      exported,
      events: snap.tailSeq - snap.baseSeq + 1,
      nodes: snap.nodes.length,
      nodesJsonChars: JSON.stringify(snap.nodes).length,
    }
  },
  /** Visits each session as a UI does: subscribe, open, shown until open, unsubscribe. */
  async visit(ids: string[]) {
    for (const id of ids) {
      const s = host!.session(id)
      const off = s.subscribe(() => void s.getSnapshot())
      await s.open()
      mustOpen(s)
      off()
    }
    return { visited: ids.length }
  },
  /** Subscribes to a session for good (it is on screen) and opens it. */
  async watch(sessionId: string) {
    const s = host!.session(sessionId)
    let last = s.getSnapshot()
    watching.push(s.subscribe(() => void (last = s.getSnapshot())))
    await s.open()
    last = mustOpen(s)
    kept.push(() => last)
    return { events: last.tailSeq - last.baseSeq + 1 }
  },
  /** Ends every stream (the host's drop-streams fault) and counts the `session.history` requests
   *  made until the next generation is established and no history request ran for `quietMs`. */
  async reconnect(quietMs: number) {
    await quiet(50)
    const gen = host!.getSnapshot().generation
    history.calls = 0
    history.sessions.clear()
    const t0 = performance.now()
    const r = await realFetch('/admin/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'drop-streams' }),
    })
    if (!r.ok) throw new Error(`drop-streams: HTTP ${r.status}`)
    await connected(host!, gen)
    history.lastAt = Math.max(history.lastAt, performance.now())
    await quiet(quietMs)
    return { calls: history.calls, sessions: history.sessions.size, ms: performance.now() - t0 - quietMs }
  },
}

;(window as unknown as { mem: typeof api }).mem = api
document.getElementById('out')!.textContent = 'ready'
