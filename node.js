// agent-session, the entry outside browsers (the `node` export condition: Node programs,
// vitest under jsdom or happy-dom, and server rendering): the browser entry (index.js), its
// .wasm read from the file system and instantiated at import, as automerge's Node entry does
// (Node has no fetch of `file:` URLs), and the module told when the page it runs in is
// simulated (jsdom, happy-dom). Nothing else: when a client connects (at construction with a
// DOM, at its first subscribe or operation without one), which transport 'auto' takes, and
// every check are the module's own (src/wasm/config.rs).
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import load, { initSync } from './index.js'
import { __simulatedDom } from './pkg/agent_session.js'

// Read at run time, not written as `new URL('…', import.meta.url)`: a server bundler would
// rewrite that into a copy of the .wasm of its own.
const here = import.meta.url

/** The .wasm beside this module, or (a server bundle, such as Next.js's, moved this code away
 * from it) the package's under the working directory; `undefined` when neither is there. */
function wasm() {
  for (const at of [() => new URL('pkg/agent_session_bg.wasm', here), () => new URL('node_modules/agent-session/pkg/agent_session_bg.wasm', pathToFileURL(`${process.cwd()}/`))]) {
    try {
      return readFileSync(at())
    } catch {
      // not there: the next place
    }
  }
}

// jsdom's and happy-dom's user agents end with their names (`jsdom/29.0.1`, `HappyDOM/21.0.4`):
// their WebSockets do not work with Node's fetch, so 'auto' takes SSE under them.
const simulated = / (jsdom|HappyDOM)\/\S*$/.test(globalThis.navigator?.userAgent ?? '')
const loaded = (m) => (simulated && __simulatedDom(), m)

const bytes = wasm()
if (bytes) loaded(initSync({ module: bytes }))

/** Resolves with the module's exports: loaded at import already, unless `input` names another
 * (`{ module_or_path }`); rejects with `not-initialized` when no .wasm was found. */
export function init(input) {
  if (bytes || input !== undefined) return load(input).then(loaded)
  const e = new Error('agent-session: no agent_session_bg.wasm beside the module nor under node_modules/agent-session of the working directory; pass it to init({ module_or_path })')
  return Promise.reject(Object.assign(e, { code: 'not-initialized' }))
}
export default init
export { initSync }
export { HostClient, Session } from './index.js'
