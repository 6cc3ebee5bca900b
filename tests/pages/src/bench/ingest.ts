// The ingest benchmark (window.runIngest, driven by scripts/bench-browser.mjs): the per-frame
// cost of ingesting a burst of streamed mux frames — bytes in, one snapshot published to one
// subscriber — next to a raw reader doing only fetch-stream + JSON.parse of the very same
// bytes, in the same page and run, with a 1k-event and a 100k-event window. The burst is
// spliced into the host's real mux stream through the page's fetch tap (shared.ts).
import init, { HostClient, type Session } from 'agent-session'
import { connected, median, tap } from './shared'

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

export async function runIngest(cfg: BenchConfig) {
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
        tap.inject!(b.bytes)
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
      tap.inject!(b.bytes)
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
