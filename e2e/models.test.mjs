// `host.models(sessionId)` (docs/API.md "Models") against the reference host speaking the
// 2026-08 wire: a bare page that imports the package entry picks models. Checked: the
// directory and the current selection as the host lists them, a pick shown as `pending` and
// then as the host confirmed it, an older pick's late answer never overwriting a newer pick
// (the host's answer to the first is held), a refused pick, and one store per session.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { admin, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { barePage } from '../tests/support/pages.mjs'
import { guardPage } from '../tests/support/guard.mjs'

const SCRIPT = `
const host = new HostClient({ baseUrl: location.origin })
window.__t = { host }
`

describe('host.models(sessionId): one session model directory and selection, behind a fence', () => {
  let dir, host, browser, page, guard, sessionId

  before(async () => {
    dir = tempDir()
    const www = barePage(dir, 'models.html', SCRIPT)
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: www, faults: true, extra: ['--wire', '2026-08'] })
    browser = await launch()
    page = await browser.newPage()
    page.setDefaultTimeout(15_000)
    guard = await guardPage(page)
    await page.goto(`${host.url}/models.html`)
    await page.waitForFunction(() => window.__t?.host.getSnapshot().state === 'open')
    sessionId = await page.evaluate(async () => (await window.__t.host.createSession()).value.sessionId)
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  const snap = () => page.evaluate(() => window.__t.m.getSnapshot())

  it("lists the host's directory and current selection; one store per session", async () => {
    await page.evaluate(async (id) => {
      const t = window.__t
      t.m = await t.host.models(id)
      t.same = (await t.host.models(id)) === t.m
      await new Promise((r) => (t.m.getSnapshot().state !== 'loading' ? r() : t.m.subscribe(r)))
    }, sessionId)
    const s = await snap()
    assert.equal(s.state, 'ready')
    assert.deepEqual(s.groups.map((g) => g.id), ['scripted', 'codex', 'claude', 'cursor'])
    assert.deepEqual(s.current, { provider: 'scripted', model: 'scripted-agent-1' })
    assert.equal(s.pending, null)
    assert.equal(await page.evaluate(() => window.__t.same && Object.isFrozen(window.__t.m.getSnapshot().groups[0])), true)
    await assert.rejects(page.evaluate(() => window.__t.host.models('')), /sessionId must be a non-empty string/)
  })

  it("an older pick's late answer never overwrites a newer pick", async () => {
    // The host applies the first pick at once and holds its answer; the second is answered.
    await admin(host.url, { command: 'withhold', count: 1 })
    const seen = await page.evaluate(() => {
      const t = window.__t
      t.first = t.m.select({ provider: 'codex', model: 'gpt-5.1-codex' })
      return t.m.getSnapshot().pending
    })
    assert.deepEqual(seen, { provider: 'codex', model: 'gpt-5.1-codex' }, 'shown as pending at once')
    await new Promise((r) => setTimeout(r, 200))
    const second = await page.evaluate(() => window.__t.m.select({ provider: 'claude', model: 'claude-sonnet-4-5-20250929' }))
    assert.equal(second.ok, true)
    assert.deepEqual((await snap()).current, { provider: 'claude', model: 'claude-sonnet-4-5-20250929' })
    await admin(host.url, { command: 'release' })
    const first = await page.evaluate(() => window.__t.first)
    assert.equal(first.ok, true, 'the first pick was answered too')
    const s = await snap()
    assert.deepEqual(s.current, { provider: 'claude', model: 'claude-sonnet-4-5-20250929' }, 'the newer pick stands')
    assert.equal(s.pending, null)
    // And the host agrees: the newest pick is its selection.
    const listed = await page.evaluate((id) => window.__t.host.call('session.models', { sessionId: id }), sessionId)
    assert.deepEqual(listed.value.current, s.current)
  })

  it('a refused pick shows the host error and keeps the confirmed selection', async () => {
    const r = await page.evaluate(() => window.__t.m.select({ provider: 'nope', model: 'm' }))
    assert.equal(r.ok, false)
    const s = await snap()
    assert.equal(s.error.code, 'model-unavailable')
    assert.equal(s.pending, null)
    assert.deepEqual(s.current, { provider: 'claude', model: 'claude-sonnet-4-5-20250929' })
  })

  it('reported no page error, unhandled rejection or unexpected console error', () => guard.assertClean())
})
