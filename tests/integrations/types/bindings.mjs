// The Vue and Svelte bindings' rules, and server renders of all three bindings, in Node:
// - a ref/store takes a new value only when the selected value changes identity;
// - it unsubscribes when stopped (Vue scope end / `stop()`, the store's last subscriber);
// - a server render (react-dom/server, vue/server-renderer, a store read at once) never
//   subscribes, so the real HostClient stays unstarted and renders its first frame.
import assert from 'node:assert/strict'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { createSSRApp, defineComponent, effectScope, h } from 'vue'
import { renderToString as vueRender } from 'vue/server-renderer'
import { get } from 'svelte/store'
import init, { HostClient } from 'agent-session'
import * as react from 'agent-session/react'
import * as vue from 'agent-session/vue'
import * as svelte from 'agent-session/svelte'

const tick = () => new Promise((r) => setTimeout(r, 0))

/** A stand-in Session: frozen snapshots, listeners called on `set`. */
function fakeSession() {
  const listeners = new Set()
  let snap = Object.freeze({ nodes: Object.freeze([]), running: false })
  return {
    sessionId: 'fake',
    subscribed: () => listeners.size,
    getSnapshot: () => snap,
    subscribe(l) {
      listeners.add(l)
      return () => listeners.delete(l)
    },
    set(patch) {
      snap = Object.freeze({ ...snap, ...patch })
      for (const l of listeners) l()
    },
  }
}

// Vue: the ref changes only when the selected value changes identity.
{
  const s = fakeSession()
  const scope = effectScope()
  const nodes = scope.run(() => vue.useSession(s, (x) => x.nodes))
  const first = nodes.value
  s.set({ running: true }) // new snapshot, same nodes array
  assert.equal(nodes.value, first, 'vue: same nodes, same value')
  const next = Object.freeze([{ id: 'n1' }])
  s.set({ nodes: next })
  assert.equal(nodes.value, next, 'vue: new nodes array, new value')
  assert.equal(s.subscribed(), 1)
  scope.stop()
  assert.equal(s.subscribed(), 0, 'vue: the scope end unsubscribes')
  const whole = vue.useSession(s)
  assert.equal(whole.value, s.getSnapshot())
  whole.stop()
  assert.equal(s.subscribed(), 0, 'vue: stop() unsubscribes')
}

// Svelte: the store sets only on identity changes; subscribed one microtask after the first
// subscriber, unsubscribed with the last.
{
  const s = fakeSession()
  const store = svelte.sessionStore(s, (x) => x.nodes)
  const seen = []
  const stop = store.subscribe((v) => seen.push(v))
  await tick()
  assert.equal(s.subscribed(), 1)
  const before = seen.length
  s.set({ running: true })
  assert.equal(seen.length, before, 'svelte: same nodes, no new value')
  const next = Object.freeze([{ id: 'n1' }])
  s.set({ nodes: next })
  assert.equal(seen.length, before + 1, 'svelte: new nodes array, one new value')
  assert.equal(seen.at(-1), next)
  stop()
  assert.equal(s.subscribed(), 0, 'svelte: the last subscriber unsubscribes')
  // A server render reads the store and unsubscribes at once: the source is never subscribed.
  assert.equal(get(store), next)
  await tick()
  assert.equal(s.subscribed(), 0, 'svelte: a synchronous read never subscribes')
}

// Server renders with the real package: the client is never started.
await init()
const host = new HostClient({ baseUrl: 'http://127.0.0.1:9' })
const session = host.session('ssr')
{
  function Conversation() {
    const conn = react.useConnection(host)
    const nodes = react.useSession(session, (s) => s.nodes)
    const list = react.useSessions(host)
    return createElement('p', null, `${conn.state} ${nodes.length} ${list.state}`)
  }
  assert.equal(renderToString(createElement(Conversation)), '<p>connecting 0 loading</p>')
}
{
  const App = defineComponent({
    setup() {
      const conn = vue.useConnection(host)
      const open = vue.useSession(session, (s) => s.openState)
      return () => h('p', `${conn.value.state} ${open.value}`)
    },
  })
  assert.equal(await vueRender(createSSRApp(App)), '<p>connecting cold</p>')
}
assert.equal(get(svelte.connectionStore(host)).state, 'connecting')
await tick()
const d = host.diagnostics()
assert.equal(d.inflightRequests + d.sockets + d.hostListeners + d.sessionListeners, 0, `server renders started the client: ${JSON.stringify(d)}`)
host.close()
console.log('vue refs and svelte stores keep the identity rules and unsubscribe; React, Vue and Svelte server renders never start the client')
