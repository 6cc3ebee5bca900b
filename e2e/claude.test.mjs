// The REAL Claude Code (the pinned native binary under agents/) behind the reference host
// (`--agent claude`), driven through the demo UI with the fake Anthropic Messages model
// (tests/fake-models/anthropic-messages.mjs): no key, no network. One host for the file
// (restarted once on purpose).
//   a. plan mode: question card → answer → the proposed plan and its approval (ExitPlanMode) →
//      plan mode off → "Implement the plan." → a command approval → done; the command really
//      ran in the workspace.
//   b. Stop mid-turn: the turn ends interrupted, the next prompt answers.
//   d. the claude child killed (SIGKILL) mid-turn: the page shows the agent error, the next
//      prompt starts a new child that resumes the conversation.
//   c. host killed (SIGKILL) and restarted on the same db + HOME + port: the page reconnects by
//      itself, the session's Claude conversation resumes with its history.
//   e. no claude process left behind; no page error, no unexpected console error.
// Screenshots: target/screenshots/claude-*.png.
import { after, afterEach, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { killHost, startHost, startHostOn } from '../tests/support/host.mjs'
import { demoAndPages } from '../tests/support/pages.mjs'
import { shot } from '../tests/support/browser.mjs'
import { conversation, openDemo } from '../tests/support/demo.mjs'
import { NETWORK } from '../tests/support/guard.mjs'
import { claudeProcesses, startClaudeFixture, waitNoClaude } from '../tests/support/claude.mjs'

const T = 30_000

describe('real Claude Code behind the host, through the demo UI', () => {
  let claude, host, hostOptions, browser, page, guard, sessionId
  const t0 = Date.now()
  const mark = (m) => process.env.E2E_TRACE && console.log(`[${Date.now() - t0}ms] ${m}`)
  const tid = (id) => page.getByTestId(id)

  /** The claude processes of this file (its HOME), whoever their parent. */
  const ours = () => claudeProcesses({ home: claude.home })

  before(async () => {
    claude = await startClaudeFixture()
    hostOptions = { db: join(claude.dir, 'host.sqlite'), staticDir: demoAndPages(claude.dir), chunkDelayMs: 0, faults: false, ...claude.hostOptions }
    host = await startHost(hostOptions)
    // The host restart (c) drops the connection on purpose: the browser logs the failed
    // reconnect attempts until the new host listens.
    ;({ browser, page, guard } = await openDemo(host.url, { timeout: T, expect: NETWORK }))
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    // Never leave a claude behind, also when a test failed (by pid, this file's HOME only).
    for (const p of ours()) {
      try {
        process.kill(p.pid, 'SIGKILL')
      } catch {
        /* gone */
      }
    }
    await claude?.close()
  })

  afterEach(() => {
    // At most the one child of the current host (one session).
    const procs = ours()
    assert.ok(procs.every((p) => p.ppid === host.pid), `claude processes not the host's child: ${JSON.stringify(procs)}`)
    assert.ok(procs.length <= 1, `more than one claude child: ${JSON.stringify(procs)}`)
  })

  const { send, users, waitUsers, waitAssistant, startLong, hello } = conversation(() => page)

  it('offers only the host\'s agent in the picker, and the header names the agent', async () => {
    await page.waitForSelector('[data-testid="provider-select"]:not([disabled])')
    const options = await tid('provider-select').locator('option').evaluateAll((os) => os.map((o) => o.value))
    assert.deepEqual(options, ['claude'])
    assert.match(await tid('conn-status').innerText(), /claude/i)
  })

  it('a. plan mode: question, answer, the plan approved, Implement, an approval, done', async () => {
    const started = Date.now()
    await tid('new-session').click()
    await page.waitForFunction(() => document.querySelector('[data-testid="session-view"]')?.getAttribute('data-open-state') === 'open')
    sessionId = await tid('session-view').getAttribute('data-session-id')
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    await tid('plan-chip').click()
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="pending-on"]')
    await send('Plan a change [fake:plan]')
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="on"]')
    // AskUserQuestion → the session's structured prompt, shown as a card.
    const card = tid('user-input-card')
    await card.waitFor()
    mark('a: question card')
    assert.match(await card.innerText(), /How much should the change cover\?/)
    assert.equal(await card.locator('input[type="radio"]').count(), 2)
    assert.equal(await tid('status-waiting').count(), 1)
    await waitAssistant(/I need one answer before I plan\./)
    await card.getByText('Minimal', { exact: true }).click()
    await shot(page, 'claude-question')
    await tid('user-input-submit').click()
    await card.waitFor({ state: 'detached' })
    assert.match(await tid('resolved-prompt').innerText(), /Minimal/)
    // ExitPlanMode: the plan the model wrote to its plan file, and the approval to leave plan
    // mode with it.
    const approval = tid('approval-card')
    await approval.waitFor()
    assert.match(await approval.innerText(), /ExitPlanMode/)
    await tid('proposed-plan').waitFor()
    // The plan shows in the conversation (ExitPlanMode's call), the handoff card points to it.
    const planText = await tid('session-view').innerText()
    for (const step of ['Create NOTES.md in the workspace root', 'Write a one-line summary', 'Check the file is there']) {
      assert.ok(planText.includes(step), `the proposed plan has "${step}": ${planText}`)
    }
    await approval.scrollIntoViewIfNeeded()
    await shot(page, 'claude-plan')
    mark('a: plan proposed')
    await tid('approve').click()
    await approval.waitFor({ state: 'detached' })
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
    await waitAssistant(/The plan is approved\. Say the word and I will implement it\./)
    await tid('status-idle').waitFor()
    // Implement: the command waits on an approval.
    const n = await users()
    await send('Implement the plan.')
    await waitUsers(n + 1)
    await approval.waitFor()
    assert.match(await tid('approval-reason').innerText(), /echo implemented > NOTES\.md/, 'the approval card shows the command')
    assert.ok(!existsSync(join(claude.workspace, 'NOTES.md')), 'nothing ran before the approval')
    await approval.scrollIntoViewIfNeeded()
    await shot(page, 'claude-approval')
    mark('a: approval')
    await tid('approve').click()
    await approval.waitFor({ state: 'detached' })
    await waitAssistant(/Done: the plan is implemented\./)
    await tid('status-idle').waitFor()
    assert.equal(readFileSync(join(claude.workspace, 'NOTES.md'), 'utf8').trim(), 'implemented', 'the approved command ran in the workspace')
    // The header names the model of the answers (the one Claude Code said it runs).
    assert.match((await tid('session-model').innerText()).trim(), /^claude-/)
    await shot(page, 'claude-implemented')
    mark(`a: done in ${Date.now() - started} ms`)
  })

  it('b. Stop mid-turn: interrupted, idle, and the next prompt answers', async () => {
    await startLong()
    await shot(page, 'claude-streaming')
    await tid('stop').click()
    await tid('status-idle').waitFor()
    assert.equal(await tid('stop').count(), 0)
    assert.equal(await tid('msg-partial').count(), 0, 'nothing streams any more')
    const text = await tid('messages').innerText()
    assert.match(text, /word5 of the long answer/, 'what streamed before the stop stays')
    assert.doesNotMatch(text, /word199 of the long answer/, 'the answer was cut short')
    await tid('msg-interrupted').waitFor()
    assert.equal(await tid('msg-interrupted').count(), 1, 'the stopped answer is marked interrupted')
    await hello()
  })

  it('d. the claude child killed mid-turn: the agent error shows, the next prompt resumes', async () => {
    const [child, ...more] = claudeProcesses({ parent: host.pid })
    assert.ok(child && more.length === 0, `one claude child of the host: ${JSON.stringify(claudeProcesses())}`)
    await startLong()
    process.kill(child.pid, 'SIGKILL')
    const err = tid('agent-error')
    await err.waitFor()
    mark(`d: agent error: ${await err.innerText()}`)
    assert.match(await err.innerText(), /The agent stopped with an error\.[\s\S]*claude/i)
    await tid('status-idle').waitFor()
    await err.scrollIntoViewIfNeeded()
    await shot(page, 'claude-child-crash')
    await hello()
    assert.equal(await tid('agent-error').count(), 0, 'the error belongs to the crashed turn, not to the next one')
    const [next] = claudeProcesses({ parent: host.pid })
    assert.ok(next && next.pid !== child.pid, 'a new claude child serves the session')
    assert.ok(next.argv.includes('--resume'), `it resumes the conversation: ${next.argv.join(' ')}`)
  })

  it('c. host killed and restarted on the same db and HOME: the conversation resumes with its history', async () => {
    const url = host.url
    const old = host.pid
    await killHost(host)
    const orphans = await waitNoClaude({ home: claude.home })
    assert.deepEqual(orphans, [], `claude outlived its SIGKILLed host ${old}`)
    await page.waitForSelector('[data-testid="conn-status"]:not([data-state="open"])')
    host = await startHostOn(url, hostOptions)
    await page.waitForSelector('[data-testid="conn-status"][data-state="open"]', { timeout: 60_000 })
    assert.equal(await tid('session-view').getAttribute('data-session-id'), sessionId, 'the same session is on screen')
    const before = claude.fake.requests.length
    await hello()
    const request = claude.fake.requests.slice(before).findLast((r) => r.method === 'POST' && r.body?.stream)
    assert.ok(request, 'the fake model got the turn')
    const said = JSON.stringify(request.body.messages)
    for (const earlier of ['Plan a change [fake:plan]', 'Implement the plan.', 'Tell me a long story [fake:long]', 'Done: the plan is implemented.']) {
      assert.ok(said.includes(earlier), `the resumed conversation carries "${earlier}"`)
    }
    await shot(page, 'claude-after-restart')
  })

  it('e. no claude left once the host is gone; the page logged no error', async () => {
    guard.assertClean()
    await killHost(host)
    assert.deepEqual(await waitNoClaude({ home: claude.home }), [], 'no claude process outlives the host')
  })
})
