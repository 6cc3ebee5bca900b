#!/usr/bin/env node
// Browser end-to-end tests: prepares the build (scripts/e2e-prepare.mjs), then runs
// `node --test` over e2e/*.test.mjs with the TAP reporter (closing lines `# pass N` / `# fail 0`).
// Env: AGENT_SESSION_HOST_BIN (default target/debug/agent-session-host, or $CARGO_TARGET_DIR),
//      CHROMIUM_PATH (default /usr/bin/chromium), E2E_SKIP_PREPARE=1.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../tests/support/host.mjs'
import { prepare } from './e2e-prepare.mjs'

if (process.env.E2E_SKIP_PREPARE !== '1') prepare()
const files = readdirSync(join(ROOT, 'e2e'))
  .filter((f) => f.endsWith('.test.mjs'))
  .sort()
  .map((f) => join('e2e', f))
const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', '--test-concurrency=1', ...files], {
  cwd: ROOT,
  stdio: 'inherit',
})
process.exit(r.status ?? 1)
