// End-to-end: a message is never lost. The demo (cache on, as it ships) against the reference
// host in Chromium, the network cut by Playwright (`context.setOffline`): prompts typed offline
// show at once and land once, in order, when the network is back; a prompt typed offline and
// left behind by a reload (the page gone while still offline) is sent by the next page, once.
// "Once" is read from the host's own log, not from the page.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, admin, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { NETWORK, guardPage } from '../tests/support/guard.mjs'
import { openDemo } from '../tests/support/demo.mjs'
import { launch } from '../tests/support/browser.mjs'
import { PAGES_DIST } from '../tests/support/pages.mjs'

const DIST = join(ROOT, 'www', 'dist')
const T = 20_000

/** The texts of the host log's user messages of session `id`, in log order. */
async function loggedPrompts(url, id) {
  const r = await fetch(`${url}/api/session.history`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'client-request', rpcId: `e2e-${Math.random()}`, method: 'session.history', payload: { sessionId: id } }),
  })
  const body = await r.json()
  assert.ok(body.result?.ok, `history: ${JSON.stringify(body).slice(0, 300)}`)
  return body.result.value.events
    .map((e) => e.event)
    .filter((e) => e.type === 'user/message')
    .map((e) => e.data.content.map((b) => b.text ?? '').join(''))
}

async function until(pred, what, ms = T) {
  const end = Date.now() + ms
  for (;;) {
    const v = await pred()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('a message is never lost (demo, network cut by the browser)', () => {
  let dir, host, browser, page, guard, context

  before(async () => {
    assert.ok(existsSync(join(DIST, 'index.html')), 'www/dist missing: run scripts/e2e.mjs')
    dir = tempDir()
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: DIST, chunkDelayMs: 5, faults: true })
    // Requests refused while offline are logged by the browser itself.
    ;({ browser, page, guard } = await openDemo(host.url, { timeout: T, expect: NETWORK }))
    context = page.context()
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  async function newSession() {
    // The view shown before the click is open too: wait for the new session's own.
    const view = page.getByTestId('session-view')
    const before = (await view.count()) ? await view.getAttribute('data-session-id') : null
    await page.getByTestId('new-session').click()
    await page.waitForFunction(
      (before) => {
        const v = document.querySelector('[data-testid="session-view"][data-open-state="open"]')
        return v && v.getAttribute('data-session-id') !== before
      },
      before,
    )
    return view.getAttribute('data-session-id')
  }

  async function send(text) {
    await page.getByTestId('composer-input').fill(text)
    await page.getByTestId('send').click()
  }

  const echoes = () => page.locator('[data-testid="msg-user"].echo').count()

  it('three prompts typed offline show at once, and land once each, in order, when the network is back', async () => {
    const id = await newSession()
    await context.setOffline(true)
    const texts = ['First, offline.', 'Second, offline.', 'Third, offline.']
    for (const t of texts) {
      await send(t)
      // Shown at once, before anything reached the host.
      await page.locator('[data-testid="msg-user"].echo', { hasText: t }).waitFor()
      assert.equal(await page.getByTestId('composer-input').inputValue(), '', 'the composer is cleared once the message shows')
    }
    assert.equal(await echoes(), 3)
    assert.deepEqual(await loggedPrompts(host.url, id), [], 'nothing reached the host while offline')
    await context.setOffline(false)
    const logged = await until(async () => {
      const l = await loggedPrompts(host.url, id)
      return l.length >= 3 && l
    }, 'the three prompts in the host log')
    assert.deepEqual(logged, texts, 'each once, in the order typed')
    await until(async () => (await echoes()) === 0, 'the host nodes to replace the echoes')
    for (const t of texts) assert.equal(await page.locator('[data-testid="msg-user"]', { hasText: t }).count(), 1, `${t} shown once`)
    // Settled: nothing more arrives later.
    await page.waitForSelector('[data-testid="status-idle"]')
    await new Promise((r) => setTimeout(r, 500))
    assert.deepEqual(await loggedPrompts(host.url, id), texts)
    guard.assertClean()
  })

  it('a prompt typed offline and left behind by a reload is sent by the next page, once', async () => {
    const id = await newSession()
    await context.setOffline(true)
    const text = 'Typed offline, then the page reloaded.'
    await send(text)
    await page.locator('[data-testid="msg-user"].echo', { hasText: text }).waitFor()
    // The page's outbox record is in IndexedDB before the page goes.
    await page.waitForFunction(
      () =>
        new Promise((ok) => {
          const req = indexedDB.open('agent-session-cache')
          req.onsuccess = () => {
            const d = req.result
            if (!d.objectStoreNames.contains('outbox')) return d.close(), ok(false)
            const get = d.transaction('outbox').objectStore('outbox').getAll()
            get.onsuccess = () => (d.close(), ok(get.result.some((r) => r.prompts.length > 0)))
          }
          req.onerror = () => ok(false)
        }),
      null,
      { polling: 100 },
    )
    // The reload while offline fails (the browser shows its error page): the page is gone.
    await page.reload().catch(() => {})
    assert.deepEqual(await loggedPrompts(host.url, id), [], 'nothing reached the host')
    await context.setOffline(false)
    await page.goto(`${host.url}/#s=${encodeURIComponent(id)}`)
    const logged = await until(async () => {
      const l = await loggedPrompts(host.url, id)
      return l.length >= 1 && l
    }, 'the prompt in the host log')
    assert.deepEqual(logged, [text])
    await page.locator('[data-testid="msg-user"]:not(.echo)', { hasText: text }).waitFor()
    assert.equal(await page.locator('[data-testid="msg-user"]', { hasText: text }).count(), 1, 'shown once')
    // A second reload sends nothing again (its record was taken over, then emptied).
    await page.waitForSelector('[data-testid="status-idle"]')
    await page.reload()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    await new Promise((r) => setTimeout(r, 800))
    assert.deepEqual(await loggedPrompts(host.url, id), [text], 'still once')
    guard.assertClean()
  })
  it('what is typed and not sent survives a reload and a switch to another session', async () => {
    const first = await newSession()
    await page.getByTestId('composer-input').fill('A draft, not sent yet.')
    await page.reload()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    assert.equal(await page.getByTestId('composer-input').inputValue(), 'A draft, not sent yet.')
    await newSession()
    assert.equal(await page.getByTestId('composer-input').inputValue(), '', "another session's composer is its own")
    await page.locator(`[data-session-id="${first}"].session-item`).click()
    await page.waitForSelector(`[data-testid="session-view"][data-session-id="${first}"]`)
    assert.equal(await page.getByTestId('composer-input').inputValue(), 'A draft, not sent yet.')
    await send('A draft, not sent yet.')
    await page.reload()
    await page.waitForSelector('[data-testid="session-view"][data-open-state="open"]')
    assert.equal(await page.getByTestId('composer-input').inputValue(), '', 'a sent message is no draft')
    guard.assertClean()
  })
})

describe('a prompt left by a gone tab is taken over by exactly one tab', () => {
  let dir, host, browser

  before(async () => {
    dir = tempDir()
    host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: PAGES_DIST, chunkDelayMs: 2, faults: true })
    browser = await launch()
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await killHost(host)
    cleanup(dir)
  })

  async function cachePage(context) {
    const page = await context.newPage()
    page.setDefaultTimeout(T)
    const guard = (await guardPage(page)).expect(NETWORK)
    await page.goto(`${host.url}/cache.html`)
    await page.waitForFunction(() => document.getElementById('out')?.textContent === 'ready')
    return { page, guard }
  }

  it('two tabs open the session at once after the tab that made the prompt went: one sends it, once', async () => {
    const sid = (await admin(host.url, { command: 'seed', events: 4, messageEvery: 2 })).results[0].sessionId
    const context = await browser.newContext()
    const a = await cachePage(context)
    await a.page.evaluate(async (sid) => {
      const C = window.cachePage
      const h = new C.HostClient({ baseUrl: location.origin, cache: true })
      C.kept.h = h
      await C.ready(h)
      await h.session(sid).open()
    }, sid)
    await context.setOffline(true)
    const id = await a.page.evaluate(async (sid) => {
      const C = window.cachePage
      const s = C.kept.h.session(sid)
      s.prompt([{ type: 'text', text: 'Made in a tab that then went.' }])
      const echo = s.getSnapshot().nodes.at(-1)
      // The page's outbox record holds it before the tab goes.
      await C.until(async () => {
        const rows = await new Promise((ok) => {
          const req = indexedDB.open('agent-session-cache')
          req.onsuccess = () => {
            const t = req.result.transaction('outbox').objectStore('outbox').getAll()
            t.onsuccess = () => (req.result.close(), ok(t.result))
          }
        })
        return rows.some((r) => r.prompts.some((p) => p.id === echo.id))
      }, 'the outbox record')
      return echo.id
    }, sid)
    a.guard.assertClean()
    await a.page.close()
    await context.setOffline(false)
    const tabs = [await cachePage(context), await cachePage(context)]
    // Both open the session at once: each reads the cache, only one takes the record over.
    const saw = await Promise.all(
      tabs.map(({ page }) =>
        page.evaluate(
          async ({ sid, id }) => {
            const C = window.cachePage
            const h = new C.HostClient({ baseUrl: location.origin, cache: true })
            C.kept.h = h
            await C.ready(h)
            const s = h.session(sid)
            let echoed = false
            s.subscribe(() => (echoed ||= s.getSnapshot().nodes.some((n) => n.seq === -1 && n.id === id)))
            await s.open()
            await C.sleep(1500)
            return echoed
          },
          { sid, id },
        ),
      ),
    )
    assert.equal(saw.filter(Boolean).length, 1, `exactly one tab took the prompt over: ${JSON.stringify(saw)}`)
    const logged = await until(async () => {
      const l = await loggedPrompts(host.url, sid)
      return l.includes('Made in a tab that then went.') && l
    }, 'the prompt in the host log')
    assert.equal(logged.filter((t) => t === 'Made in a tab that then went.').length, 1)
    for (const t of tabs) t.guard.assertClean()
    await context.close()
  })
})
