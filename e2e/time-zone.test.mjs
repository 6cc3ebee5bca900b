// End-to-end: every prompt carries the browser's time zone as `clientTimeZone`, as upstream's
// own client sends it (docs/API.md, the `clientTimeZone` option). A page in a browser whose zone
// is Pacific/Auckland prompts the reference host speaking the 2026-08 wire, which keeps the zone on
// the user message's source, and the seed dialect, whose schema drops it; `clientTimeZone: null`
// sends none.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { barePage } from '../tests/support/pages.mjs'
import { guardPage } from '../tests/support/guard.mjs'

const ZONE = 'Pacific/Auckland'

const SCRIPT = `
window.__prompt = async (options) => {
  const host = new HostClient({ baseUrl: location.origin, ...options })
  const created = await host.createSession()
  const s = host.session(created.value.sessionId)
  await s.open()
  const r = await s.prompt([{ type: 'text', text: 'What time is it?' }])
  host.close()
  return { sessionId: created.value.sessionId, ok: r.ok, zone: Intl.DateTimeFormat().resolvedOptions().timeZone }
}
window.__ready = true
`

/** The `source` of the session's first `user/message`, read from its log over plain HTTP. */
async function userSource(url, sessionId) {
  for (let i = 0; i < 100; i++) {
    const body = { type: 'client-request', rpcId: `t-${i}`, method: 'session.history', payload: { sessionId } }
    const r = await fetch(`${url}/api/session.history`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const { result } = await r.json()
    const user = result.value.events.map((i) => i.event).find((e) => e.type === 'user/message')
    if (user) return user.data.source ?? user.data.message?.source
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`no user/message in ${sessionId}`)
}

describe("prompts carry the browser's time zone", () => {
  let dir, upstream, seed, browser, page, guard

  before(async () => {
    dir = tempDir()
    const www = barePage(dir, 'zone.html', SCRIPT)
    upstream = await startHost({ db: join(dir, 'upstream.sqlite'), staticDir: www, chunkDelayMs: 0, extra: ['--wire', '2026-08'] })
    seed = await startHost({ db: join(dir, 'seed.sqlite'), staticDir: www, chunkDelayMs: 0 })
    browser = await launch()
    const context = await browser.newContext({ timezoneId: ZONE })
    page = await context.newPage()
    page.setDefaultTimeout(20_000)
    guard = await guardPage(page)
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(upstream)
    await killHost(seed)
    cleanup(dir)
  })

  async function prompt(url, options) {
    await page.goto(`${url}/zone.html`)
    await page.waitForFunction(() => window.__ready)
    return page.evaluate((o) => window.__prompt(o), options)
  }

  it('the 2026-08 host keeps it on the user message', async () => {
    const r = await prompt(upstream.url, {})
    assert.deepEqual({ ok: r.ok, zone: r.zone }, { ok: true, zone: ZONE }, 'the page runs in the zone asked for')
    const source = await userSource(upstream.url, r.sessionId)
    assert.equal(source.clientTimeZone, ZONE)
    assert.equal(source.kind, 'user')
  })

  it('an app that says clientTimeZone: null sends none', async () => {
    const r = await prompt(upstream.url, { clientTimeZone: null })
    assert.ok(r.ok)
    const source = await userSource(upstream.url, r.sessionId)
    assert.equal(source.clientTimeZone, undefined)
  })

  it("the seed host takes the prompt and drops the member its schema does not know", async () => {
    const r = await prompt(seed.url, {})
    assert.ok(r.ok)
    const source = await userSource(seed.url, r.sessionId)
    assert.equal(source.clientTimeZone, undefined)
  })

  it('reported no page error, unhandled rejection or unexpected console error', () => guard.assertClean())
})
