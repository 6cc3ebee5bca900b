// agent-session/svelte: Svelte readable stores (the store contract: `$store` in components,
// `subscribe` elsewhere). A store subscribes to its source while it has subscribers, and
// sets a new value only when the selected value changed identity, as React's `useSession`
// re-renders (snapshots are frozen and keep identity while unchanged).
import { readable } from 'svelte/store'

const identity = (s) => s

function store(source, read) {
  return readable(read(), (set) => {
    let last
    let stop = null
    let live = true
    const update = () => {
      const next = read()
      if (!Object.is(next, last)) set((last = next))
    }
    set((last = read()))
    // Subscribed one microtask later: a server render reads a store and unsubscribes at
    // once, so it never subscribes (nor starts a client: docs/API.md, "Server rendering").
    queueMicrotask(() => {
      if (!live) return
      stop = source.subscribe(update)
      update()
    })
    return () => {
      live = false
      stop?.()
    }
  })
}

/** A readable store of the session's snapshot (or `selector(snapshot)`). */
export function sessionStore(session, selector = identity) {
  let snap
  let value
  return store(session, () => {
    const s = session.getSnapshot()
    if (s !== snap) {
      snap = s
      value = selector(s)
    }
    return value
  })
}

/** A readable store of the host's connection snapshot. */
export function connectionStore(host) {
  return store(host, () => host.getSnapshot())
}

/** A readable store of the host's live session list. */
export function sessionsStore(host) {
  return store(host, () => host.getSessions())
}
