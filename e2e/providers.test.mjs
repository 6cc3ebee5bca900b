// One plan-mode turn per provider profile of the REAL reference host (no injected frames):
// the user picks the provider in the demo's "New session" picker, turns plan mode on, sends a
// prompt, and the page shows what that provider's capabilities allow:
//   Codex  → step list with statuses, streaming plan prose, a question card answered in the UI,
//            then the proposed plan with "Implement";
//   Claude → a question card, then the proposed-plan handoff card (no step list: it has no
//            native plan updates);
//   Cursor → the mode indicator says plan, the plan arrives as plain assistant text, and there is
//            no step list, no question card and no proposed-plan card.
// Screenshots: target/screenshots/provider-{codex,claude,cursor}.png (+ the question cards).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { shot } from '../tests/support/browser.mjs'
import { openDemo } from '../tests/support/demo.mjs'

const DIST = join(ROOT, 'www', 'dist')
const T = 20_000

describe('provider profiles: one plan-mode turn each, through the demo UI', () => {
  let dir, host, browser, page, guard

  before(async () => {
    assert.ok(existsSync(join(DIST, 'index.html')), 'www/dist missing: run scripts/e2e.mjs (or npm --prefix www run build)')
    dir = tempDir()
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: DIST, chunkDelayMs: 20, faults: true })
    ;({ browser, page, guard } = await openDemo(host.url, { timeout: T }))
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  const tid = (id) => page.getByTestId(id)
  const t0 = Date.now()
  const mark = (m) => process.env.E2E_TRACE && console.log(`[${Date.now() - t0}ms] ${m}`)

  /** New session with `provider` from the picker, plan mode on (pending), one prompt sent. */
  async function planTurn(provider, text) {
    const previous = (await tid('session-view').count()) ? await tid('session-view').getAttribute('data-session-id') : null
    await tid('provider-select').selectOption(provider)
    await tid('new-session').click()
    await page.waitForFunction(
      (prev) => {
        const v = document.querySelector('[data-testid="session-view"]')
        return v && v.getAttribute('data-open-state') === 'open' && v.getAttribute('data-session-id') !== prev
      },
      previous,
    )
    const id = await tid('session-view').getAttribute('data-session-id')
    mark(`${provider}: session open`)
    // The profile's capabilities and mode are published at create (seq −1, nothing logged).
    await page.waitForSelector('[data-testid="mode-indicator"]')
    assert.equal((await tid('mode-indicator').innerText()).trim(), 'Default', `${provider}: mode before the turn`)
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    await tid('plan-chip').click()
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="pending-on"]')
    await tid('composer-input').fill(text)
    await tid('send').click()
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="on"]')
    await page.waitForFunction(() => document.querySelector('[data-testid="mode-indicator"]')?.textContent?.trim() === 'Planning')
    mark(`${provider}: planning`)
    // The sidebar row carries the host's title (the live list), not a browser-side guess.
    await page.waitForFunction(
      ([sid, first]) => document.querySelector(`[data-session-id="${sid}"].session-item [data-testid="session-title"]`)?.textContent?.startsWith(first),
      [id, text.split(' ').slice(0, 3).join(' ')],
    )
    mark(`${provider}: sidebar title`)
    return id
  }

  async function stepStatuses() {
    return tid('plan-steps')
      .locator('li.step')
      .evaluateAll((lis) => lis.map((li) => ['pending', 'inProgress', 'completed'].find((c) => li.classList.contains(c))))
  }

  it('Codex: step list with statuses, streaming prose, a question card answered in the UI, the proposed plan', async () => {
    await planTurn('codex', 'Add a --verbose flag to the CLI.')
    // Native structured plan updates: a step list whose statuses move.
    await tid('plan-steps').waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="plan-steps"] li.step.inProgress').length === 1)
    assert.equal(await tid('plan-steps').locator('li.step').count(), 3)
    assert.match(await tid('plan-steps').innerText(), /Inspect the relevant files/)
    // The turn waits on a structured user-input prompt (two single-select questions).
    const card = tid('user-input-card')
    await card.waitFor()
    mark('codex: card')
    assert.deepEqual(await stepStatuses(), ['completed', 'inProgress', 'pending'])
    assert.match(await tid('plan-steps').innerText(), /1\/3 done/)
    assert.equal(await card.locator('fieldset.question').count(), 2)
    assert.match(await card.locator('fieldset.question legend').first().innerText(), /^SCOPE\s+How much/i, 'the header reads above the question')
    assert.match(await card.innerText(), /How much should the change cover\?/)
    assert.match(await card.innerText(), /Should the plan add tests\?/)
    assert.equal(await card.locator('input[type="radio"]').count(), 4, 'single-select questions render radios')
    assert.equal(await card.locator('input.text-input').count(), 1, 'only the first question allows free text')
    assert.equal(await tid('status-waiting').count(), 1, 'the open turn says it waits on the user, not "Working"')
    assert.equal(await tid('working').count(), 0, 'no typing indicator while the agent waits on the user')
    await card.getByText('Minimal (Recommended)').click()
    await card.locator('fieldset.question').nth(1).getByText('Yes', { exact: true }).click()
    await card.scrollIntoViewIfNeeded()
    await shot(page, 'provider-codex-question')
    mark('codex: submit')
    await tid('user-input-submit').click()
    // The prompt resolves (a completed interaction in the conversation) and the turn continues.
    await card.waitFor({ state: 'detached' })
    const resolved = tid('resolved-prompt')
    await resolved.waitFor()
    assert.match(await resolved.innerText(), /answered/i)
    assert.match(await resolved.innerText(), /How much should the change cover\?: Minimal \(Recommended\)/)
    assert.match(await resolved.innerText(), /Should the plan add tests\?: Yes/)
    // Plan prose streams (plan/text-delta), alongside the steps.
    await tid('plan-text').waitFor()
    assert.match(await tid('plan-text').innerText(), /Drafting a plan|Plan/i)
    assert.equal(await tid('plan-steps').count(), 1, 'the prose streams alongside the step list')
    // Let a few lines stream in for the screenshot (the card goes once the plan is proposed).
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="plan-text"]')
      return !el || /relevant files/.test(el.textContent ?? '')
    })
    if (await tid('plan-text').count()) await shot(page, 'provider-codex-streaming')
    // …then the proposed plan: in the conversation and as the handoff card with "Implement".
    await tid('plan-node').waitFor()
    await tid('proposed-plan').waitFor()
    await tid('status-idle').waitFor()
    assert.match(await tid('plan-node').innerText(), /scope: Minimal \(Recommended\); tests: Yes/)
    assert.equal(await tid('plan-text').count(), 0, 'the finished prose is carried by the proposed plan')
    assert.deepEqual(await stepStatuses(), ['completed', 'completed', 'completed'])
    assert.match(await tid('plan-steps').innerText(), /3\/3 done/)
    assert.match(await page.getByTestId('msg-assistant').last().innerText(), /The plan is ready/)
    const implement = tid('proposed-plan').getByTestId('implement')
    assert.equal((await implement.innerText()).trim(), 'Implement')
    assert.ok(await implement.isEnabled(), 'Implement is available (the host plan service leaves plan mode)')
    await shot(page, 'provider-codex')
    // "Implement" leaves plan mode *and* asks for the implementation (one action, as peers do).
    const users = await tid('msg-user').count()
    await implement.click()
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="msg-user"]').length === n + 1, users)
    // The bubble's text (the echo may still say "Sending…" under it).
    assert.equal((await tid('msg-user').last().locator('.bubble').innerText()).trim(), 'Implement the plan.')
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    await tid('status-idle').waitFor()
    // The handed-off plan's step list is not pinned under the newer messages.
    assert.equal(await tid('plan-steps').count(), 0, 'no step panel after the handoff')
    assert.equal(await tid('proposed-plan').count(), 0)
  })

  it('Claude: a question card, then the proposed-plan handoff card', async () => {
    await planTurn('claude', 'Add a --verbose flag to the CLI.')
    const card = tid('user-input-card')
    await card.waitFor()
    assert.match(await card.innerText(), /Which approach should the plan take\?/)
    assert.equal(await card.locator('input[type="radio"]').count(), 2)
    assert.equal(await tid('proposed-plan').count(), 0, 'no plan before the question is answered')
    assert.equal(await tid('plan-steps').count(), 0, 'no native step list')
    assert.ok((await tid('tool-card').count()) >= 1, 'the Read tool call is shown')
    await card.getByText('Small change').click()
    await card.scrollIntoViewIfNeeded()
    await shot(page, 'provider-claude-question')
    await tid('user-input-submit').click()
    await card.waitFor({ state: 'detached' })
    await tid('resolved-prompt').waitFor()
    assert.match(await tid('resolved-prompt').innerText(), /Which approach should the plan take\?: Small change/)
    // ExitPlanMode → the proposed plan (native) and the handoff card.
    await tid('proposed-plan').waitFor()
    await tid('plan-node').waitFor()
    await tid('status-idle').waitFor()
    assert.match(await tid('plan-node').innerText(), /Make the change \(Small change\)/)
    assert.match(await page.getByTestId('msg-assistant').last().innerText(), /Going with: Small change/)
    assert.ok(await tid('implement').isEnabled())
    // Steps synthesized from the markdown are not a native claim: still no step list.
    assert.equal(await tid('plan-steps').count(), 0)
    assert.equal(await tid('plan-text').count(), 0)
    await shot(page, 'provider-claude')
  })

  it('Cursor: the mode says plan, the plan is plain text, and nothing else', async () => {
    await planTurn('cursor', 'Add a --verbose flag to the CLI.')
    await tid('status-idle').waitFor()
    await page.waitForFunction(() => /Verify and report back/.test(document.querySelector('[data-testid="messages"]')?.textContent ?? ''))
    assert.equal((await tid('mode-indicator').innerText()).trim(), 'Planning')
    const reply = page.getByTestId('msg-assistant').last()
    assert.match(await reply.innerText(), /Plan[\s\S]*Understand the request[\s\S]*Verify and report back/)
    for (const absent of ['plan-steps', 'plan-text', 'user-input-card', 'proposed-plan', 'plan-node', 'resolved-prompt']) {
      assert.equal(await tid(absent).count(), 0, `cursor shows no ${absent}`)
    }
    await shot(page, 'provider-cursor')
  })

  it('logged no page error, unhandled rejection or console error', () => {
    guard.assertClean()
  })
})
