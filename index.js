// agent-session: the package entry. The classes come from the wasm-bindgen glue; this file
// only adds the disposal protocol (`using host = new HostClient(..)` closes it).
import init, { initSync, HostClient, Session } from './pkg/agent_session.js'

const dispose = typeof Symbol.dispose === 'symbol' ? Symbol.dispose : Symbol.for('Symbol.dispose')
Object.defineProperty(HostClient.prototype, dispose, {
  value: function () { this.close() },
  configurable: true,
  writable: true,
})
// A Session is owned by its HostClient: disposing one is a no-op (close the host instead).
Object.defineProperty(Session.prototype, dispose, { value: function () {}, configurable: true, writable: true })

export default init
export { init, initSync, HostClient, Session }
