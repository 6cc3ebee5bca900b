#!/usr/bin/env node
// Refreshes the screenshots the docs show (docs/screenshots/) from the last e2e run's
// (target/screenshots/, written by `node scripts/e2e.mjs` or `npm test`). Tests never write
// into the tree; this is the one explicit step that does, so a changed image is a choice.
// Fails, copying nothing, if any screenshot the docs need is missing.
import { copyFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const from = join(root, 'target', 'screenshots')
const to = join(root, 'docs', 'screenshots')
// docs name <- e2e name
const names = {
  'plan-pending': '01-plan-chip-pending',
  'plan-active-streaming': '02-plan-active-streaming',
  'streamed-answer': '03-streamed-answer',
  'question-card': '04-question-card',
  'connection-lost': '05-connection-lost',
  recovered: '06-recovered',
  interaction: '07-interaction-capabilities',
}
for (const n of ['empty-state', 'streaming', 'question-card', 'approval-card', 'reconnect-banner', 'recovered', 'new-session-examples']) {
  names[`a11y-${n}`] = `a11y-${n}`
}
for (const n of ['live-list-second-context', 'provider-codex', 'provider-codex-question', 'provider-codex-streaming', 'provider-claude', 'provider-claude-question', 'provider-cursor']) {
  names[n] = n
}
const missing = Object.values(names).filter((n) => !existsSync(join(from, `${n}.png`)))
if (missing.length) {
  console.error(`refresh-screenshots: missing in target/screenshots (run the e2e tests first): ${missing.join(', ')}`)
  process.exit(1)
}
for (const [doc, shot] of Object.entries(names)) copyFileSync(join(from, `${shot}.png`), join(to, `${doc}.png`))
console.log(`refresh-screenshots: ${Object.keys(names).length} screenshots copied to docs/screenshots/`)
