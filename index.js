// agent-session, the package entry: wasm-bindgen's classes with disposal and the lifetime
// rules of docs/API.md ("Lifetimes"; a Session's free and dispose do nothing).
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
