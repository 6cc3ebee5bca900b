// The capability-driven parts of the demo (Extension 2: mode indicator, structured plan steps,
// the proposed-plan handoff, structured user-input prompts). Until the reference host's
// provider profiles emit them, the test splices `session/projection` frames into the page's
// real mux stream (a fetch wrapper for SSE and a WebSocket wrapper, installed before the app
// boots), so the package's own projection store and snapshot feed the UI exactly as a live
// host would.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { ROOT, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch, shot } from '../tests/support/browser.mjs'
import { guardPage } from '../tests/support/guard.mjs'

const DIST = join(ROOT, 'www', 'dist')

const SPLICE = () => {
  const realFetch = window.fetch.bind(window)
  const enc = new TextEncoder()
  window.__inject = null
  window.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const res = await realFetch(input, init)
    if (!url.endsWith('/api/events.mux') || !res.body) return res
    const up = res.body.getReader()
    const body = new ReadableStream({
      start(c) {
        window.__inject = (frames) =>
          c.enqueue(enc.encode(frames.map((f, i) => `data: ${JSON.stringify({ type: 'server-request', rpcId: `inj-${Date.now()}-${i}`, method: f.type, payload: f })}\n\n`).join('')))
      },
      async pull(c) {
        const { done, value } = await up.read()
        if (done) c.close()
        else c.enqueue(value)
      },
      cancel(r) {
        void up.cancel(r)
      },
    })
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
  }
  // Over WebSocket a spliced frame is one more message event on the mux socket.
  const RealWebSocket = window.WebSocket
  window.WebSocket = class extends RealWebSocket {
    constructor(url, protocols) {
      super(url, protocols)
      if (!new URL(url, location.href).pathname.endsWith('/api/events.mux')) return
      this.addEventListener('open', () => {
        window.__inject = (frames) =>
          frames.forEach((f, i) => {
            const data = JSON.stringify({ type: 'server-request', rpcId: `inj-${Date.now()}-${i}`, method: f.type, payload: f })
            this.dispatchEvent(new MessageEvent('message', { data }))
          })
      })
    }
  }
}

const CAPS = {
  supportsPlanMode: true,
  supportsAskMode: false,
  supportsStructuredPlanUpdates: true,
  supportsPlanTextStreaming: true,
  supportsStructuredUserInput: true,
  supportsFreeformUserInput: true,
  supportsExitPlanMode: true,
}

describe('capability-driven interaction UI', () => {
  let dir, host, browser, page, sessionId, guard

  before(async () => {
    dir = tempDir()
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: DIST, chunkDelayMs: 5, faults: true })
    const r = await fetch(`${host.url}/api/session.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'client-request', rpcId: 'e2e-create', method: 'session.create', payload: {} }),
    }).then((x) => x.json())
    sessionId = r.result.value.sessionId
    browser = await launch()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.setDefaultTimeout(20_000)
    guard = await guardPage(page)
    await page.addInitScript(SPLICE)
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  const inject = async (entries) => {
    await page.waitForFunction(() => typeof window.__inject === 'function')
    await page.evaluate(
      ([sid, es]) => {
        const tail = window.__agentSession.host.session(sid).getSnapshot().tailSeq
        window.__inject(es.map(([key, value], i) => ({ type: 'session/projection', sessionId: sid, key, value, seq: tail + 1 + i + (window.__bump = (window.__bump ?? 0) + es.length) })))
      },
      [sessionId, entries],
    )
  }

  it('renders mode, plan steps, proposed plan and a structured prompt from capabilities', async () => {
    await page.goto(`${host.url}/#s=${encodeURIComponent(sessionId)}`)
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    // a real exchange first, so the conversation has content
    await page.getByTestId('composer-input').fill('Add a --verbose flag to the CLI.')
    await page.getByTestId('send').click()
    await page.getByTestId('msg-assistant').waitFor()
    await page.getByTestId('status-idle').waitFor()
    await inject([
      ['interaction/capabilities', CAPS],
      ['interaction/mode', { mode: 'plan', native: 'plan' }],
      [
        'interaction/plan',
        {
          explanation: 'Three small steps, each verified before the next.',
          steps: [
            { id: '1', text: 'Find where the CLI parses its flags', status: 'completed', source: 'native' },
            { id: '2', text: 'Add --verbose and thread it to the logger', status: 'inProgress', source: 'native' },
            { id: '3', text: 'Cover it with a test and update the README', status: 'pending', source: 'native' },
          ],
        },
      ],
      ['interaction/proposedPlan', { planId: 'plan-1', markdown: '# Plan\n\n1. Parse `--verbose`.\n2. Raise the log level.\n3. Test it.', source: 'native' }],
      [
        'interaction/userInput',
        {
          prompts: [
            {
              promptId: 'prompt-1',
              title: 'A few details before I start',
              questions: [
                {
                  id: 'targets',
                  header: 'Scope',
                  label: 'Which commands should accept --verbose?',
                  options: [
                    { id: 'build', label: 'build', recommended: true },
                    { id: 'test', label: 'test' },
                    { id: 'deploy', label: 'deploy', description: 'Also prints the remote commands' },
                  ],
                  multiSelect: true,
                  allowFreeform: true,
                  freeformPlaceholder: 'Anything else?',
                  required: true,
                },
              ],
              source: 'codex:requestUserInput',
            },
          ],
        },
      ],
    ])
    await page.getByTestId('mode-indicator').waitFor()
    assert.equal((await page.getByTestId('mode-indicator').innerText()).trim(), 'Planning')
    const steps = page.getByTestId('plan-steps')
    await steps.waitFor()
    assert.match(await steps.innerText(), /1\/3 done/)
    assert.equal(await steps.locator('li').count(), 3)
    const card = page.getByTestId('user-input-card')
    await card.waitFor()
    assert.equal(await card.locator('input[type="checkbox"]').count(), 3, 'multi-select renders checkboxes')
    assert.equal(await card.locator('input.text-input').count(), 1, 'freeform allowed')
    await card.locator('label.option').nth(0).click()
    await card.locator('label.option').nth(1).click()
    assert.equal(await card.locator('input[type="checkbox"]:checked').count(), 2)
    await page.getByTestId('proposed-plan').waitFor()
    assert.match(await page.getByTestId('proposed-plan').innerText(), /Parse --verbose/)
    await page.getByTestId('proposed-plan').scrollIntoViewIfNeeded()
    await shot(page, '07-interaction-capabilities')
  })

  it('submits structured answers with session.answer (when the package has it)', async () => {
    const hasAnswer = await page.evaluate((sid) => typeof window.__agentSession.host.session(sid).answer === 'function', sessionId)
    const card = page.getByTestId('user-input-card')
    await card.getByTestId('user-input-submit').click()
    // The spliced prompt is unknown to the host: it must answer not-pending, and the card says so.
    await card.locator('.card-error').waitFor()
    const msg = await card.locator('.card-error').innerText()
    if (hasAnswer) assert.match(msg, /no longer pending|did not accept/)
    else assert.match(msg, /cannot submit answers/)
  })

  it('hides structured prompts when the provider lacks the capability', async () => {
    await inject([['interaction/capabilities', { ...CAPS, supportsStructuredUserInput: false, supportsStructuredPlanUpdates: false }]])
    await page.getByTestId('user-input-card').waitFor({ state: 'detached' })
    await page.getByTestId('plan-steps').waitFor({ state: 'detached' })
    assert.equal(await page.getByTestId('mode-indicator').count(), 1)
  })

  it('"Implement" on the handoff card switches plan mode off and sends the implementation request', async () => {
    await page.getByTestId('implement').click()
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="msg-user"]')].some((m) => m.textContent?.trim() === 'Implement the plan.'),
    )
    assert.equal(await page.getByTestId('proposed-plan').locator('.card-error').count(), 0)
  })

  it('logged no page error, unhandled rejection or console error', () => {
    guard.assertClean()
  })
})
