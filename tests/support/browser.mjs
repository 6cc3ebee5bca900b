// playwright-core on the system Chromium (never a downloaded browser). playwright-core is
// installed in www/node_modules (one `npm ci --prefix www` sets up the UI and the tooling).
import { createRequire } from 'node:module'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './host.mjs'

const require = createRequire(join(ROOT, 'www', 'package.json'))

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** options: { exposeGc = false }: `exposeGc` adds `--js-flags=--expose-gc`, so pages can call
 *  `gc()` (memory figures and lifetime tests force collections; other users keep V8's defaults). */
export async function launch({ exposeGc = false } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)
  const { chromium } = require('playwright-core')
  const args = exposeGc ? [...CHROMIUM_ARGS, '--js-flags=--expose-gc'] : CHROMIUM_ARGS
  return chromium.launch({ executablePath: CHROMIUM, args, headless: true })
}

// Under target/: a test run leaves the tree as it found it (scripts/refresh-screenshots.mjs
// copies the ones the docs show into docs/screenshots/, on purpose).
export const SHOTS = join(ROOT, 'target', 'screenshots')
export async function shot(page, name) {
  mkdirSync(SHOTS, { recursive: true })
  const path = join(SHOTS, `${name}.png`)
  await page.screenshot({ path })
  return path
}
