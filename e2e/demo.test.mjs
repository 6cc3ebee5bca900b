// End-to-end: the demo UI (www/dist) served by the reference host, driven in Chromium.
// A user creates a session, turns plan mode on (pending), sends a prompt (plan mode becomes
// active, the reply streams), answers a question, stops a running turn; then the host is
// killed (-9) and restarted on the same port with the same db, and the page recovers by itself
// with no lost or duplicated message.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, admin, cleanup, killHost, startHost, startHostOn, tempDir } from '../tests/support/host.mjs'
import { launch, shot } from '../tests/support/browser.mjs'
import { NETWORK, guardPage } from '../tests/support/guard.mjs'

const DIST = join(ROOT, 'www', 'dist')
const T = 20_000

describe('demo UI against the reference host', () => {
  let dir, db, host, browser, page, guard

  before(async () => {
    assert.ok(existsSync(join(DIST, 'index.html')), 'www/dist missing: run scripts/e2e.mjs (or npm --prefix www run build)')
    dir = tempDir()
    db = join(dir, 'host.sqlite')
    host = await startHost({ db, staticDir: DIST, chunkDelayMs: 20, faults: true })
    browser = await launch()
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })
    page = await context.newPage()
    page.setDefaultTimeout(T)
    // The host is killed and restarted on purpose: the browser logs the refused requests.
    guard = (await guardPage(page)).expect(NETWORK)
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  const chip = () => page.getByTestId('plan-chip')
  const messagesText = () => page.getByTestId('messages').innerText()

  it('loads the app and connects', async () => {
    await page.goto(host.url)
    await page.getByTestId('new-session').waitFor()
    await page.waitForFunction(() => !document.querySelector('[data-testid="connection-banner"]'))
  })

  it('creates a session', async () => {
    await page.getByTestId('new-session').click()
    await page.getByTestId('session-view').waitFor()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    // The plan service is mounted: the host-confirmed state arrives as "off".
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    const id = await page.getByTestId('session-view').getAttribute('data-session-id')
    assert.match(id, /\S/)
    await page.waitForSelector(`[data-session-id="${id}"].session-item`)
  })

  it('turns plan mode on and sees it pending', async () => {
    // Slow the next unary responses down so the in-flight selection is observable: the chip is
    // disabled (aria-busy) until the host answers, and shows only the host-confirmed state.
    await admin(host.url, { command: 'delay', count: 3, ms: 1200 })
    await chip().click()
    await page.waitForSelector('[data-testid="plan-chip"][aria-busy="true"]:disabled', { timeout: 1000 })
    assert.equal(await chip().getAttribute('data-plan'), 'off', 'nothing speculative while the selection is in flight')
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="pending-on"]')
    await page.waitForSelector('[data-testid="plan-chip"][aria-busy="false"]:enabled')
    await admin(host.url, { command: 'clear' })
    assert.equal((await chip().innerText()).trim(), 'Plan mode starts with the next request')
    await shot(page, '01-plan-chip-pending')
  })

  it('sends a prompt: plan mode becomes active and the reply streams', async () => {
    await page.getByTestId('composer-input').fill('Plan a hello-world script in Python.')
    await page.getByTestId('send').click()
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="on"]')
    assert.equal((await chip().innerText()).trim(), 'Plan mode on')
    // The reply streams: a partial assistant message is visible before it is finalized.
    await page.getByTestId('msg-partial').waitFor()
    await page.waitForFunction(() => (document.querySelector('[data-testid="msg-partial"]')?.textContent ?? '').length > 60)
    await shot(page, '02-plan-active-streaming')
    const partialText = await page.getByTestId('msg-partial').innerText()
    await page.waitForSelector('[data-testid="status-idle"]')
    const reply = page.getByTestId('msg-assistant').last()
    const text = await reply.innerText()
    assert.match(text, /Plan/)
    assert.match(text, /Understand the request/)
    assert.ok(text.length >= partialText.length, 'the final message contains at least the streamed text')
    assert.equal(await page.getByTestId('msg-partial').count(), 0)
    await shot(page, '03-streamed-answer')
  })

  it('answers a question', async () => {
    // Leave plan mode (pending until the next request), then ask for a question.
    await chip().click()
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="pending-off"]')
    assert.equal((await chip().innerText()).trim(), 'Plan mode ends with the next request')
    await page.getByTestId('composer-input').fill('Rename the helper module. [question]')
    await page.getByTestId('send').click()
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    const card = page.getByTestId('question-card')
    await card.waitFor()
    assert.match(await card.innerText(), /Which approach should I take\?/)
    await card.getByText('Small change (Recommended)').click()
    await shot(page, '04-question-card')
    await card.getByTestId('answer-submit').click()
    await card.waitFor({ state: 'detached' })
    await page.waitForSelector('[data-testid="status-idle"]')
    const last = await page.getByTestId('msg-assistant').last().innerText()
    assert.match(last, /The user answered/)
    assert.match(last, /Small change/)
    assert.ok((await page.getByTestId('tool-card').count()) >= 1, 'the ask_user_question call is shown as a tool card')
  })

  it('stops a running turn', async () => {
    await page.getByTestId('composer-input').fill('Clean the build directory. [approval]')
    await page.getByTestId('send').click()
    await page.getByTestId('approval-card').waitFor()
    // The turn is open but waits on the user: the header says so (not "Working").
    await page.getByTestId('status-waiting').waitFor()
    await page.getByTestId('stop').click()
    await page.getByTestId('approval-card').waitFor({ state: 'detached' })
    await page.getByTestId('status-idle').waitFor()
    // The interrupted tool call is shown as such, and no final answer was produced.
    await page.waitForSelector('[data-testid="tool-card"][data-status="interrupted"]')
  })

  it('recovers by itself after the host is killed and restarted on the same port', async () => {
    const before = await messagesText()
    const userCount = await page.getByTestId('msg-user').count()
    assert.ok(userCount >= 3)
    await killHost(host, 'SIGKILL')
    const banner = page.getByTestId('connection-banner')
    await banner.waitFor()
    await page.waitForSelector('[data-testid="connection-banner"][data-state="reconnecting"]')
    await shot(page, '05-connection-lost')
    host = await startHostOn(host.url, { db, staticDir: DIST, chunkDelayMs: 20, faults: true })
    await banner.waitFor({ state: 'detached', timeout: 30_000 })
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    // Give the resync a moment to land, then compare: nothing lost, nothing duplicated.
    await page.waitForTimeout(500)
    const afterText = await messagesText()
    assert.equal(afterText, before)
    assert.equal(await page.getByTestId('msg-user').count(), userCount)
    // The recovered session keeps working: one more exchange adds exactly one user message.
    await page.getByTestId('composer-input').fill('Thanks, that is all.')
    await page.getByTestId('send').click()
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="msg-user"]').length === n, userCount + 1)
    await page.getByTestId('status-idle').waitFor()
    await page.waitForFunction(() => !document.querySelector('[data-testid="msg-partial"]'))
    const final = await messagesText()
    assert.ok(final.startsWith(before), 'the history before the restart is unchanged')
    assert.match(final, /Thanks, that is all\./)
    assert.equal(final.split('Thanks, that is all.').length - 1, 2, 'the new prompt and its echo in the reply, once each')
    await shot(page, '06-recovered')
  })

  it('created a session with a provider profile from the picker', async () => {
    await page.getByTestId('provider-select').selectOption('codex')
    await page.getByTestId('new-session').click()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    const r = await admin(host.url, { command: 'status' })
    assert.equal(r.ok, true)
  })

  it('logged no page error, unhandled rejection or unexpected console error', () => {
    guard.assertClean()
  })
})
