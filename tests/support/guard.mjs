// Fails a test on anything a page reports that the test did not expect: an uncaught error
// (`pageerror`), an unhandled promise rejection, or a console error. A library must never
// leave a rejection unhandled: apps with error trackers would page someone for it.
//
//   const guard = await guardPage(page)        // before page.goto
//   guard.expect(/ERR_CONNECTION_REFUSED/)     // what this test provokes on purpose
//   ...
//   guard.assertClean()                         // at the end (its own `it`)

import assert from 'node:assert/strict'

// Chromium logs a failed request as a console error of its own ("Failed to load resource",
// net::ERR_…): that is the browser reporting the network, not the page misbehaving. Tests
// that provoke network failures allow them with `expect(NETWORK)`.
export const NETWORK = /Failed to load resource|net::ERR_|WebSocket connection to .* failed/

// Installed before any page script: an unhandled rejection becomes a console error with a
// recognisable prefix, so it is caught even where Playwright reports no `pageerror`.
function reportRejections() {
  window.addEventListener('unhandledrejection', (e) => {
    const r = e.reason
    console.error(`unhandledrejection: ${r && r.stack ? r.stack : String(r)}`)
  })
}

export async function guardPage(page, { initScript = true } = {}) {
  const seen = []
  const allowed = []
  page.on('pageerror', (e) => seen.push(`pageerror: ${e.stack || e}`))
  page.on('console', (m) => {
    if (m.type() === 'error') seen.push(m.text())
  })
  if (initScript) await page.addInitScript(reportRejections)
  return {
    /** Allows console errors matching `re` (never `pageerror` or `unhandledrejection`). */
    expect(re) {
      allowed.push(re)
      return this
    },
    /** What was reported and not allowed. */
    unexpected() {
      return seen.filter(
        (e) => e.startsWith('pageerror:') || e.startsWith('unhandledrejection:') || !allowed.some((re) => re.test(e)),
      )
    },
    assertClean() {
      assert.deepEqual(this.unexpected(), [], 'the page reported errors the test did not expect')
    },
  }
}

/** Guards every page a context opens (multi-tab tests); call before opening pages. */
export async function guardContext(context) {
  const guards = []
  const allowed = []
  await context.addInitScript(reportRejections)
  const add = async (page) => {
    const g = await guardPage(page, { initScript: false })
    for (const re of allowed) g.expect(re)
    guards.push(g)
  }
  await Promise.all(context.pages().map(add))
  context.on('page', add)
  return {
    expect(re) {
      allowed.push(re)
      for (const g of guards) g.expect(re)
      return this
    },
    unexpected() {
      return guards.flatMap((g) => g.unexpected())
    },
    assertClean() {
      assert.deepEqual(this.unexpected(), [], 'a page reported errors the test did not expect')
    },
  }
}
