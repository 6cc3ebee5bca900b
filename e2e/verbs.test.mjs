// End-to-end: the demo's use of the 2026-08 session verbs against the reference host
// speaking the 2026-08 wire (`--wire 2026-08`): a model switch the host keeps, the slash-command menu fed by the live
// command list, rename in the sidebar, an image pasted into the composer and shown in the
// conversation, a queued prompt edited and removed, fork from a message, a search over the
// sessions' messages from the sidebar, subagents under the calls that spawned them, workspaces (added, reordered, a session started in
// one and archived). No failed request
// and no console error on the way (the page guard allows no network errors here: opening a
// session on the 2026-08 host asks nothing it answers 404).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch, shot } from '../tests/support/browser.mjs'
import { guardPage } from '../tests/support/guard.mjs'

const DIST = join(ROOT, 'www', 'dist')
const T = 20_000
/** A 1x1 PNG (70 bytes). */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

describe("demo UI with the 2026-08 session verbs", () => {
  let dir, host, browser, page, guard

  before(async () => {
    assert.ok(existsSync(join(DIST, 'index.html')), 'www/dist missing: run scripts/e2e.mjs (or npm --prefix www run build)')
    dir = tempDir()
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: DIST, chunkDelayMs: 20, extra: ['--wire', '2026-08'] })
    browser = await launch()
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })
    page = await context.newPage()
    page.setDefaultTimeout(T)
    guard = await guardPage(page)
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  const sessionId = () => page.getByTestId('session-view').getAttribute('data-session-id')

  it('opens a session on a 2026-08 host', async () => {
    await page.goto(host.url)
    await page.getByTestId('new-session').click()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    await page.waitForSelector('[data-testid="plan-chip"][data-plan="off"]')
  })

  it('switches the model of the next step, and the host keeps it through a reload', async () => {
    const select = page.getByTestId('model-select')
    await select.waitFor()
    const groups = await select.locator('optgroup').evaluateAll((els) => els.map((e) => e.getAttribute('label')))
    assert.deepEqual(groups.slice(1), ['Codex', 'Claude', 'Cursor'], 'the routes the scripted host plays, after its own')
    await select.selectOption({ label: 'GPT-5.1 Codex' })
    // Shown at once; then as the host confirmed it.
    assert.equal(await select.inputValue(), 'codex\ngpt-5.1-codex')
    await page.waitForTimeout(300)
    assert.equal(await page.getByTestId('model-error').count(), 0)
    await page.reload()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    await page.waitForFunction(() => document.querySelector('[data-testid="model-select"]')?.value === 'codex\ngpt-5.1-codex')
    await shot(page, 'verbs-00-model-picker')
  })

  it('offers the session\'s commands after "/" and runs one with arguments', async () => {
    await page.getByTestId('composer-input').fill('/')
    await page.getByTestId('command-menu').waitFor()
    const names = await page.getByTestId('command-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))
    assert.deepEqual(names, ['compact', 'feedback', 'plan'])
    await page.getByTestId('composer-input').fill('/fe')
    assert.equal(await page.getByTestId('command-item').count(), 1, 'filtered by prefix')
    await shot(page, 'verbs-01-command-menu')
    await page.locator('[data-testid="command-item"][data-name="feedback"]').click()
    assert.equal(await page.getByTestId('composer-input').inputValue(), '/feedback ')
    await page.getByTestId('composer-input').pressSequentially('works well')
    assert.equal((await page.getByTestId('send').innerText()).trim(), 'Run')
    await page.getByTestId('send').click()
    await page.waitForFunction(() => /Thanks for the feedback/.test(document.querySelector('[data-testid="command-result"]')?.textContent ?? ''))
    assert.equal(await page.getByTestId('msg-user').count(), 0, 'a command is not a prompt')
  })

  it('renames the session from the sidebar', async () => {
    await page.getByTestId('rename').click()
    await page.getByTestId('rename-input').fill('  Verbs   demo ')
    await page.getByTestId('rename-save').click()
    const id = await sessionId()
    await page.waitForFunction(
      (id) => document.querySelector(`.session-item[data-session-id="${id}"] [data-testid="session-title"]`)?.textContent === 'Verbs demo',
      id,
    )
    assert.equal((await page.locator('.session-head h1').innerText()).trim(), 'Verbs demo')
  })

  it('pastes an image into the composer and shows it in the conversation', async () => {
    await page.getByTestId('composer-input').focus()
    await page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
      const dt = new DataTransfer()
      dt.items.add(new File([bytes], 'dot.png', { type: 'image/png' }))
      document.querySelector('[data-testid="composer-input"]').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }))
    }, PNG_1X1)
    await page.getByTestId('composer-image').waitFor()
    await page.getByTestId('composer-input').fill('What is in this picture?')
    await shot(page, 'verbs-02-pasted-image')
    await page.getByTestId('send').click()
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="msg-user"] [data-testid="msg-image"]')
      return img && img.complete && img.naturalWidth === 1
    })
    await page.waitForFunction(() => /1x1 image\/png image of 70 bytes/.test(document.querySelector('[data-testid="messages"]')?.textContent ?? ''))
    assert.equal(await page.getByTestId('composer-image').count(), 0, 'the composer is cleared')
    await page.getByTestId('status-idle').waitFor()
    await shot(page, 'verbs-03-image-in-conversation')
  })

  it('edits and removes a queued prompt', async () => {
    await page.getByTestId('composer-input').fill('Ask me first [question]')
    await page.getByTestId('send').click()
    await page.getByTestId('status-waiting').waitFor()
    await page.getByTestId('composer-input').fill('a follow-up')
    await page.getByTestId('send').click()
    await page.getByTestId('host-queued').waitFor()
    await page.getByTestId('queue-edit').click()
    await page.getByTestId('queue-edit-input').fill('a better follow-up')
    await page.getByTestId('queue-save').click()
    await page.waitForFunction(() => document.querySelector('[data-testid="host-queued"] .bubble')?.textContent === 'a better follow-up')
    await shot(page, 'verbs-04-queue-edited')
    await page.getByTestId('queue-remove').click()
    await page.waitForFunction(() => !document.querySelector('[data-testid="host-queued"]'))
    await page.getByTestId('stop').click()
    await page.getByTestId('status-idle').waitFor()
    assert.equal(await page.getByTestId('host-queued').count(), 0)
  })

  it('forks from the first reply into a new session', async () => {
    const parent = await sessionId()
    const firstUser = await page.getByTestId('msg-user').first().innerText()
    await page.getByTestId('fork').first().click()
    await page.waitForFunction((p) => {
      const v = document.querySelector('[data-testid="session-view"]')
      return v && v.getAttribute('data-session-id') !== p && v.getAttribute('data-open-state') === 'open'
    }, parent)
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="msg-user"]').length === 1)
    assert.equal(await page.getByTestId('msg-user').first().innerText(), firstUser, 'the history up to the forked turn')
    assert.equal(await page.locator('.session-item').count(), 2)
    await shot(page, 'verbs-05-forked')
  })

  it('renders the reply\'s Markdown fully and safely', async () => {
    await page.getByTestId('composer-input').fill('Show me some [markdown]')
    await page.getByTestId('send').click()
    const reply = page.getByTestId('msg-assistant').last()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="msg-assistant"] table').length > 0)
    await page.getByTestId('status-idle').waitFor()
    // A GFM table with strikethrough, a link that opens a new tab, a highlighted code block.
    assert.deepEqual(await reply.locator('th').allInnerTexts(), ['Step', 'Status'])
    assert.equal(await reply.locator('td del').innerText(), 'pending')
    const link = reply.getByRole('link', { name: 'the docs' })
    assert.equal(await link.getAttribute('href'), 'https://example.com/docs')
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer')
    assert.ok((await reply.locator('pre code.hljs .hljs-keyword').count()) > 0, 'the code is highlighted')
    // What must not become markup: a javascript: URL loses its href, raw HTML stays text.
    assert.equal(await reply.locator('a[href^="javascript"]').count(), 0)
    assert.equal(await reply.locator('a').count(), 1, 'the dropped URL leaves plain text')
    assert.equal(await reply.locator('img').count(), 0)
    assert.match(await reply.innerText(), /<img src=x onerror=alert\(1\)> stays text/)
    await shot(page, 'verbs-06-markdown')
  })

  it('finds sessions by their messages from the sidebar, each keystroke\'s search giving up the one before', async () => {
    const forked = await sessionId()
    const box = page.getByTestId('session-search')
    // Typed a key at a time: every keystroke searches and aborts the search before it.
    await box.pressSequentially('ask me first', { delay: 5 })
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="search-result"]').length === 1)
    const hit = page.getByTestId('search-result').first()
    assert.match(await hit.innerText(), /Ask me first/, 'the snippet shows the matching message (any case)')
    const parent = await hit.getAttribute('data-session-id')
    assert.notEqual(parent, forked, 'the fork holds only the first turn, not the second')
    await shot(page, 'verbs-07-search')
    await hit.click()
    await page.waitForFunction((id) => document.querySelector('[data-testid="session-view"]')?.getAttribute('data-session-id') === id, parent)
    await box.fill('no session says this')
    await page.waitForFunction(() => /No session mentions that/.test(document.querySelector('[data-testid="search-results"]')?.textContent ?? ''))
    await box.fill('')
    await page.waitForFunction(() => !document.querySelector('[data-testid="search-results"]'))
  })

  it('shows a subagent under the tool call that spawned it, and opens it as a session', async () => {
    await page.getByTestId('new-session').click()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    const parent = await sessionId()
    for (const [prompt, mode] of [['Look into the tests [subagent]', 'one-shot'], ['Keep watching the build [subagent:continuable]', 'continuable']]) {
      await page.getByTestId('composer-input').fill(prompt)
      await page.getByTestId('send').click()
      await page.waitForSelector(`[data-testid="subagent"][data-mode="${mode}"]`)
      await page.getByTestId('status-idle').waitFor()
    }
    const links = page.getByTestId('subagent')
    assert.equal(await links.count(), 2, 'one child under each subagent call')
    const child = await links.first().getAttribute('data-session-id')
    assert.notEqual(child, parent)
    // In the list, each child right under its parent, one level in. The catalog's answer
    // (HTTP) can come before the child's `host/session-added` (the host downlink): the list
    // is waited for, then read.
    await page
      .waitForFunction((id) => {
        const items = [...document.querySelectorAll('.session-item')]
        const at = items.findIndex((e) => e.getAttribute('data-session-id') === id)
        return items.slice(at + 1, at + 3).filter((e) => e.getAttribute('data-depth') === '1').length === 2
      }, parent, { timeout: T })
      .catch(() => {})
    const order = await page.locator('.session-item').evaluateAll((els) => els.map((e) => [e.getAttribute('data-session-id'), e.getAttribute('data-depth')]))
    const at = order.findIndex(([id]) => id === parent)
    assert.deepEqual(order.slice(at + 1, at + 3).map(([, d]) => d), ['1', '1'], JSON.stringify(order))
    assert.ok(order.slice(at + 1, at + 3).some(([id]) => id === child))
    await shot(page, 'verbs-09-subagents')
    await links.first().getByTestId('subagent-open').click()
    await page.waitForFunction((id) => document.querySelector('[data-testid="session-view"][data-open-state="open"]')?.getAttribute('data-session-id') === id, child)
    await page.getByTestId('msg-assistant').first().waitFor()
    assert.ok((await page.getByTestId('msg-user').count()) >= 1, "the child's own prompt")
    await page.locator(`.session-item[data-session-id="${parent}"]`).click()
    await page.waitForFunction((id) => document.querySelector('[data-testid="session-view"]')?.getAttribute('data-session-id') === id, parent)
  })

  it('keeps workspaces: two added, reordered, a session started in one and archived, all kept through a reload', async () => {
    const [alpha, beta] = ['alpha', 'beta'].map((n) => join(dir, n))
    for (const d of [alpha, beta]) mkdirSync(d)
    const titles = () => page.getByTestId('workspace-title').allInnerTexts()
    for (const d of [alpha, beta]) {
      await page.getByTestId('workspace-add').click()
      await page.getByTestId('workspace-path').fill(d)
      await page.getByTestId('workspace-create').click()
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="workspace"]').length === n, d === alpha ? 1 : 2)
    }
    assert.deepEqual(await titles(), ['beta', 'alpha'], 'a new workspace goes first')
    await page.locator('[data-testid="workspace"]').nth(1).getByTestId('workspace-up').click()
    await page.waitForFunction(() => document.querySelector('[data-testid="workspace-title"]')?.textContent === 'alpha')
    assert.deepEqual(await titles(), ['alpha', 'beta'])
    const sessions = await page.locator('.session-item').count()
    await page.locator('[data-testid="workspace"]').first().getByTestId('workspace-new-session').click()
    await page.waitForFunction((n) => document.querySelectorAll('.session-item').length === n, sessions + 1)
    const fresh = await sessionId()
    await page.waitForSelector(`[data-testid="workspace"] [data-testid="workspace-session"][data-session-id="${fresh}"]`)
    await shot(page, 'verbs-08-workspaces')
    await page.locator(`[data-testid="workspace-session"][data-session-id="${fresh}"] + [data-testid="workspace-archive"]`).click()
    await page.waitForFunction((id) => !document.querySelector(`[data-session-id="${id}"].session-item, [data-testid="workspace-session"][data-session-id="${id}"]`), fresh)
    assert.equal(await page.locator('.session-item').count(), sessions, 'archived: gone from the list too')
    await page.reload()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="workspace"]').length === 2)
    assert.deepEqual(await titles(), ['alpha', 'beta'], 'the order the host keeps')
    await page.waitForFunction((n) => document.querySelectorAll('.session-item').length === n, sessions)
  })

  it('logged no page error, failed request or console error', () => {
    guard.assertClean()
  })
})
