// The demo open in a fresh browser, connected, with the page guard on: what every demo e2e
// file starts from.
import { launch } from './browser.mjs'
import { guardPage } from './guard.mjs'

/**
 * `{browser, page, guard}` on the demo at `url`, once it shows its sidebar and no connection
 * banner. `expect`: console noise the test causes on purpose (passed to `guard.expect`).
 */
export async function openDemo(url, { timeout, expect } = {}) {
  const browser = await launch()
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 })
  const page = await context.newPage()
  if (timeout) page.setDefaultTimeout(timeout)
  const guard = await guardPage(page)
  if (expect) guard.expect(expect)
  await page.goto(url)
  await page.getByTestId('new-session').waitFor()
  await page.waitForFunction(() => !document.querySelector('[data-testid="connection-banner"]'))
  return { browser, page, guard }
}

/**
 * What the agent e2e files do in the demo's conversation, on the page `page()` returns (the
 * page is opened in their `before`): send a prompt, count and wait for the host's user rows (an
 * echo, shown while its prompt is on its way, is not one yet), wait for an assistant message,
 * start a `[fake:long]` answer, and a `[fake:hello]` round trip. The fake model servers
 * (tests/fake-models/) answer those tags alike.
 */
export function conversation(page) {
  const tid = (id) => page().getByTestId(id)
  async function send(text) {
    await tid('composer-input').fill(text)
    await tid('send').click()
  }
  const users = () => page().locator('[data-testid="msg-user"]:not(.echo)').count()
  async function waitUsers(n) {
    await page().waitForFunction((k) => document.querySelectorAll('[data-testid="msg-user"]:not(.echo)').length === k, n)
  }
  async function waitAssistant(re) {
    await page().waitForFunction(
      (src) => [...document.querySelectorAll('[data-testid="msg-assistant"]')].some((e) => new RegExp(src).test(e.textContent ?? '')),
      re.source,
    )
  }
  /** A prompt that streams `[fake:long]` text, once a few deltas are on the page. */
  async function startLong() {
    const n = await users()
    await send('Tell me a long story [fake:long]')
    await waitUsers(n + 1)
    await page().waitForFunction(() => /word5 of the long answer/.test(document.querySelector('[data-testid="msg-partial"]')?.textContent ?? ''))
  }
  async function hello() {
    const before = await tid('msg-assistant').filter({ hasText: 'Hello from the fake model.' }).count()
    await send('Say hello [fake:hello]')
    await page().waitForFunction(
      (k) => [...document.querySelectorAll('[data-testid="msg-assistant"]')].filter((e) => /Hello from the fake model\./.test(e.textContent ?? '')).length === k + 1,
      before,
    )
    await tid('status-idle').waitFor()
  }
  return { send, users, waitUsers, waitAssistant, startLong, hello }
}
