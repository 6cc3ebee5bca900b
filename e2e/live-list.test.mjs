// The live session list across two browser contexts (two users of one host): titles, the
// running dot and "needs your answer" arrive live in the second context with no
// `session.list` polling; errors clear when the host comes back.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, cleanup, killHost, startHost, startHostOn, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { NETWORK, guardPage } from '../tests/support/guard.mjs'
import { docShot } from '../tests/support/a11y.mjs'

const DIST = join(ROOT, 'www', 'dist')
const T = 20_000

describe('live session list in two browser contexts', () => {
  let dir, db, host, browser, a, b, guardA, guardB
  const listCalls = { a: 0, b: 0 }

  const open = async (name) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })
    const page = await context.newPage()
    page.setDefaultTimeout(T)
    page.on('request', (r) => {
      if (r.url().endsWith('/api/session.list')) listCalls[name]++
    })
    return page
  }
  const item = (page, id) => page.locator(`.session-item[data-session-id="${id}"]`)

  before(async () => {
    assert.ok(existsSync(join(DIST, 'index.html')), 'www/dist missing: run scripts/e2e.mjs')
    dir = tempDir()
    db = join(dir, 'host.sqlite')
    host = await startHost({ db, staticDir: DIST, chunkDelayMs: 30, faults: true })
    browser = await launch()
    a = await open('a')
    b = await open('b')
    // The host is killed and restarted on purpose in the last scenario.
    guardA = (await guardPage(a)).expect(NETWORK)
    guardB = (await guardPage(b)).expect(NETWORK)
    await a.goto(host.url)
    await b.goto(host.url)
    for (const p of [a, b]) await p.waitForSelector('[data-testid="session-list"][data-state="ready"]')
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  let sid
  it('a session created in A appears in B, then its title and running dot, live', async () => {
    await a.getByTestId('new-session').click()
    await a.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    sid = await a.getByTestId('session-view').getAttribute('data-session-id')
    // "New session" leaves the composer focused.
    assert.equal(await a.evaluate(() => document.activeElement?.id), 'composer-input')
    await item(b, sid).waitFor()
    assert.equal((await item(b, sid).getByTestId('session-title').innerText()).trim(), 'New session')
    await a.getByTestId('composer-input').fill('Tidy the release notes for version two')
    await a.getByTestId('send').click()
    await b.waitForSelector(`.session-item[data-session-id="${sid}"][data-running="true"]`)
    assert.match(await item(b, sid).innerText(), /Working/, 'the running state is said in words')
    await b.waitForFunction(
      (id) => document.querySelector(`.session-item[data-session-id="${id}"] [data-testid="session-title"]`)?.textContent?.startsWith('Tidy the release notes'),
      sid,
    )
    await docShot(b, 'live-list-second-context')
    await b.waitForSelector(`.session-item[data-session-id="${sid}"][data-running="false"]`)
    // A and B show the same titles.
    const titles = async (p) => (await p.locator('.session-item [data-testid="session-title"]').allInnerTexts()).map((t) => t.trim())
    assert.deepEqual(await titles(b), await titles(a))
    assert.match((await titles(b))[0], /^Tidy the release notes/, 'the host title, not a local guess')
  })

  it('a turn waiting on a question reads "needs your answer" in B, and idle once answered in A', async () => {
    await a.getByTestId('composer-input').fill('Pick a layout [question]')
    await a.getByTestId('send').click()
    await b.waitForSelector(`.session-item[data-session-id="${sid}"][data-waiting="true"]`)
    assert.match(await item(b, sid).innerText(), /Needs your answer/)
    await a.getByTestId('status-waiting').waitFor()
    const card = a.getByTestId('question-card')
    await card.getByText('Refactor').click()
    await card.getByTestId('answer-submit').click()
    await b.waitForSelector(`.session-item[data-session-id="${sid}"][data-waiting="false"][data-running="false"]`)
    assert.match(await a.getByTestId('msg-assistant').last().innerText(), /The user answered \u201CRefactor\u201D\. Done\./)
  })

  it('never polled session.list: one seed per connection', () => {
    assert.equal(listCalls.a, 1, `A asked session.list ${listCalls.a} times`)
    assert.equal(listCalls.b, 1, `B asked session.list ${listCalls.b} times`)
  })

  it('a prompt made while the host is down waits as its echo and lands once; a failed create clears when the host comes back', async () => {
    await killHost(host, 'SIGKILL')
    await a.waitForSelector('[data-testid="connection-banner"][data-state="reconnecting"]')
    await a.getByTestId('composer-input').fill('Are you there?')
    await a.getByTestId('send').click()
    // The outbox holds it: its echo shows at once, waiting for the connection, and no error.
    const echo = a.locator('[data-testid="msg-user"].echo', { hasText: 'Are you there?' })
    await echo.waitFor()
    assert.match(await echo.innerText(), /Waiting for the connection/)
    assert.equal(await a.getByTestId('composer-error').count(), 0, 'a prompt made offline waits: no error')
    await a.getByTestId('new-session').click()
    await a.getByTestId('create-error').waitFor()
    host = await startHostOn(host.url, { db, staticDir: DIST, chunkDelayMs: 30, faults: true })
    await a.waitForSelector('[data-testid="connection-banner"]', { state: 'detached', timeout: 30_000 })
    // Sent once it is back: the host's node replaces the echo, with no duplicate.
    await a.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll('[data-testid="msg-user"]')].filter((r) => r.textContent.includes('Are you there?'))
        return rows.length === 1 && !rows[0].classList.contains('echo')
      },
      null,
      { timeout: 30_000 },
    )
    assert.equal(await a.getByTestId('composer-error').count(), 0)
    await a.getByTestId('create-error').waitFor({ state: 'detached' })
    // The reconnected B re-seeds: the title survived the restart (stored by the host).
    await b.waitForSelector('[data-testid="connection-banner"]', { state: 'detached', timeout: 30_000 })
    assert.match(await item(b, sid).getByTestId('session-title').innerText(), /^Tidy the release notes/)
  })

  it('logged no page error, unhandled rejection or unexpected console error', () => {
    guardA.assertClean()
    guardB.assertClean()
  })
})
