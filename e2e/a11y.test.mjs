// Accessibility: axe-core (WCAG 2.1 A/AA rules) on each main view of the demo must report no
// serious or critical violation: the empty state, a streaming conversation, a question card,
// an approval card and the reconnect banner. Each view is also saved to target/screenshots/.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, cleanup, killHost, startHost, startHostOn, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { NETWORK, guardPage } from '../tests/support/guard.mjs'
import { docShot, seriousViolations } from '../tests/support/a11y.mjs'

const DIST = join(ROOT, 'www', 'dist')
const T = 20_000

describe('accessibility of the main views', () => {
  let dir, db, host, browser, page, guard
  const results = {}

  before(async () => {
    assert.ok(existsSync(join(DIST, 'index.html')), 'www/dist missing: run scripts/e2e.mjs')
    dir = tempDir()
    db = join(dir, 'host.sqlite')
    // Slow chunks so the streaming view stays on screen while axe runs.
    host = await startHost({ db, staticDir: DIST, chunkDelayMs: 250, faults: true })
    browser = await launch()
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })
    page = await context.newPage()
    page.setDefaultTimeout(T)
    guard = (await guardPage(page)).expect(NETWORK)
    await page.goto(host.url)
    await page.waitForSelector('[data-testid="session-list"][data-state="ready"]')
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
    console.log(`axe serious/critical violations per view: ${JSON.stringify(results)}`)
  })

  const check = async (view) => {
    const v = await seriousViolations(page)
    results[view] = v.length
    await docShot(page, `a11y-${view}`)
    assert.deepEqual(v, [], `${view}: serious or critical axe violations`)
  }

  it('the empty state, with example prompts', async () => {
    await page.getByTestId('empty-state').waitFor()
    await page.getByTestId('example-question').waitFor()
    await check('empty-state')
  })

  it('a streaming conversation', async () => {
    await page.getByTestId('new-session').click()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    await page.getByTestId('examples').waitFor()
    await docShot(page, 'a11y-new-session-examples')
    await page.getByTestId('composer-input').fill('Explain how the session list stays live without any polling at all')
    await page.getByTestId('send').click()
    await page.getByTestId('msg-partial').waitFor()
    await page.getByTestId('status-running').waitFor()
    await check('streaming')
  })

  it('a question card (from the example prompt)', async () => {
    await page.getByTestId('stop').click()
    await page.getByTestId('status-idle').waitFor()
    await page.getByTestId('new-session').click()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    await page.getByTestId('example-question').click()
    await page.getByTestId('question-card').waitFor()
    await page.getByTestId('status-waiting').waitFor()
    await check('question-card')
    await page.getByTestId('question-card').getByText('Small change (Recommended)').click()
    await page.getByTestId('answer-submit').click()
    await page.getByTestId('status-idle').waitFor({ timeout: 60_000 })
  })

  it('an approval card (from the example prompt)', async () => {
    await page.getByTestId('new-session').click()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    await page.getByTestId('example-approval').click()
    await page.getByTestId('approval-card').waitFor()
    await check('approval-card')
  })

  it('the reconnect banner', async () => {
    await killHost(host, 'SIGKILL')
    await page.waitForSelector('[data-testid="connection-banner"][data-state="reconnecting"]')
    const text = await page.getByTestId('banner-text').innerText()
    assert.match(text, /^Connection lost\. (Retrying in \d+s|Reconnecting now…) \(attempt 1\)$/, text)
    assert.match(await page.getByTestId('conn-status').innerText(), /Reconnecting|Connecting/, 'the state in words, not only a colour')
    await check('reconnect-banner')
    host = await startHostOn(host.url, { db, staticDir: DIST, chunkDelayMs: 20, faults: true })
    await page.waitForSelector('[data-testid="connection-banner"]', { state: 'detached', timeout: 30_000 })
    // The approval asked before the restart is gone with the killed turn; the view recovered.
    await page.getByTestId('status-idle').waitFor()
    await docShot(page, 'a11y-recovered')
  })

  it('logged no page error, unhandled rejection or unexpected console error', () => {
    guard.assertClean()
  })
})
