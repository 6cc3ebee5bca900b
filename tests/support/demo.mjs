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
