// `host.subagents(parentSessionId)` (docs/API.md "Subagents") against the reference host
// speaking the 2026-08 wire, whose scripted agent spawns a child on `[subagent]`: a bare page
// that imports the package entry holds the store. Checked: a child shows while it runs and
// then as done, without the page asking again (the live list's children drive the catalog),
// entries that did not change keep their objects, the child opens as a session of its own,
// one store per parent, and a seed host's store says `unsupported`.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { barePage } from '../tests/support/pages.mjs'
import { guardPage } from '../tests/support/guard.mjs'

const SCRIPT = `
const host = new HostClient({ baseUrl: location.origin })
window.__t = { host }
`

describe('host.subagents(parentSessionId): one session subagents, kept live', () => {
  let dir, host, seedHost, browser, page, guard

  before(async () => {
    dir = tempDir()
    const www = barePage(dir, 'subagents.html', SCRIPT)
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: www, chunkDelayMs: 20, extra: ['--wire', '2026-08'] })
    seedHost = await startHost({ db: join(dir, 'seed.sqlite'), staticDir: www })
    browser = await launch()
    page = await browser.newPage()
    page.setDefaultTimeout(20_000)
    guard = await guardPage(page)
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    await killHost(seedHost)
    cleanup(dir)
  })

  it('shows a spawned child while it runs and once it is done, from the live list alone', async () => {
    await page.goto(`${host.url}/subagents.html`)
    await page.waitForFunction(() => window.__t?.host.getSnapshot().state === 'open')
    const r = await page.evaluate(async () => {
      const t = window.__t
      t.parent = (await t.host.createSession()).value.sessionId
      t.store = await t.host.subagents(t.parent)
      t.same = (await t.host.subagents(t.parent)) === t.store
      t.seen = []
      t.store.subscribe(() => t.seen.push(t.store.getSnapshot()))
      await new Promise((r) => (t.store.getSnapshot().state === 'ready' ? r() : t.store.subscribe(r)))
      const before = t.store.getSnapshot().items.length
      const s = t.host.session(t.parent)
      await s.open()
      const sent = await s.prompt([{ type: 'text', text: 'Look into the tests [subagent]' }])
      return { before, sent: sent.ok, same: t.same }
    })
    assert.deepEqual(r, { before: 0, sent: true, same: true })
    await page.waitForFunction(() => window.__t.store.getSnapshot().items.some((e) => e.kind === 'child' && e.activity === 'inactive'), undefined, { timeout: 20_000 })
    const s = await page.evaluate(() => {
      const t = window.__t
      const snap = t.store.getSnapshot()
      return {
        items: snap.items,
        ranFirst: t.seen.some((x) => x.items.some((e) => e.activity === 'running')),
        frozen: Object.isFrozen(snap.items[0]),
        lists: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/subagent.list')).length,
        // The live list says what made it: from the host's `host/session-added` frame.
        live: t.host.getSessions().items.find((i) => i.sessionId === snap.items[0].id),
      }
    })
    assert.equal(s.items.length, 1)
    assert.deepEqual({ origin: s.live?.origin, parent: s.live?.parentSessionId }, { origin: 'subagent', parent: await page.evaluate(() => window.__t.parent) })
    assert.equal(s.items[0].mode, 'one-shot')
    assert.ok(s.ranFirst, 'the child was shown running before it was done')
    assert.ok(s.frozen)
    assert.ok(s.lists >= 2, `the catalog was asked again as the child came and went (${s.lists} lists)`)
  })

  it('the child opens as a session of its own, and an unchanged catalog keeps its objects', async () => {
    const r = await page.evaluate(async () => {
      const t = window.__t
      const child = t.store.getSnapshot().items[0]
      const c = t.host.session(child.id)
      await c.open()
      const snap = c.getSnapshot()
      // Once the catalog is quiet (the child's last status may still come), something else
      // in the live list changes: the catalog is not asked again, its objects stay.
      for (let n = t.seen.length, quiet = 0; quiet < 5; n = t.seen.length) {
        await new Promise((r) => setTimeout(r, 100))
        quiet = t.seen.length === n ? quiet + 1 : 0
      }
      const items = t.store.getSnapshot().items
      await t.host.createSession()
      await new Promise((r) => setTimeout(r, 300))
      return { openState: snap.openState, nodes: snap.nodes.length, kept: t.store.getSnapshot().items === items }
    })
    assert.equal(r.openState, 'open')
    assert.ok(r.nodes > 0, 'the child has its own conversation')
    assert.equal(r.kept, true)
    await assert.rejects(page.evaluate(() => window.__t.host.subagents('')), /parentSessionId must be a non-empty string/)
  })

  it('a continuable child takes a prompt with the client time zone, and an interrupt, through the store', async () => {
    const r = await page.evaluate(async () => {
      const t = window.__t
      const parent = (await t.host.createSession()).value.sessionId
      const store = await t.host.subagents(parent)
      const off = store.subscribe(() => {})
      const s = t.host.session(parent)
      await s.open()
      await s.prompt([{ type: 'text', text: 'Keep watching the build [subagent:continuable]' }])
      const done = (e) => e.mode === 'continuable' && e.activity === 'inactive'
      await new Promise((r) => (store.getSnapshot().items.some(done) ? r() : store.subscribe(() => store.getSnapshot().items.some(done) && r())))
      const child = store.getSnapshot().items.find(done)
      const sent = await store.prompt(child.id, [{ type: 'text', text: 'And the tests too' }])
      const stopped = await store.interrupt(child.id)
      off()
      return { child: child.id, sent, stopped, zone: Intl.DateTimeFormat().resolvedOptions().timeZone }
    })
    assert.equal(r.sent.ok, true, JSON.stringify(r.sent))
    assert.equal(typeof r.sent.value.messageId, 'string')
    assert.equal(r.stopped.ok, true, JSON.stringify(r.stopped))
    // The child's log holds the prompt, its source carrying the page's zone.
    let source
    for (let i = 0; i < 100 && !source; i++) {
      const body = { type: 'client-request', rpcId: `t-${i}`, method: 'session.history', payload: { sessionId: r.child } }
      const res = await fetch(`${host.url}/api/session.history`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      const users = (await res.json()).result.value.events.map((i) => i.event).filter((e) => e.type === 'user/message')
      source = users.map((u) => u.data.source ?? u.data.message?.source).find((x) => x?.clientTimeZone)
      if (!source) await new Promise((res) => setTimeout(res, 50))
    }
    assert.equal(source?.clientTimeZone, r.zone)
  })

  it('a store follows the live list only while it has a listener', async () => {
    const r = await page.evaluate(async () => {
      const t = window.__t
      const count = () => t.host.diagnostics().hostListeners
      const before = count()
      const other = await t.host.subagents((await t.host.createSession()).value.sessionId)
      const unwatched = count()
      const off = other.subscribe(() => {})
      const watched = count()
      off()
      off()
      return { before, unwatched, watched, after: count() }
    })
    assert.deepEqual(r, { before: r.before, unwatched: r.before, watched: r.before + 1, after: r.before })
  })

  it("a seed host's store says unsupported without asking it: no failed request, no console error", async () => {
    const p = await browser.newPage()
    const g = await guardPage(p)
    const asked = []
    p.on('request', (r) => asked.push(new URL(r.url()).pathname))
    await p.goto(`${seedHost.url}/subagents.html`)
    await p.waitForFunction(() => window.__t?.host.getSnapshot().state === 'open')
    const s = await p.evaluate(async () => {
      const store = await window.__t.host.subagents('any')
      await new Promise((r) => (store.getSnapshot().state !== 'loading' ? r() : store.subscribe(r)))
      return store.getSnapshot()
    })
    assert.equal(s.state, 'unsupported')
    assert.ok(!asked.includes('/api/subagent.list'), `never asked: ${asked.join(' ')}`)
    assert.ok(asked.includes('/api/host.describe'), 'the description is what said so')
    g.assertClean()
    await p.close()
  })

  it('reported no page error, unhandled rejection or unexpected console error', () => guard.assertClean())
})
