// agent-session, the entry outside browsers (the `node` export condition: Node programs,
// vitest under jsdom or happy-dom, and server rendering): the browser entry (index.js), its
// .wasm read from the file system and instantiated at import, as automerge's Node entry does
// (Node has no fetch of `file:` URLs). Nothing else: when a client connects (at construction
// with a DOM, at its first subscribe or operation without one), which transport 'auto' takes
// here, and every check are the module's own (src/wasm/config.rs).
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import load, { initSync } from './index.js'

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

const bytes = wasm()
if (bytes) initSync({ module: bytes })

/** Resolves with the module's exports: loaded at import already, unless `input` names another
 * (`{ module_or_path }`); rejects with `not-initialized` when no .wasm was found. */
export function init(input) {
  if (bytes || input !== undefined) return load(input)
  const e = new Error('agent-session: no agent_session_bg.wasm beside the module nor under node_modules/agent-session of the working directory; pass it to init({ module_or_path })')
  return Promise.reject(Object.assign(e, { code: 'not-initialized' }))
}
export default init
export { initSync }
export { HostClient, Session } from './index.js'
