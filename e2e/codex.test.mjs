// The REAL `codex app-server` (the pinned install under agents/) behind the reference host
// (`--agent codex`), driven through the demo UI with the fake Responses model
// (tests/fake-models/): no key, no network. One host for the file (restarted once on purpose).
//   a. plan mode: question card → answer → plan streams → proposed plan → Implement → plan
//      steps + a command approval → done; the command really ran in the workspace.
//   b. Stop mid-turn: the turn ends interrupted, the next prompt answers.
//   c. host killed (SIGKILL) and restarted on the same db + CODEX_HOME + port: the page
//      reconnects by itself, the session's codex thread resumes with its history.
//   d. codex child killed (SIGKILL) mid-turn: the page shows the agent error, the next prompt
//      starts a new child and answers.
//   e. no codex process left behind; no page error, no unexpected console error.
//   + the package's public API (not the demo's React code) in Chromium against this host.
// Screenshots: target/screenshots/codex-*.png.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { killHost, startHost, startHostOn } from '../tests/support/host.mjs'
import { demoAndPages } from '../tests/support/pages.mjs'
import { shot } from '../tests/support/browser.mjs'
import { conversation, openDemo } from '../tests/support/demo.mjs'
import { NETWORK, guardPage } from '../tests/support/guard.mjs'
import { CODEX_MODEL, codexProcesses, startCodexFixture, waitNoCodex } from '../tests/support/codex.mjs'

const T = 30_000

describe('real codex behind the host, through the demo UI', () => {
  let codex, host, hostOptions, browser, page, guard, sessionId
  const t0 = Date.now()
  const mark = (m) => process.env.E2E_TRACE && console.log(`[${Date.now() - t0}ms] ${m}`)
  const tid = (id) => page.getByTestId(id)

  /** The codex processes of this file (its CODEX_HOME), whoever their parent. */
  const ours = () => codexProcesses({ codexHome: codex.home })

  before(async () => {
    codex = await startCodexFixture({ approvalPolicy: 'untrusted' })
    // the demo, and lifetimes.html for the public API case, on the host's one origin
    hostOptions = { db: join(codex.dir, 'host.sqlite'), staticDir: demoAndPages(codex.dir), chunkDelayMs: 0, faults: false, ...codex.hostOptions }
    host = await startHost(hostOptions)
    // The host restart (c) drops the connection on purpose: the browser logs the failed
    // reconnect attempts until the new host listens.
    ;({ browser, page, guard } = await openDemo(host.url, { timeout: T, expect: NETWORK }))
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    // Never leave a codex behind, also when a test failed (by pid, this file's CODEX_HOME only).
    for (const p of ours()) {
      try {
        process.kill(p.pid, 'SIGKILL')
      } catch {
        /* gone */
      }
    }
    await codex?.close()
  })

  afterEach(() => {
    // At most the one child of the current host.
    const procs = ours()
    assert.ok(procs.every((p) => p.ppid === host.pid), `codex processes not the host's child: ${JSON.stringify(procs)}`)
    assert.ok(procs.length <= 1, `more than one codex child: ${JSON.stringify(procs)}`)
  })

  const { send, users, waitUsers, waitAssistant, startLong, hello } = conversation(() => page)

  it('offers only the host\'s agent in the picker, and the header names the agent', async () => {
    await page.waitForSelector('[data-testid="provider-select"]:not([disabled])')
    const options = await tid('provider-select').locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent]))
    assert.deepEqual(options, [['codex', 'Codex']])
    assert.match(await tid('conn-status').innerText(), /codex|gpt/i)
  })

  it('a. plan mode: question, answer, plan, Implement, plan steps, an approval, done', async () => {
    const started = Date.now()
    await tid('new-session').click()
    await page.waitForFunction(() => document.querySelector('[data-testid="session-view"]')?.getAttribute('data-open-state') === 'open')
    sessionId = await tid('session-view').getAttribute('data-session-id')
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    await tid('plan-chip').click()
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="pending-on"]')
    await send('Plan a change [fake:plan]')
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="on"]')
    // codex's request_user_input → the session's structured prompt, shown as a card.
    const card = tid('user-input-card')
    await card.waitFor()
    mark('a: question card')
    assert.match(await card.innerText(), /How much should the change cover\?/)
    assert.equal(await card.locator('input[type="radio"]').count(), 2)
    assert.equal(await tid('status-waiting').count(), 1)
    await waitAssistant(/I need one answer before I plan\./)
    await card.getByText('Minimal', { exact: true }).click()
    await shot(page, 'codex-question')
    await tid('user-input-submit').click()
    await card.waitFor({ state: 'detached' })
    assert.match(await tid('resolved-prompt').innerText(), /Minimal/)
    // The plan text streams, then the proposed plan (3 steps) with "Implement".
    await tid('proposed-plan').waitFor()
    await tid('status-idle').waitFor()
    const planText = (await tid('plan-node').count()) ? await tid('plan-node').innerText() : await tid('proposed-plan').innerText()
    for (const step of ['Create NOTES.md in the workspace root', 'Write a one-line summary', 'Check the file is there']) {
      assert.ok(planText.includes(step), `the proposed plan has "${step}": ${planText}`)
    }
    await waitAssistant(/Say the word and I will implement it\./)
    await shot(page, 'codex-plan')
    mark('a: plan proposed')
    // Implement: plan mode off, then the implementation turn.
    const n = await users()
    await tid('implement').click()
    await waitUsers(n + 1)
    assert.equal((await page.locator('[data-testid="msg-user"]:not(.echo)').last().innerText()).trim(), 'Implement the plan.')
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    // update_plan → the step list; the shell command waits on an approval.
    const approval = tid('approval-card')
    await approval.waitFor()
    await tid('plan-steps').waitFor()
    assert.equal(await tid('plan-steps').locator('li.step').count(), 3)
    assert.match(await tid('plan-steps').innerText(), /Create NOTES\.md[\s\S]*Write the summary[\s\S]*Report back/)
    assert.match(await tid('approval-reason').innerText(), /echo implemented > NOTES\.md/, 'the approval card shows the command')
    assert.ok(!existsSync(join(codex.workspace, 'NOTES.md')), 'nothing ran before the approval')
    await approval.scrollIntoViewIfNeeded()
    await shot(page, 'codex-approval')
    mark('a: approval')
    await tid('approve').click()
    await approval.waitFor({ state: 'detached' })
    await waitAssistant(/Done: the plan is implemented\./)
    await tid('status-idle').waitFor()
    assert.equal(readFileSync(join(codex.workspace, 'NOTES.md'), 'utf8').trim(), 'implemented', 'the approved command ran in the workspace')
    // The header names the model of the answers; the host label names it once a thread ran.
    assert.equal((await tid('session-model').innerText()).trim(), CODEX_MODEL)
    await page.waitForFunction((m) => document.querySelector('[data-testid="conn-status"]')?.textContent?.includes(m), CODEX_MODEL)
    await shot(page, 'codex-implemented')
    mark(`a: done in ${Date.now() - started} ms`)
  })

  it('b. Stop mid-turn: interrupted, idle, and the next prompt answers', async () => {
    await startLong()
    await shot(page, 'codex-streaming')
    await tid('stop').click()
    await tid('status-idle').waitFor()
    assert.equal(await tid('stop').count(), 0)
    assert.equal(await tid('msg-partial').count(), 0, 'nothing streams any more')
    const text = await tid('messages').innerText()
    assert.match(text, /word5 of the long answer/, 'what streamed before the stop stays')
    assert.doesNotMatch(text, /word199 of the long answer/, 'the answer was cut short')
    // The cut answer reads as stopped: the host logs it as its chunks with no message, a
    // partial at turn/end.
    // (`turn/end` rides the mux, the idle status the host downlink: wait for the mark.)
    await tid('msg-interrupted').waitFor()
    assert.equal(await tid('msg-interrupted').count(), 1, 'the stopped answer is marked interrupted')
    await hello()
    await shot(page, 'codex-after-stop')
  })

  it('d. the codex child killed mid-turn: the agent error shows, the next prompt works', async () => {
    const [child, ...more] = codexProcesses({ parent: host.pid })
    assert.ok(child && more.length === 0, `one codex child of the host: ${JSON.stringify(codexProcesses())}`)
    await startLong()
    process.kill(child.pid, 'SIGKILL')
    const err = tid('agent-error')
    await err.waitFor()
    mark(`d: agent error: ${await err.innerText()}`)
    assert.match(await err.innerText(), /The agent stopped with an error\.[\s\S]*codex/i)
    assert.doesNotMatch(await err.innerText(), /\u001b\[/, 'no terminal colour codes on the page')
    await tid('status-idle').waitFor()
    await err.scrollIntoViewIfNeeded()
    await shot(page, 'codex-child-crash')
    await hello()
    assert.equal(await tid('agent-error').count(), 0, 'the error belongs to the crashed turn, not to the next one')
    const [next] = codexProcesses({ parent: host.pid })
    assert.ok(next && next.pid !== child.pid, 'a new codex child serves the session')
    // Killed while idle: the next prompt restarts it and resumes the thread.
    process.kill(next.pid, 'SIGKILL')
    assert.deepEqual(await waitNoCodex({ parent: host.pid }), [])
    await page.waitForTimeout(300)
    mark(`d: idle crash shows ${await tid('agent-error').count()} agent error(s)`)
    await hello()
    const [third] = codexProcesses({ parent: host.pid })
    assert.ok(third && third.pid !== next.pid, 'a third codex child serves the session')
  })

  it('c. host killed and restarted on the same db and CODEX_HOME: the thread resumes with its history', async () => {
    const url = host.url
    const old = host.pid
    await killHost(host)
    // The codex child of a SIGKILLed host goes with it (its stdin closes).
    const orphans = await waitNoCodex({ codexHome: codex.home })
    assert.deepEqual(orphans, [], `codex outlived its SIGKILLed host ${old}`)
    await page.waitForSelector('[data-testid="conn-status"]:not([data-state="open"])')
    host = await startHostOn(url, hostOptions)
    await page.waitForSelector('[data-testid="conn-status"][data-state="open"]', { timeout: 60_000 })
    assert.equal(await tid('session-view').getAttribute('data-session-id'), sessionId, 'the same session is on screen')
    const before = codex.fake.requests.length
    await hello()
    const request = codex.fake.requests.slice(before).findLast((r) => r.method === 'POST')
    assert.ok(request, 'the fake model got the turn')
    const said = JSON.stringify(request.body.input)
    for (const earlier of ['Plan a change [fake:plan]', 'Implement the plan.', 'Tell me a long story [fake:long]', 'Done: the plan is implemented.']) {
      assert.ok(said.includes(earlier), `the resumed thread carries "${earlier}"`)
    }
    await shot(page, 'codex-after-restart')
  })

  it('the public API in Chromium: create, plan mode, prompt, the pending question, answer, the proposed plan', async () => {
    const api = await browser.newPage()
    api.setDefaultTimeout(T)
    const g = await guardPage(api)
    await api.goto(`${host.url}/lifetimes.html`)
    await api.waitForFunction(() => document.getElementById('out')?.textContent === 'ready')
    const q = await api.evaluate(async () => {
      const { HostClient } = window.lifetimes
      const h = new HostClient({ baseUrl: location.origin })
      const created = await h.createSession()
      if (!created.ok) return { created }
      const s = h.session(created.value.sessionId)
      window.api = { h, s }
      await s.open()
      const plan = await s.setPlanMode(true)
      const sent = await s.prompt([{ type: 'text', text: 'Plan a change [fake:plan]' }])
      const until = (f) =>
        new Promise((res) => {
          const check = () => {
            const v = f(s.getSnapshot())
            if (v) {
              off()
              res(v)
            }
          }
          const off = s.subscribe(check)
          check()
        })
      const prompt = await until((snap) => snap.interaction?.userInput?.[0])
      return { plan, sent, prompt, running: s.getSnapshot().running }
    })
    assert.equal(q.plan?.ok, true, JSON.stringify(q))
    assert.deepEqual(q.sent, { ok: true, value: { accepted: true } })
    assert.equal(q.running, true)
    const question = q.prompt.questions.find((x) => x.id === 'scope')
    assert.ok(question, `the pending prompt asks "scope": ${JSON.stringify(q.prompt)}`)
    assert.deepEqual(
      question.options.map((o) => o.label),
      ['Minimal', 'Thorough'],
    )
    const minimal = question.options.find((o) => o.label === 'Minimal').id
    const r = await api.evaluate(
      async ([promptId, optionId]) => {
        const { s } = window.api
        const answered = await s.answer(promptId, [{ questionId: 'scope', selectedOptionIds: [optionId] }])
        const proposed = await new Promise((res) => {
          const check = () => {
            const snap = s.getSnapshot()
            if (snap.interaction?.proposedPlan && !snap.running) {
              off()
              res(snap.interaction.proposedPlan)
            }
          }
          const off = s.subscribe(check)
          check()
        })
        const snap = s.getSnapshot()
        return { answered, proposed, userInput: snap.interaction.userInput, planMode: snap.planMode, nodeTypes: snap.nodes.map((n) => n.type) }
      },
      [q.prompt.promptId, minimal],
    )
    assert.deepEqual(r.answered, { ok: true, value: { accepted: true } })
    assert.deepEqual(r.userInput, [], 'no prompt pending after the answer')
    assert.match(r.proposed.markdown, /1\. Create `NOTES\.md`[\s\S]*2\. Write a one-line summary[\s\S]*3\. Check the file/)
    assert.equal(r.planMode?.active, true)
    assert.ok(r.nodeTypes.includes('interaction'), `the resolved prompt is in the nodes: ${r.nodeTypes}`)
    await api.evaluate(() => window.api.h.close())
    g.assertClean()
    await api.close()
  })

  it('e. no codex left once the host is gone; the page logged no error', async () => {
    guard.assertClean()
    await killHost(host)
    assert.deepEqual(await waitNoCodex({ codexHome: codex.home }), [], 'no codex process outlives the host')
  })
})
