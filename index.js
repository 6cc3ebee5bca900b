// agent-session: the package entry. The classes come from the wasm-bindgen glue; this adds
// the disposal protocol and the lifetime rules (docs/API.md, "Lifetimes"):
// - `using host = new HostClient(..)`, `host.free()` and `host.close()` close the client;
//   a `HostClient` object the page no longer references is closed once the garbage
//   collector takes it and every `Session` object of it.
// - A Session is owned by its HostClient: disposing or freeing one does nothing (the object
//   `host.session(id)` returns stays usable; the collector reclaims it when unreferenced).
import init, { initSync, HostClient, Session } from './pkg/agent_session.js'

const dispose = Symbol.dispose ?? Symbol.for('Symbol.dispose')
const method = (value) => ({ value, configurable: true, writable: true })
const freeHost = HostClient.prototype.free
Object.defineProperty(HostClient.prototype, dispose, method(function () { this.close() }))
Object.defineProperty(HostClient.prototype, 'free', method(function () {
  if (this.__wbg_ptr) {
    this.close()
    freeHost.call(this)
  }
}))
Object.defineProperty(Session.prototype, dispose, method(() => {}))
Object.defineProperty(Session.prototype, 'free', method(() => {}))

export default init
export { init, initSync, HostClient, Session }
