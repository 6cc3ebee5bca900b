// `host.workspaces()` (docs/API.md "Workspaces") against the reference host speaking the
// 2026-08 wire: a bare page that imports the package entry holds the store, and another
// client (this test, over plain HTTP) changes the workspaces. Checked: every change shows up
// from the host's frames alone (one `workspace.list` in all), unchanged records keep their
// objects, a reconnect re-baselines from a fresh `workspace.list`, and a seed host's store
// says `unsupported`.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { admin, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { barePage } from '../tests/support/pages.mjs'
import { NETWORK, guardPage } from '../tests/support/guard.mjs'

const SCRIPT = `
const host = new HostClient({ baseUrl: location.origin })
const store = await host.workspaces()
const seen = []
store.subscribe(() => seen.push(store.getSnapshot()))
window.__t = { host, store, seen, again: await host.workspaces() }
`

let n = 0
/** Another client's call (plain HTTP, as any program on the host's network would). */
async function call(url, method, payload) {
  const body = { type: 'client-request', rpcId: `other-${++n}`, method, payload }
  const r = await fetch(`${url}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const { result } = await r.json()
  assert.ok(result.ok, `${method}: ${JSON.stringify(result)}`)
  return result.value
}

describe('host.workspaces(): the 2026-08 host workspaces, kept live', () => {
  let dir, host, seedHost, browser, page, guard, lists

  before(async () => {
    dir = tempDir()
    const www = barePage(dir, 'workspaces.html', SCRIPT)
    for (const d of ['alpha', 'beta']) mkdirSync(join(dir, d))
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: www, faults: true, extra: ['--wire', '2026-08'] })
    seedHost = await startHost({ db: join(dir, 'seed.sqlite'), staticDir: www })
    browser = await launch()
    page = await browser.newPage()
    page.setDefaultTimeout(15_000)
    guard = await guardPage(page)
    lists = 0
    page.on('request', (r) => r.url().endsWith('/api/workspace.list') && lists++)
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    await killHost(seedHost)
    cleanup(dir)
  })

  const snap = () => page.evaluate(() => window.__t.store.getSnapshot())
  const until = (what, f, arg) => page.waitForFunction(f, arg, { timeout: 10_000 }).catch((e) => assert.fail(`${what}: ${e.message}`))

  it("shows another client's changes from the host's frames alone, unchanged records keeping their objects", async () => {
    await page.goto(`${host.url}/workspaces.html`)
    await until('the first list', () => window.__t?.store.getSnapshot().state === 'ready')
    assert.equal(await page.evaluate(() => window.__t.again === window.__t.store), true, 'one store per client')
    assert.deepEqual((await snap()).items, [])

    const a = (await call(host.url, 'workspace.create', { path: join(dir, 'alpha') })).workspace
    const b = (await call(host.url, 'workspace.create', { path: join(dir, 'beta') })).workspace
    await until('both workspaces', () => window.__t.store.getSnapshot().items.length === 2)
    assert.deepEqual((await snap()).items.map((w) => w.title), ['beta', 'alpha'], 'a new workspace first')

    const kept = await page.evaluate(() => (window.__t.alpha = window.__t.store.getSnapshot().items[1]).title)
    assert.equal(kept, 'alpha')
    await call(host.url, 'workspace.rename', { workspaceId: b.workspaceId, title: 'Beta renamed' })
    await until('the rename', () => window.__t.store.getSnapshot().items[0].title === 'Beta renamed')
    assert.equal(await page.evaluate(() => window.__t.store.getSnapshot().items[1] === window.__t.alpha), true, 'the unchanged workspace is the same object')
    assert.equal(await page.evaluate(() => Object.isFrozen(window.__t.store.getSnapshot().items[0])), true)

    await call(host.url, 'workspace.insertBefore', { workspaceId: a.workspaceId, beforeWorkspaceId: b.workspaceId })
    await until('the reorder', () => window.__t.store.getSnapshot().items[0].title === 'alpha')

    const { sessionId } = await call(host.url, 'session.create', { workspaceId: a.workspaceId })
    await until('the session in its workspace', () => window.__t.store.getSnapshot().items[0].sessionIds.length === 1)
    await call(host.url, 'workspace.archiveSession', { sessionId })
    await until('the archive', () => window.__t.store.getSnapshot().archivedSessionIds.length === 1)
    assert.deepEqual((await snap()).archivedSessionIds, [sessionId])

    await call(host.url, 'workspace.delete', { workspaceId: b.workspaceId })
    await until('the removal', () => window.__t.store.getSnapshot().items.length === 1)
    const s = await snap()
    assert.equal(s.items[0].workspaceId, a.workspaceId)
    assert.equal(s.dropped, 0)
    assert.equal(lists, 1, 'every change came from the frames: one workspace.list in all')
    // What the store shows is what the host lists.
    const listed = await call(host.url, 'workspace.list', {})
    assert.deepEqual({ items: s.items, archivedSessionIds: s.archivedSessionIds }, listed)
    assert.equal(await page.evaluate(() => window.__t.host.diagnostics().malformedFrames), 0, 'the workspace frames are read, not malformed')
  })

  it('a reconnect asks workspace.list again and shows what changed while the streams were down', async () => {
    const before = lists
    const generation = await page.evaluate(() => window.__t.host.getSnapshot().generation)
    guard.expect(NETWORK)
    await admin(host.url, { command: 'drop-streams' })
    await call(host.url, 'workspace.create', { path: join(dir, 'beta') })
    await until('the reconnect', (g) => window.__t.host.getSnapshot().state === 'open' && window.__t.host.getSnapshot().generation > g, generation)
    await page.waitForFunction(() => window.__t.store.getSnapshot().items.length === 2, undefined, { timeout: 10_000 })
    assert.ok(lists > before, 'the new connection asked workspace.list')
    const listed = await call(host.url, 'workspace.list', {})
    const s = await snap()
    assert.deepEqual({ items: s.items, archivedSessionIds: s.archivedSessionIds }, listed)
  })

  it("a seed host's store says unsupported without asking it: no failed request, no console error", async () => {
    const p = await browser.newPage()
    const g = await guardPage(p)
    const asked = []
    p.on('request', (r) => asked.push(new URL(r.url()).pathname))
    await p.goto(`${seedHost.url}/workspaces.html`)
    await p.waitForFunction(() => window.__t?.store.getSnapshot().state === 'unsupported', undefined, { timeout: 10_000 })
    const s = await p.evaluate(() => window.__t.store.getSnapshot())
    assert.equal(s.error.code, 'unsupported')
    assert.deepEqual(s.items, [])
    assert.ok(!asked.includes('/api/workspace.list'), `never asked: ${asked.join(' ')}`)
    assert.ok(asked.includes('/api/host.describe'), 'the description is what said so')
    g.assertClean()
    await p.close()
  })

  it('reported no page error, unhandled rejection or unexpected console error', () => guard.assertClean())
})
