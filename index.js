// agent-session: the package entry. The classes come from the wasm-bindgen glue; this adds
// the disposal protocol (`using host = new HostClient(..)` closes it; a Session is owned by
// its HostClient, so disposing one does nothing).
import init, { initSync, HostClient, Session } from './pkg/agent_session.js'

const dispose = Symbol.dispose ?? Symbol.for('Symbol.dispose')
const method = (value) => ({ value, configurable: true, writable: true })
Object.defineProperty(HostClient.prototype, dispose, method(function () { this.close() }))
Object.defineProperty(Session.prototype, dispose, method(() => {}))

export default init
export { init, initSync, HostClient, Session }
