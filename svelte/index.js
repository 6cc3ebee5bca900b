// agent-session/svelte: Svelte readable stores (the store contract: `$store` in components,
// `subscribe` elsewhere). A store subscribes to its source while it has subscribers, and
// sets a new value only when the selected value changed identity, as React's `useSession`
// re-renders (snapshots are frozen and keep identity while unchanged).
import { readable } from 'svelte/store'

const identity = (s) => s

function store(source, read) {
  return readable(read(), (set) => {
    let last = read()
    set(last)
    return source.subscribe(() => {
      const next = read()
      if (!Object.is(next, last)) set((last = next))
    })
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
