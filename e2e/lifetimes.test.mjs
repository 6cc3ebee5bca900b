// Lifetimes under the garbage collector: the built package in a page
// (tests/pages/lifetimes.html), Chromium with --js-flags=--expose-gc, collections forced with gc() and
// a turn of the event loop between (FinalizationRegistry callbacks run in their own tasks).
//
// The first two cases failed before the lifetime rules (docs/API.md, "Lifetimes"): a Session
// whose HostClient wrapper was collected threw `closed`, and `free()` on the resident handle
// made the next `host.session(id).open()` throw "null pointer passed to rust".
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { PAGES_DIST } from '../tests/support/pages.mjs'
import { launch } from '../tests/support/browser.mjs'
import { guardPage } from '../tests/support/guard.mjs'

describe('lifetimes under forced GC', () => {
  let dir, host, browser

  before(async () => {
    dir = tempDir()
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: PAGES_DIST, chunkDelayMs: 2, faults: true })
    browser = await launch({ exposeGc: true })
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  async function createSession() {
    const r = await fetch(`${host.url}/api/session.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'client-request', rpcId: 'lifetimes', method: 'session.create', payload: {} }),
    })
    const v = await r.json()
    assert.ok(v.result?.ok, `session.create: ${JSON.stringify(v)}`)
    return v.result.value.sessionId
  }

  /** A fresh page on the lifetimes page, guarded against page errors and console errors. */
  async function lifetimesPage() {
    const page = await browser.newPage()
    page.setDefaultTimeout(30_000)
    const guard = await guardPage(page)
    await page.goto(`${host.url}/lifetimes.html`)
    await page.waitForFunction(() => document.getElementById('out')?.textContent === 'ready')
    return { page, guard }
  }

  it('a Session whose HostClient nobody references keeps working after forced GCs', async () => {
    const sessionId = await createSession()
    const { page, guard } = await lifetimesPage()
    const r = await page.evaluate(async (id) => {
      const L = window.lifetimes
      // the React shape: the host made elsewhere and not kept, only its session
      const s = (() => {
        const h = new L.HostClient({ baseUrl: location.origin })
        L.track(h, 'host')
        return h.session(id)
      })()
      await s.open()
      window.kept = s
      L.track({}, 'canary')
      await L.gcTurns(8)
      const canary = L.collected('canary')
      const tail = s.getSnapshot().tailSeq
      let result
      try {
        result = await s.prompt([{ type: 'text', text: 'x' }])
      } catch (e) {
        return { canary, thrown: `${e?.code}: ${e?.message}` }
      }
      // live frames keep arriving: the scripted reply streams in and its turn ends
      const deadline = performance.now() + 20_000
      const done = () => s.getSnapshot().nodes.some((n) => n.type === 'assistant' && n.seq > tail) && !s.getSnapshot().running
      while (!done() && performance.now() < deadline) {
        await L.gcTurns(1)
      }
      const snap = s.getSnapshot()
      return { canary, result, tail, tailAfter: snap.tailSeq, replied: done(), openState: snap.openState }
    }, sessionId)
    assert.ok(r.canary, 'the forced collections ran (an unreferenced object was finalized)')
    assert.equal(r.thrown, undefined, 'prompt() on the kept Session must not throw')
    assert.deepEqual(r.result, { ok: true, value: { accepted: true } })
    assert.equal(r.openState, 'open')
    assert.ok(r.tailAfter > r.tail, `live frames arrived after the prompt (tail ${r.tail} -> ${r.tailAfter})`)
    assert.ok(r.replied, 'the reply streamed in and its turn ended')
    guard.assertClean()
    await page.close()
  })

  it('free() on a handle does not break host.session(id)', async () => {
    const sessionId = await createSession()
    const { page, guard } = await lifetimesPage()
    const r = await page.evaluate(async (id) => {
      const L = window.lifetimes
      const h = new L.HostClient({ baseUrl: location.origin })
      window.kept = h
      const first = h.session(id)
      if (typeof first.free === 'function') first.free()
      try {
        await h.session(id).open()
      } catch (e) {
        return { thrown: `${e?.code}: ${e?.message}` }
      }
      const again = h.session(id)
      return { openState: again.getSnapshot().openState, same: again === h.session(id) }
    }, sessionId)
    assert.equal(r.thrown, undefined, 'host.session(id).open() after free() must not throw')
    assert.equal(r.openState, 'open')
    assert.ok(r.same, 'host.session(id) still returns one object per id')
    guard.assertClean()
    await page.close()
  })

  it('a HostClient nobody references (nor its opened session) is collected, its sockets close and it leaves the sharing between tabs', async () => {
    const sessionId = await createSession()
    const { page, guard } = await lifetimesPage()
    const r = await page.evaluate(async (id) => {
      const L = window.lifetimes
      const whileOpen = await (async () => {
        const h = new L.HostClient({ baseUrl: location.origin, transport: 'websocket' })
        L.track(h, 'host')
        await new Promise((resolve) => {
          const check = () => h.getSnapshot().state === 'open'
          if (check()) return resolve()
          const off = h.subscribe(() => {
            if (check()) {
              off()
              resolve()
            }
          })
        })
        const s = h.session(id)
        const off = s.subscribe(() => void s.getSnapshot())
        await s.open()
        off()
        return L.openSockets()
      })()
      for (let i = 0; i < 40 && !L.collected('host'); i++) await L.gcTurns(1)
      const collected = L.collected('host')
      const deadline = performance.now() + 5000
      while (L.openSockets() > 0 && performance.now() < deadline) await new Promise((res) => setTimeout(res, 50))
      const openAfter = L.openSockets()
      // The collected client left the tabs' sharing too: a new client of this page is not
      // left following a leader that serves nobody, it leads and connects.
      const next = new L.HostClient({ baseUrl: location.origin, transport: 'websocket' })
      window.kept = next
      const until = performance.now() + 10_000
      while (next.getSnapshot().state !== 'open' && performance.now() < until) await new Promise((res) => setTimeout(res, 50))
      const nextState = next.getSnapshot().state
      const nextRole = next.sharing()?.role
      next.close()
      return { whileOpen, collected, openAfter, opened: L.socketsOpened(), nextState, nextRole }
    }, sessionId)
    assert.equal(r.whileOpen, 2, 'both downlinks were open WebSockets while the client was connected')
    assert.ok(r.collected, 'the unreferenced HostClient was collected')
    assert.equal(r.openAfter, 0, `every socket of the collected client closed (${r.opened} opened)`)
    assert.equal(r.nextState, 'open', 'a client made after the collection connects')
    assert.equal(r.nextRole, 'leader', 'and leads: the collected one let the lock go')
    guard.assertClean()
    await page.close()
  })
})
