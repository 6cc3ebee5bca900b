// "Load older" paging on a long session (seeded through the host's --faults seed command):
// older pages prepend without duplicates and the view keeps its place.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { ROOT, admin, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch, shot } from '../tests/support/browser.mjs'
import { guardPage } from '../tests/support/guard.mjs'

describe('load older', () => {
  let dir, host, browser, page, sessionId, guard

  before(async () => {
    dir = tempDir()
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: join(ROOT, 'www', 'dist'), chunkDelayMs: 5, faults: true })
    sessionId = (await admin(host.url, { command: 'seed', events: 2000, messageEvery: 10 })).results[0].sessionId
    browser = await launch()
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    page.setDefaultTimeout(20_000)
    guard = await guardPage(page)
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  const texts = () => page.locator('[data-testid="messages"] > *').allInnerTexts()

  it('pages back to the start of the session', async () => {
    await page.goto(`${host.url}/#s=${encodeURIComponent(sessionId)}`)
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    const first = await texts()
    assert.ok(first.length > 0 && first.length < 400, `tail page only (${first.length} rows)`)
    assert.ok(await page.getByTestId('load-older').isVisible())
    let rows = first
    let pages = 0
    while ((await page.getByTestId('load-older').count()) > 0 && pages < 20) {
      const prev = rows
      await page.getByTestId('load-older').click()
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="messages"] > *').length > n, prev.length)
      await page.waitForFunction(() => !document.querySelector('[data-testid="load-older"]:disabled'))
      rows = await texts()
      pages++
      // the older page is prepended; the rows already shown are unchanged, at the end
      assert.deepEqual(rows.slice(rows.length - prev.length), prev)
    }
    assert.ok(pages >= 1)
    assert.equal(await page.getByTestId('load-older').count(), 0, 'hasMore ends at the start of the log')
    assert.match(rows[0] ?? '', /seed message 0\b/)
    assert.equal(rows.filter((t) => /^seed message \d+$/.test(t.trim())).length, 200, 'every user message exactly once')
    assert.equal(new Set(rows).size, rows.length, 'no duplicated rows')
    await page.getByTestId('conversation').locator('.msg').first().scrollIntoViewIfNeeded()
    await shot(page, '08-load-older')
  })

  it('logged no page error, unhandled rejection or console error', () => {
    guard.assertClean()
  })
})
