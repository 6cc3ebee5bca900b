// Lifetimes test page (driven by e2e/lifetimes.test.mjs; not part of the demo UI): the built
// package, exactly as an app imports it, plus what the tests observe from outside the package:
// every WebSocket the page opens (to see a collected HostClient's sockets close) and a
// FinalizationRegistry the tests register objects on (to see that the collector took them).
import init, { HostClient } from 'agent-session'

const sockets: WebSocket[] = []
const RealWebSocket = window.WebSocket
class TrackedWebSocket extends RealWebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols)
    sockets.push(this)
  }
}
window.WebSocket = TrackedWebSocket

const collected = new Set<string>()
const registry = new FinalizationRegistry<string>((name) => collected.add(name))

const lifetimes = {
  HostClient,
  /** Registers `obj` under `name`; `collected(name)` turns true once the collector took it. */
  track(obj: object, name: string) {
    registry.register(obj, name)
  },
  collected: (name: string) => collected.has(name),
  /** The tracked WebSockets not yet closed (CONNECTING, OPEN or CLOSING). */
  openSockets: () => sockets.filter((s) => s.readyState !== RealWebSocket.CLOSED).length,
  socketsOpened: () => sockets.length,
  /** gc() `n` times with a turn of the event loop between (finalizers run in their own tasks). */
  async gcTurns(n: number) {
    const gc = (window as unknown as { gc?: () => void }).gc
    if (!gc) throw new Error('gc() is not exposed: launch Chromium with --js-flags=--expose-gc')
    for (let i = 0; i < n; i++) {
      gc()
      await new Promise((r) => setTimeout(r, 50))
    }
  },
}

await init()
;(window as unknown as { lifetimes: typeof lifetimes }).lifetimes = lifetimes
document.getElementById('out')!.textContent = 'ready'
