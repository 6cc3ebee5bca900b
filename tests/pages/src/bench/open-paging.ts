// The open and paging benchmarks (window.runOpenPaging, driven by scripts/bench-browser.mjs):
// `session.open()` of a tail page of W events on a fresh HostClient next to the open floor
// (one `fetch` of the same `session.history` request + `JSON.parse`) and next to the memory
// bench's plain-JS client; then `loadOlder()` back to seq 0 next to the paging floor. The
// history answers are served in the page (or by the loopback replay server) through the
// fetch tap (shared.ts), so package and floor read the same bytes at the same cost.
import init from 'agent-session'
import { fold, type HistoryItem } from '../plain-client'
import { freshHost, median, pause, prime, served, storeOnReplay, tap, type HistoryResponse } from './shared'

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
export interface OpenPagingConfig {
  open: OpenCase[]
  paging: PagingCase[]
  openRepeats: number
  pagingRepeats: number
  /** The loopback replay server (scripts/bench-replay.mjs), for the `loopback` cases. */
  replayUrl?: string
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

/** The plain-JS client of the memory bench (plain-client.ts) opening the same page:
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


/** `session.open()` on a fresh HostClient: ms until the promise resolves, and until the first
 *  snapshot after it is in hand. */
async function timeOpen(sessionId: string) {
  const host = await freshHost()
  await pause(20)
  const session = host.session(sessionId)
  tap.historyLog = []
  const t0 = performance.now()
  await session.open()
  const t1 = performance.now()
  const snap = session.getSnapshot()
  const t2 = performance.now()
  const body = tap.historyLog[0]
  tap.historyLog = null
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
  tap.historyLog = log
  const t0 = performance.now()
  while (snap.hasMore) {
    await session.loadOlder()
    const next = session.getSnapshot()
    if (next.baseSeq >= snap.baseSeq) throw new Error(`loadOlder made no progress at baseSeq ${snap.baseSeq}`)
    snap = next
  }
  const ms = performance.now() - t0
  tap.historyLog = null
  host.close()
  if (snap.baseSeq !== 0) throw new Error(`paging stopped at baseSeq ${snap.baseSeq}`)
  return { ms, bodies: log, tailEvents, events: snap.tailSeq + 1, olderEvents: snap.tailSeq + 1 - tailEvents, nodes: snap.nodes.length }
}

export async function runOpenPaging(cfg: OpenPagingConfig) {
  await init()
  const out = []
  for (const c of cfg.open) {
    const primed = await prime(c.sessionId, !!c.assemble)
    if (c.loopback) {
      if (!cfg.replayUrl) throw new Error('a loopback case without a replay server')
      await storeOnReplay(cfg.replayUrl)
      tap.replay = cfg.replayUrl
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
      tap.replay = null
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
  if (tap.servedMisses) throw new Error(`${tap.servedMisses} history request(s) were not among the primed pages`)
  return out
}
