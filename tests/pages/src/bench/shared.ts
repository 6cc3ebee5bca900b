// What the three browser benchmarks of bench.html share (scripts/bench-browser.mjs drives
// them): the page's fetch tap, installed on import before any HostClient starts, and the
// helpers more than one of them times with.
//
// The tap splices a benchmark's synthetic burst into the real mux stream from the host
// (`tap.inject`, ingest.ts), so the package runs its ordinary transport + ingest path; and it
// records and serves `session.history` requests for the open, paging and reload rows.
import { HostClient } from 'agent-session'

type Inject = (bytes: Uint8Array) => void

// History requests: `session.history` request bodies are recorded while `historyLog` is set
// (so the floors replay the very same requests), and a request found in `served` (keyed by
// sessionId + beforeSeq) is answered in the page with its response text, fetched once from the
// host beforehand (`prime`). Package and floor go through this same fetch, so both see the
// same bytes at the same cost and the host's own serving time (a debug build in `npm test`)
// stays out of both.
export const tap = {
  /** Enqueues bytes on the current mux stream, after what the host sent (set once it opened). */
  inject: null as Inject | null,
  historyLog: null as string[] | null,
  servedMisses: 0,
  /** When set, the `served` answers come from the bench's loopback replay server
   *  (scripts/bench-replay.mjs) instead of a `Response` built in the page. */
  replay: null as string | null,
  /** When set, a served answer waits for it (the reload rows' "host answers after the cache"). */
  holdHistory: null as Promise<void> | null,
}
export const served = new Map<string, { prefix: string; suffix: string }>()
const servedKey = (sessionId: string, beforeSeq?: number) => `${sessionId}|${beforeSeq ?? 'tail'}`

export const realFetch = window.fetch.bind(window)
window.fetch = async (input: RequestInfo | URL, initArg?: RequestInit): Promise<Response> => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  if (url.endsWith('/api/session.history') && typeof initArg?.body === 'string') {
    const body = initArg.body
    tap.historyLog?.push(body)
    if (served.size) {
      const req = JSON.parse(body) as { rpcId: string; payload: { sessionId: string; beforeSeq?: number } }
      const o = served.get(servedKey(req.payload.sessionId, req.payload.beforeSeq))
      if (o && tap.holdHistory) await tap.holdHistory
      if (!o) tap.servedMisses++
      else if (tap.replay) {
        return realFetch(`${tap.replay}/replay`, {
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
      tap.inject = (bytes) => c.enqueue(bytes)
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

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export const pause = (ms: number) => new Promise((res) => setTimeout(res, ms))

export async function connected(host: HostClient): Promise<void> {
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

/** A fresh, connected HostClient (default transport). */
export async function freshHost(options: { cache?: boolean } = {}): Promise<HostClient> {
  const host = new HostClient({ baseUrl: location.origin, ...options })
  await connected(host)
  return host
}

export type HistoryResponse = {
  rpcId: string
  result: { ok: boolean; value: { events: { event: { seq: number } }[]; hasMore: boolean } }
}

/** Fetches the session's history pages from the host (tail, then older pages back to seq 0,
 *  as the package asks for them) and serves them from the page from now on. With `assemble`,
 *  the tail response holds the whole log (the host's pages, each capped at MAX_PAGE_EVENTS,
 *  joined; hasMore false). Returns the host-served time of the tail fetch + JSON.parse. */
export async function prime(sessionId: string, assemble: boolean): Promise<{ hostTailMs: number; events: number }> {
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

/** Hands every `served` answer to the loopback replay server, for the rows served over it. */
export async function storeOnReplay(replayUrl: string) {
  for (const [key, o] of served) {
    const res = await realFetch(`${replayUrl}/store`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ key, ...o }) })
    if (!res.ok) throw new Error(`the replay server refused ${key}: HTTP ${res.status}`)
  }
}
