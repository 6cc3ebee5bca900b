// The local cache (docs/API.md "Local cache") in Chromium: the built package in a
// page (tests/pages/cache.html) that also reads and writes the cache's IndexedDB database directly.
// Each case runs in a browser context of its own (its own IndexedDB). The host holds the open's
// history response (`withhold`) where a case must see the cached paint before the host's
// window; reads and writes the test cannot observe through the package are waited for through
// the page's count of the package's IndexedDB transactions.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { admin, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { PAGES_DIST } from '../tests/support/pages.mjs'
import { launch } from '../tests/support/browser.mjs'
import { guardContext, guardPage } from '../tests/support/guard.mjs'

// cache.js writes a batch this long after the first getSnapshot() that queued it.
const BATCH_MS = 2000
// The stored format's version (cache.js `VERSION`): an entry of another one is ignored.
const FORMAT = 2

describe('local cache', () => {
  let dir, host, browser
  const contexts = []

  before(async () => {
    dir = tempDir()
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: PAGES_DIST, chunkDelayMs: 2, faults: true })
    // `gc()`: a write after a collection must still find what it wrote (the many-chunks case).
    browser = await launch({ exposeGc: true })
  })

  afterEach(async () => {
    // A failed case must not leave responses held for the next one.
    await admin(host.url, { command: 'clear' })
    for (const c of contexts.splice(0)) await c.close().catch(() => {})
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  /** A new session holding `events` synthetic events (a user and an assistant message every `messageEvery`). */
  async function seed(events, messageEvery = 10) {
    const r = await admin(host.url, { command: 'seed', events, messageEvery })
    return r.results[0].sessionId
  }

  /** Appends `events` to session `sessionId`'s log (silently unless `broadcast`); returns its last seq. */
  async function append(sessionId, events, { messageEvery = 10, broadcast = false } = {}) {
    const r = await admin(host.url, { command: 'seed', sessionId, events, messageEvery, broadcast })
    return r.results[0].lastSeq
  }

  /** A browser context of its own (closed after the case). */
  async function context() {
    const c = await browser.newContext()
    contexts.push(c)
    return c
  }

  /** A guarded page on the cache page in a new context (or in `ctx`, guarded by the caller). */
  async function cachePage(ctx) {
    const guarded = !ctx
    ctx ??= await context()
    const page = await ctx.newPage()
    page.setDefaultTimeout(30_000)
    const guard = guarded ? await guardPage(page) : null
    await page.goto(`${host.url}/cache.html`)
    await waitReady(page)
    return { page, guard }
  }

  const waitReady = (page) => page.waitForFunction(() => document.getElementById('out')?.textContent === 'ready')

  /** Opens `id` with the cache on (`cache` option), reads its snapshot and closes the client;
   *  resolves with that snapshot once the write has run (and, when `stored`, once the entry
   *  holds that snapshot). */
  function cacheOnce(page, id, cache = true, stored = true) {
    return page.evaluate(
      async ({ id, cache, stored }) => {
        const C = window.cachePage
        const h = new C.HostClient({ baseUrl: location.origin, cache })
        await C.ready(h)
        const s = h.session(id)
        await s.open()
        const snap = s.getSnapshot()
        const before = C.mark()
        h.close()
        await C.settledAfter(before, 'the write at close()')
        if (stored) {
          await C.until(async () => {
            const e = await C.get('entries', C.key(id))
            return e && e.tailSeq === snap.tailSeq && C.equal(e.nodes, snap.nodes)
          }, 'the entry')
        }
        return { openState: snap.openState, cached: snap.cached, nodes: snap.nodes, baseSeq: snap.baseSeq, tailSeq: snap.tailSeq, title: snap.title }
      },
      { id, cache, stored },
    )
  }

  /** A connected client with the cache on, kept in the page as `name`. */
  function newClient(page, name, cache = true) {
    return page.evaluate(
      async ({ name, cache }) => {
        const C = window.cachePage
        const h = new C.HostClient({ baseUrl: location.origin, cache })
        C.kept[name] = h
        await C.ready(h, Boolean(cache))
      },
      { name, cache },
    )
  }

  /** With the host holding the open's history response: subscribes to `id` on client `name`,
   *  opens it and waits for the cached paint; keeps the painted snapshot as `painted`. */
  async function openHeld(page, name, id) {
    await admin(host.url, { command: 'withhold', count: 1 })
    return page.evaluate(
      async ({ name, id }) => {
        const C = window.cachePage
        const s = C.kept[name].session(id)
        const calls = []
        C.kept.calls = calls
        s.subscribe(() => {
          const snap = s.getSnapshot()
          calls.push({ openState: snap.openState, cached: snap.cached })
        })
        let settled = false
        C.kept.opening = s.open().then(() => (settled = true))
        await C.until(() => s.getSnapshot().cached, 'the cached paint')
        const snap = s.getSnapshot()
        C.kept.painted = snap
        await C.sleep(50)
        return {
          openState: snap.openState,
          cached: snap.cached,
          hasMore: snap.hasMore,
          nodes: snap.nodes,
          baseSeq: snap.baseSeq,
          tailSeq: snap.tailSeq,
          title: snap.title,
          planMode: snap.planMode,
          pending: snap.pending,
          calls: calls.slice(),
          settled,
          stillPainted: s.getSnapshot() === snap,
        }
      },
      { name, id },
    )
  }

  /** Releases the held response and waits for the open; the confirmed snapshot is kept as `confirmed`. */
  async function confirm(page, name, id) {
    await admin(host.url, { command: 'release' })
    return page.evaluate(
      async ({ name, id }) => {
        const C = window.cachePage
        await C.kept.opening
        const s = C.kept[name].session(id)
        const snap = s.getSnapshot()
        C.kept.confirmed = snap
        const fresh = await C.fresh(id)
        return {
          openState: snap.openState,
          cached: snap.cached,
          nodes: snap.nodes,
          baseSeq: snap.baseSeq,
          tailSeq: snap.tailSeq,
          fresh: { nodes: fresh.nodes, baseSeq: fresh.baseSeq, tailSeq: fresh.tailSeq, cached: fresh.cached },
        }
      },
      { name, id },
    )
  }

  it('a seen session paints from the cache while the host holds its history, then shows the host\'s window', async () => {
    const id = await seed(60)
    const { page, guard } = await cachePage()
    const first = await cacheOnce(page, id)
    assert.equal(first.openState, 'open')
    assert.equal(first.cached, false, 'a window the host sent is not cached')
    assert.ok(first.nodes.length > 0, 'the seeded session has nodes')

    // A reload: a new document, a new client; only IndexedDB remains.
    await page.reload()
    await waitReady(page)
    await newClient(page, 'h')
    const painted = await openHeld(page, 'h', id)
    assert.equal(painted.settled, false, 'the open has not settled: the host still holds the history')
    assert.equal(painted.openState, 'open')
    assert.equal(painted.cached, true)
    assert.equal(painted.hasMore, false, 'nothing pages from a cached window')
    assert.deepEqual(painted.nodes, first.nodes, 'the painted nodes are the ones the first visit showed')
    assert.equal(painted.baseSeq, first.baseSeq)
    assert.equal(painted.tailSeq, first.tailSeq)
    assert.equal(painted.title, first.title)
    assert.ok(
      painted.calls.some((c) => c.cached && c.openState === 'open'),
      `a listener call saw the cached paint (${JSON.stringify(painted.calls)})`,
    )
    assert.ok(painted.stillPainted, 'the painted snapshot is stable while the host holds its answer')
    assert.equal(painted.planMode, null, 'plan mode is never painted from the cache')
    assert.deepEqual(painted.pending, [], 'pending interactions come from the host only')

    const confirmed = await confirm(page, 'h', id)
    assert.equal(confirmed.openState, 'open')
    assert.equal(confirmed.cached, false, 'the host confirmed the window')
    assert.deepEqual(confirmed.nodes, confirmed.fresh.nodes, "the host's window equals a fresh open without the cache")
    assert.equal(confirmed.tailSeq, confirmed.fresh.tailSeq)
    assert.equal(confirmed.baseSeq, confirmed.fresh.baseSeq)
    guard.assertClean()
  })

  it('a window of many chunks: written newest first, a change rewrites only the newest chunk, a reload paints the newest chunk first, then the whole kept window', async () => {
    // Every event its own node; paged back to 2,500 nodes: three chunks of at most 1,000.
    const id = await seed(6000, 2)
    const { page, guard } = await cachePage()
    const key = await page.evaluate(() => window.cachePage.key(''))
    const written = await page.evaluate(async (id) => {
      const C = window.cachePage
      const h = new C.HostClient({ baseUrl: location.origin, cache: true })
      C.kept.w = h
      await C.ready(h)
      const s = h.session(id)
      s.subscribe(() => void s.getSnapshot())
      await s.open()
      while (s.getSnapshot().nodes.length < 2500 && s.getSnapshot().hasMore) await s.loadOlder()
      C.takePuts()
      // The first write of the window (the batch timer): the entry holds the newest chunk and
      // is in before the older chunks are.
      const t0 = performance.now()
      const head = await C.until(async () => (await C.get('meta', C.key(id)))?.v && (await C.get('entries', C.key(id))), 'the entry', 10_000)
      const headMs = performance.now() - t0
      await C.until(async () => (await C.get('meta', C.key(id)))?.from === 0, 'every chunk written')
      await C.sleep(100)
      return { nodes: s.getSnapshot().nodes.length, tailSeq: s.getSnapshot().tailSeq, head: head.nodes.length, headMs, puts: C.takePuts(), meta: await C.get('meta', C.key(id)) }
    }, id)
    const chunks = Math.ceil(written.nodes / 1000)
    assert.ok(written.nodes >= 2500, `paged back to ${written.nodes} nodes`)
    assert.equal(written.meta.n, chunks)
    assert.equal(written.head, written.nodes - (chunks - 1) * 1000, 'the entry holds the newest chunk')
    const older = (i) => `${key}${id}\n#${String(i).padStart(6, '0')}`
    assert.deepEqual(
      written.puts,
      [`${key}${id}`, ...Array.from({ length: chunks - 1 }, (_, i) => older(chunks - 2 - i))],
      'the first write: the entry, then the older chunks newest first',
    )
    // Live changes at the tail: a write puts the entry (the newest chunk) alone; once the
    // window outgrows its newest chunk, that one is put as an older chunk, and no other is.
    const tailWrite = async (events) => {
      const last = await append(id, events, { messageEvery: 2, broadcast: true })
      return page.evaluate(async ({ id, last }) => {
        const C = window.cachePage
        const s = C.kept.w.session(id)
        await C.until(() => s.getSnapshot().tailSeq === last, 'the live events')
        // The snapshots of the burst left the last written one to the collector.
        window.gc()
        await C.until(async () => (await C.get('entries', C.key(id)))?.tailSeq === last, 'the write of the change', 10_000)
        await C.sleep(100)
        const snap = s.getSnapshot()
        return { puts: C.takePuts(), nodes: snap.nodes.length, diag: s.diagnostics(), baseSeq: snap.baseSeq, meta: await C.get('meta', C.key(id)) }
      }, { id, last })
    }
    const small = await tailWrite(4)
    assert.deepEqual([...new Set(small.puts)], [`${key}${id}`], 'a change at the tail rewrites the newest chunk only')
    const grown = await tailWrite(1000 - (small.nodes % 1000) + 1)
    assert.equal(Math.ceil(grown.nodes / 1000), chunks + 1, 'the window grew by a chunk')
    assert.deepEqual([...new Set(grown.puts)].sort(), [`${key}${id}`, older(chunks - 1)].sort(), `the old newest chunk is stored as an older one, nothing else: ${JSON.stringify({ small: small.diag, grown: grown.diag })}`)
    const after = await page.evaluate(async (id) => {
      const C = window.cachePage
      const s = C.kept.w.session(id)
      const before = C.mark()
      C.kept.w.close()
      await C.settledAfter(before, 'the close')
      return { closePuts: C.takePuts(), nodes: s.getSnapshot().nodes }
    }, id)
    assert.deepEqual(after.closePuts, [], 'close() has nothing left to write')

    // A reload with the host holding its answer: the newest chunk is painted, then all of it.
    await page.reload()
    await waitReady(page)
    await newClient(page, 'h')
    await admin(host.url, { command: 'withhold', count: 1 })
    const paints = await page.evaluate(async ({ id, want }) => {
      const C = window.cachePage
      const s = C.kept.h.session(id)
      const seen = []
      s.subscribe(() => {
        const snap = s.getSnapshot()
        if (snap.cached && seen.at(-1)?.snap !== snap) seen.push({ snap, n: snap.nodes.length, baseSeq: snap.baseSeq, first: snap.nodes[0]?.seq })
      })
      C.kept.opening = s.open()
      await C.until(() => seen.length && seen.at(-1).n >= want, 'the whole kept window painted')
      return seen.map(({ snap, n, baseSeq, first }) => ({ n, baseSeq, first, nodes: n >= want ? snap.nodes : null }))
    }, { id, want: after.nodes.length })
    const total = after.nodes.length
    assert.deepEqual(paints.at(-1).nodes, after.nodes, 'the whole paint is the window the last page showed')
    assert.equal(paints[0].n, total - (Math.ceil(total / 1000) - 1) * 1000, 'the first paint is the newest chunk')
    assert.equal(paints[0].baseSeq, paints[0].first, "a part's baseSeq is its first node's seq")
    assert.equal(paints.at(-1).n, total, 'then the whole kept window')
    const confirmed = await confirm(page, 'h', id)
    assert.equal(confirmed.cached, false)
    assert.deepEqual(confirmed.nodes, confirmed.fresh.nodes)
    guard.assertClean()
  })

  it('close() writes the queued snapshot at once, before the batch delay', async () => {
    const id = await seed(20)
    const { page, guard } = await cachePage()
    const r = await page.evaluate(async (id) => {
      const C = window.cachePage
      const h = new C.HostClient({ baseUrl: location.origin, cache: true })
      await C.ready(h)
      const s = h.session(id)
      await s.open()
      const snap = s.getSnapshot()
      const t0 = performance.now()
      h.close()
      const entry = await C.until(() => C.get('entries', C.key(id)), 'the entry')
      return { ms: performance.now() - t0, tailSeq: entry.tailSeq, nodes: entry.nodes, want: snap.nodes, wantTail: snap.tailSeq }
    }, id)
    assert.ok(r.ms < BATCH_MS - 100, `the entry was written by close() (${Math.round(r.ms)} ms), not by the ${BATCH_MS} ms batch timer`)
    assert.equal(r.tailSeq, r.wantTail)
    assert.deepEqual(r.nodes, r.want)
    guard.assertClean()
  })

  it('unchanged nodes keep their painted objects through the reconcile; nodes the host logged since are new objects', async (t) => {
    const id = await seed(40)
    const { page, guard } = await cachePage()
    const first = await cacheOnce(page, id)
    const tail = await append(id, 20)
    assert.ok(tail > first.tailSeq)

    await newClient(page, 'h')
    const painted = await openHeld(page, 'h', id)
    assert.equal(painted.cached, true)
    assert.deepEqual(painted.nodes, first.nodes)
    const confirmed = await confirm(page, 'h', id)
    assert.equal(confirmed.cached, false)
    assert.equal(confirmed.tailSeq, tail, 'the host window has the events logged since')
    assert.deepEqual(confirmed.nodes, confirmed.fresh.nodes, 'the window equals a fresh open')

    const identity = await page.evaluate(() => {
      const C = window.cachePage
      const { painted, confirmed } = C.kept
      const byId = new Map(painted.nodes.map((n) => [n.id, n]))
      const paintedObjects = new Set(painted.nodes)
      return confirmed.nodes.map((n) => {
        const p = byId.get(n.id)
        return { id: n.id, painted: Boolean(p), equal: Boolean(p) && C.equal(p, n), same: p === n, reused: paintedObjects.has(n) }
      })
    })
    const kept = identity.filter((r) => r.painted && r.equal)
    const added = identity.filter((r) => !r.painted)
    t.diagnostic(`${first.nodes.length} painted nodes, ${kept.length} unchanged, ${added.length} new of ${identity.length}`)
    // The appended events start with a user message: no painted node changes.
    assert.equal(kept.length, first.nodes.length, 'every painted node is unchanged in the host window')
    assert.ok(added.length > 0, 'the host logged new nodes')
    for (const r of kept) assert.ok(r.same, `unchanged node ${r.id} keeps the painted object`)
    for (const r of identity.filter((r) => !(r.painted && r.equal))) assert.ok(!r.reused, `new or changed node ${r.id} is a new object`)

    // Live events after the reconcile: the adopted objects stay the exported ones.
    const liveTail = await append(id, 10, { broadcast: true })
    const after = await page.evaluate(
      async ({ id, liveTail }) => {
        const C = window.cachePage
        const s = C.kept.h.session(id)
        await C.until(() => s.getSnapshot().tailSeq === liveTail, 'the live events')
        const snap = s.getSnapshot()
        const { painted, confirmed } = C.kept
        const paintedObjects = new Set(painted.nodes)
        const confirmedById = new Map(confirmed.nodes.map((n) => [n.id, n]))
        return snap.nodes.map((n) => {
          const c = confirmedById.get(n.id)
          return { id: n.id, known: Boolean(c), equal: Boolean(c) && C.equal(c, n), same: c === n, fromPaint: paintedObjects.has(n) }
        })
      },
      { id, liveTail },
    )
    const stillKept = after.filter((r) => r.known && r.equal)
    assert.ok(stillKept.length > 0)
    for (const r of stillKept) assert.ok(r.same, `node ${r.id} keeps its object after live events`)
    assert.ok(
      after.filter((r) => r.fromPaint).length >= kept.length - 2,
      'the painted objects are still the exported ones after live events',
    )
    guard.assertClean()
  })

  /** A session seen with the cache on (`first`: what it showed), whose log the host then
   *  loses and replaces by a shorter, different one under the same id (`newTail`). */
  async function replacedLog() {
    const id = await seed(60, 10)
    const { page, guard } = await cachePage()
    const first = await cacheOnce(page, id)
    await admin(host.url, { command: 'reset-store', keepSessions: true })
    const newTail = await append(id, 14, { messageEvery: 4 })
    assert.ok(newTail < first.tailSeq)
    return { id, page, guard, first, newTail }
  }

  it("a replaced log: the reopen paints the cached nodes, then shows exactly the host's new log", async () => {
    const { id, page, guard, first, newTail } = await replacedLog()

    await newClient(page, 'h')
    const painted = await openHeld(page, 'h', id)
    assert.equal(painted.cached, true)
    assert.deepEqual(painted.nodes, first.nodes, 'the stale entry is painted first')
    assert.equal(painted.tailSeq, first.tailSeq)
    const confirmed = await confirm(page, 'h', id)
    assert.equal(confirmed.cached, false)
    assert.equal(confirmed.tailSeq, newTail, "the host's tail")
    assert.deepEqual(confirmed.nodes, confirmed.fresh.nodes, "exactly the host's new log, as a fresh open shows it")
    assert.notDeepEqual(confirmed.nodes, first.nodes)
    guard.assertClean()
  })

  it("after a replaced log, the next write stores the host's new log in place of the stale entry", async () => {
    const { id, page, guard, newTail } = await replacedLog()
    // The reopen shows the new log and close() writes what it showed.
    const second = await cacheOnce(page, id, true, false)
    assert.equal(second.tailSeq, newTail)
    const entry = await page.evaluate((id) => window.cachePage.get('entries', window.cachePage.key(id)), id)
    assert.equal(entry.tailSeq, newTail, `the entry holds the host's new log (tailSeq ${entry.tailSeq}, the host's is ${newTail})`)
    assert.deepEqual(entry.nodes, second.nodes)
    guard.assertClean()
  })

  it("after a replaced log whose host answer is in before the cache read, the write at close() still replaces the stale entry", async () => {
    const { id, page, guard, newTail } = await replacedLog()
    // The cache read waits on the page locks' query, so the host's window is in (and close()
    // writes it) first: the write must wait for the read that knows the log was replaced.
    await page.evaluate(() => {
      const locks = navigator.locks
      const query = locks.query.bind(locks)
      locks.query = () => window.cachePage.sleep(300).then(query)
    })
    const second = await cacheOnce(page, id, true, false)
    assert.equal(second.tailSeq, newTail)
    // The write goes in once the read is: well within the batch delay (2 s) a later write
    // would wait.
    const entry = await page.evaluate(
      async ({ id, newTail }) => {
        const C = window.cachePage
        const get = () => C.get('entries', C.key(id))
        await C.until(async () => (await get())?.tailSeq === newTail, 'the write', 1000).catch(() => {})
        return get()
      },
      { id, newTail },
    )
    assert.equal(entry.tailSeq, newTail, `the entry holds the host's new log (tailSeq ${entry.tailSeq}, the host's is ${newTail})`)
    assert.deepEqual(entry.nodes, second.nodes)
    guard.assertClean()
  })

  it("a failed open after the cached paint shows the host's error, not the cached window", async () => {
    const id = await seed(30)
    const { page, guard } = await cachePage()
    const first = await cacheOnce(page, id)
    // The host no longer has the session: the open's history answers session-not-found.
    await admin(host.url, { command: 'reset-store' })
    await newClient(page, 'h')
    const painted = await openHeld(page, 'h', id)
    assert.equal(painted.cached, true)
    assert.deepEqual(painted.nodes, first.nodes)
    await admin(host.url, { command: 'release' })
    const failed = await page.evaluate(async (id) => {
      const C = window.cachePage
      await C.kept.opening
      const snap = C.kept.h.session(id).getSnapshot()
      return { openState: snap.openState, cached: snap.cached, code: snap.openError?.code ?? null, nodes: snap.nodes.length }
    }, id)
    assert.deepEqual(failed, { openState: 'error', cached: false, code: 'session-not-found', nodes: 0 })
    guard.assertClean()
  })

  it('the least recently opened entries are evicted to keep the total bytes within maxBytes', async (t) => {
    const ids = []
    for (let i = 0; i < 4; i++) ids.push(await seed(20))
    const { page, guard } = await cachePage()
    // One entry's size, measured, then a fresh database.
    await cacheOnce(page, ids[0])
    const one = await page.evaluate(async () => {
      const C = window.cachePage
      const { meta } = await C.list()
      await C.remove()
      return meta[0].bytes
    })
    assert.ok(one > 64)
    const maxBytes = Math.floor(one * 2.5) // room for two
    t.diagnostic(`one entry: ${one} B; maxBytes ${maxBytes}`)
    const keys = async () => {
      const l = await page.evaluate(() => window.cachePage.list())
      const short = (k) => ids.indexOf(k.split('\n')[1])
      return {
        meta: l.meta.map((m) => short(m.key)).sort(),
        entries: l.entries.map((e) => short(e.key)).sort(),
        bytes: l.meta.reduce((n, m) => n + m.bytes, 0),
      }
    }
    const visit = async (i) => {
      await cacheOnce(page, ids[i], { maxBytes }, false)
      return keys()
    }
    let k = await visit(0)
    assert.deepEqual(k.meta, [0])
    k = await visit(1)
    assert.deepEqual(k.meta, [0, 1])
    // Opening 0 again makes 1 the least recently opened.
    k = await visit(0)
    assert.deepEqual(k.meta, [0, 1])
    k = await visit(2)
    assert.deepEqual(k.meta, [0, 2], 'the least recently opened (1) went first')
    assert.deepEqual(k.entries, k.meta, 'entries and meta hold the same keys')
    assert.ok(k.bytes <= maxBytes, `total ${k.bytes} B within maxBytes ${maxBytes}`)
    k = await visit(3)
    assert.deepEqual(k.meta, [2, 3], 'then 0, opened before 2')
    assert.deepEqual(k.entries, k.meta)
    assert.ok(k.bytes <= maxBytes, `total ${k.bytes} B within maxBytes ${maxBytes}`)
    // An entry larger than the bound is not kept (and the bound applies to every entry).
    await cacheOnce(page, ids[1], { maxBytes: Math.floor(one / 2) }, false)
    k = await keys()
    assert.deepEqual(k.meta, [])
    assert.deepEqual(k.entries, [])
    guard.assertClean()
  })

  for (const [name, bad] of [
    ['a corrupted entry', (e) => ({ entry: { v: FORMAT, key: e.key, nodes: [null, { id: 5 }], baseSeq: 'x', tailSeq: e.tailSeq } })],
    [
      'an entry of another format version',
      (e) => ({
        entry: { ...e, v: FORMAT + 1, tailSeq: e.tailSeq + 1000 },
        meta: { v: FORMAT + 1, key: e.key, bytes: 1, tailSeq: e.tailSeq + 1000, openedAt: 0, n: 1, from: 0 },
      }),
    ],
  ]) {
    it(`${name} is ignored (the open works as without a cache) and the next write replaces it`, async () => {
      const id = await seed(30)
      const { page, guard } = await cachePage()
      await cacheOnce(page, id)
      const stored = await page.evaluate((id) => window.cachePage.get('entries', window.cachePage.key(id)), id)
      const rows = bad(stored)
      await page.evaluate(async (rows) => {
        const C = window.cachePage
        await C.put('entries', rows.entry)
        if (rows.meta) await C.put('meta', rows.meta)
      }, rows)

      await newClient(page, 'h')
      await admin(host.url, { command: 'withhold', count: 1 })
      const loading = await page.evaluate(async (id) => {
        const C = window.cachePage
        const s = C.kept.h.session(id)
        const calls = []
        s.subscribe(() => calls.push(s.getSnapshot().cached))
        const before = C.mark()
        C.kept.opening = s.open()
        await C.settledAfter(before, 'the cache read')
        const snap = s.getSnapshot()
        return { openState: snap.openState, cached: snap.cached, nodes: snap.nodes.length, calls }
      }, id)
      assert.equal(loading.openState, 'loading', 'no cached paint: the session waits for the host')
      assert.equal(loading.cached, false)
      assert.equal(loading.nodes, 0)
      assert.ok(!loading.calls.includes(true), 'no listener saw a cached snapshot')

      const confirmed = await confirm(page, 'h', id)
      assert.equal(confirmed.openState, 'open')
      assert.equal(confirmed.cached, false)
      assert.deepEqual(confirmed.nodes, confirmed.fresh.nodes)
      const written = await page.evaluate(async (id) => {
        const C = window.cachePage
        const before = C.mark()
        C.kept.h.close()
        await C.settledAfter(before, 'the write at close()')
        return { entry: await C.get('entries', C.key(id)), meta: await C.get('meta', C.key(id)) }
      }, id)
      assert.equal(written.entry.v, FORMAT, 'a valid entry replaced it')
      assert.equal(written.entry.tailSeq, confirmed.tailSeq)
      assert.equal(written.entry.baseSeq, confirmed.baseSeq)
      assert.deepEqual(written.entry.nodes, confirmed.nodes)
      assert.equal(written.meta.v, FORMAT)
      assert.equal(written.meta.tailSeq, confirmed.tailSeq)
      guard.assertClean()
    })
  }

  it('two tabs writing the same session: the higher tailSeq is kept whatever order they write in', async () => {
    const ctx = await context()
    const guard = await guardContext(ctx)
    const { page: a } = await cachePage(ctx)
    const { page: b } = await cachePage(ctx)
    const entryOf = (page, id) => page.evaluate((id) => window.cachePage.get('entries', window.cachePage.key(id)), id)
    // Tab A opens at tail 29; the host logs 20 more (silently: A does not see them); tab B opens at 49.
    const openBoth = async () => {
      const id = await seed(30)
      await newClient(a, 'h')
      await a.evaluate((id) => window.cachePage.kept.h.session(id).open(), id)
      const high = await append(id, 20)
      await newClient(b, 'h')
      await b.evaluate((id) => window.cachePage.kept.h.session(id).open(), id)
      return { id, high }
    }
    // Reads the tab's snapshot (queues it), closes the client (writes it) and waits for the write.
    const write = (page, id) =>
      page.evaluate(async (id) => {
        const C = window.cachePage
        const snap = C.kept.h.session(id).getSnapshot()
        const before = C.mark()
        C.kept.h.close()
        await C.settledAfter(before, 'the write at close()')
        return { tailSeq: snap.tailSeq, nodes: snap.nodes }
      }, id)

    // The higher tail writes first, the lower one last.
    let { id, high } = await openBoth()
    let hi = await write(b, id)
    assert.equal(hi.tailSeq, high)
    let lo = await write(a, id)
    assert.ok(lo.tailSeq < high, `tab A is behind (${lo.tailSeq} < ${high})`)
    let entry = await entryOf(a, id)
    assert.equal(entry.tailSeq, high, 'the lower tail written last did not replace the higher one')
    assert.deepEqual(entry.nodes, hi.nodes)

    // The lower tail first, the higher one last.
    ;({ id, high } = await openBoth())
    lo = await write(a, id)
    assert.ok(lo.tailSeq < high)
    assert.equal((await entryOf(b, id)).tailSeq, lo.tailSeq)
    hi = await write(b, id)
    entry = await entryOf(b, id)
    assert.equal(entry.tailSeq, high)
    assert.deepEqual(entry.nodes, hi.nodes)

    // Both at once.
    ;({ id, high } = await openBoth())
    ;[lo, hi] = await Promise.all([write(a, id), write(b, id)])
    assert.ok(lo.tailSeq < high)
    entry = await entryOf(a, id)
    assert.equal(entry.v, FORMAT)
    assert.equal(entry.tailSeq, high)
    assert.deepEqual(entry.nodes, hi.nodes)
    const meta = await a.evaluate((id) => window.cachePage.get('meta', window.cachePage.key(id)), id)
    assert.equal(meta.tailSeq, high, 'meta and entry agree')
    guard.assertClean()
  })

  it('clearCache() empties both stores, from a client with or without the cache option', async () => {
    const ids = [await seed(20), await seed(20)]
    const { page, guard } = await cachePage()
    for (const [n, cache] of [
      [0, true],
      [1, false],
    ]) {
      const r = await page.evaluate(
        async ({ ids, cache }) => {
          const C = window.cachePage
          const h = new C.HostClient({ baseUrl: location.origin, cache: true })
          await C.ready(h)
          for (const id of ids) await h.session(id).open()
          for (const id of ids) h.session(id).getSnapshot()
          const before = C.mark()
          h.close()
          await C.settledAfter(before, 'the write at close()')
          const filled = await C.list()
          const other = new C.HostClient({ baseUrl: location.origin, cache })
          await other.clearCache()
          other.close()
          const emptied = await C.list()
          return { filled: [filled.meta.length, filled.entries.length], emptied: [emptied.meta.length, emptied.entries.length] }
        },
        { ids, cache },
      )
      assert.deepEqual(r.filled, [2, 2], `round ${n}: both sessions were stored`)
      assert.deepEqual(r.emptied, [0, 0], `round ${n}: clearCache() from a client with cache: ${cache} emptied both stores`)
    }
    guard.assertClean()
  })

  it('clearCache() also drops the writes queued before it: nothing read before the clear is stored after it', async () => {
    const id = await seed(20)
    const { page, guard } = await cachePage()
    const r = await page.evaluate(
      async ({ id, wait }) => {
        const C = window.cachePage
        const h = new C.HostClient({ baseUrl: location.origin, cache: true })
        await C.ready(h)
        const s = h.session(id)
        await s.open()
        s.getSnapshot() // queued for the next batch
        await h.clearCache() // the app's "forget this device"
        const right = (await C.list()).entries.length
        // Past the batch delay, the session unchanged (nothing new to write).
        await C.sleep(wait)
        const later = (await C.list()).entries.map((e) => ({ tailSeq: e.tailSeq, nodes: e.nodes.length }))
        h.close()
        return { right, later }
      },
      { id, wait: BATCH_MS + 500 },
    )
    assert.equal(r.right, 0)
    assert.deepEqual(r.later, [], `the snapshot queued before clearCache() was written after it: ${JSON.stringify(r.later)}`)
    guard.assertClean()
  })

  it('without the cache option nothing is stored: the database is never created', async () => {
    const id = await seed(20)
    const { page, guard } = await cachePage()
    const r = await page.evaluate(
      async ({ id, wait }) => {
        const C = window.cachePage
        const h = new C.HostClient({ baseUrl: location.origin })
        await C.ready(h, false)
        const s = h.session(id)
        const cached = []
        s.subscribe(() => cached.push(s.getSnapshot().cached))
        await s.open()
        const snap = s.getSnapshot()
        // Past the batch delay: a write would have been made by now.
        await C.sleep(wait)
        h.close()
        await C.sleep(200)
        return { nodes: snap.nodes.length, cached, exists: await C.exists(), activity: C.activity() }
      },
      { id, wait: BATCH_MS + 500 },
    )
    assert.ok(r.nodes > 0)
    assert.ok(!r.cached.includes(true))
    assert.equal(r.exists, false, 'no agent-session-cache database')
    assert.deepEqual(r.activity, { started: 0, ended: 0 }, 'no transaction on it')
    guard.assertClean()
  })

  it('a bad cache option throws an Error with code bad-argument', async () => {
    const { page, guard } = await cachePage()
    const r = await page.evaluate(() => {
      const C = window.cachePage
      return [-1, 'big', Infinity, null].map((maxBytes) => {
        try {
          new C.HostClient({ baseUrl: location.origin, cache: { maxBytes } }).close()
          return { maxBytes: String(maxBytes), thrown: false }
        } catch (e) {
          return { maxBytes: String(maxBytes), thrown: true, error: e instanceof Error, code: e?.code }
        }
      })
    })
    for (const x of r) assert.deepEqual(x, { maxBytes: x.maxBytes, thrown: true, error: true, code: 'bad-argument' })
    guard.assertClean()
  })
})
