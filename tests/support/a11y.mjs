// Accessibility check with axe-core (installed in www/node_modules like playwright-core) and
// screenshots of each checked view (target/screenshots/; scripts/refresh-screenshots.mjs copies
// the ones the docs show into docs/screenshots/).
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ROOT } from './host.mjs'

const require = createRequire(join(ROOT, 'www', 'package.json'))

/** Violations of impact serious or critical on the page as it is now (WCAG 2 A/AA rules). */
export async function seriousViolations(page) {
  const mod = require('@axe-core/playwright')
  const AxeBuilder = mod.AxeBuilder ?? mod.default
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }))
}

export { shot as docShot } from './browser.mjs'
