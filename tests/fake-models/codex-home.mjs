// A CODEX_HOME for running the real codex offline against tests/fake-models/openai-responses.mjs.
//
//   import { writeCodexHome, CODEX_MODEL, codexEnv } from './codex-home.mjs';
//   writeCodexHome(dir, fake.url);                       // writes dir/config.toml
//   spawn(bin, ['app-server'], { env: codexEnv(dir) });  // CODEX_HOME + the dummy key
//
// Every key below is accepted by codex 0.169.0 under `--strict-config`.

import fs from 'node:fs';
import path from 'node:path';

/** A slug from codex 0.169.0's bundled model catalog (`codex debug models`). */
export const CODEX_MODEL = 'gpt-5.5';
export const FAKE_KEY_ENV = 'FAKE_OPENAI_KEY';

/**
 * opts.model: a catalog slug (default CODEX_MODEL).
 * opts.streamIdleTimeoutMs: how long codex waits on a silent SSE stream before failing the turn
 *   (codex's default is 300000); a stall test can set it low.
 */
export function codexConfigToml(fakeUrl, { model = CODEX_MODEL, streamIdleTimeoutMs = null } = {}) {
  return `# Offline codex: the only provider is the fake Responses server.
model_provider = "fake"
model = "${model}"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "${fakeUrl}"
env_key = "${FAKE_KEY_ENV}"
wire_api = "responses"
supports_websockets = false
request_max_retries = 0
stream_max_retries = 0
${streamIdleTimeoutMs != null ? `stream_idle_timeout_ms = ${Number(streamIdleTimeoutMs)}\n` : ''}
[analytics]
enabled = false

[tools.update_plan]
enabled = true
`;
}

export function writeCodexHome(dir, fakeUrl, opts = {}) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'config.toml');
  fs.writeFileSync(file, codexConfigToml(fakeUrl, opts));
  return file;
}

/** The environment for a codex child using `dir` as CODEX_HOME. */
export function codexEnv(dir, base = process.env) {
  return { ...base, CODEX_HOME: dir, [FAKE_KEY_ENV]: 'fake-key-not-secret' };
}
