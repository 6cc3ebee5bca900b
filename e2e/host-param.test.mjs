// `?host=` points the UI at another host (which must allow the page's origin through CORS).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { ROOT, admin, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { guardPage } from '../tests/support/guard.mjs'

describe('?host= override', () => {
  let dir, web, api, browser

  before(async () => {
    dir = tempDir()
    web = await startHost({ db: join(dir, 'web.sqlite'), staticDir: join(ROOT, 'www', 'dist'), faults: false })
    api = await startHost({ db: join(dir, 'api.sqlite'), faults: true, extra: ['--allow-origin', web.url] })
    browser = await launch()
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(web)
    await killHost(api)
    cleanup(dir)
  })

  it('talks to the host named in the query, not the page origin', async () => {
    const { sessionId } = (await admin(api.url, { command: 'seed', events: 40, messageEvery: 10 })).results[0]
    const page = await browser.newPage()
    page.setDefaultTimeout(20_000)
    const guard = await guardPage(page)
    await page.goto(`${web.url}/?host=${encodeURIComponent(api.url)}#s=${encodeURIComponent(sessionId)}`)
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    assert.match(await page.getByTestId('messages').innerText(), /seed message 30/)
    await page.waitForSelector(`.session-item[data-session-id="${sessionId}"]`)
    assert.equal(await page.locator('.session-item').count(), 1, 'the list comes from the named host')
    guard.assertClean()
  })
})
