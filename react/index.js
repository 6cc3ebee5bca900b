// agent-session/react: React bindings over useSyncExternalStore. The server snapshots are a
// fresh client's first frames (../first.js): a server render and the hydration that follows
// it render the same markup, then the live snapshots take over.
import { useCallback, useRef, useSyncExternalStore } from 'react'
import { CONNECTING, NO_SESSIONS, cold } from '../first.js'

const identity = (s) => s

/**
 * Subscribes a component to a Session's snapshot (or a selected part of it). Snapshots are
 * frozen and keep identity while unchanged, so selecting `s => s.nodes` re-renders only when
 * the nodes array changed.
 */
export function useSession(session, selector = identity) {
  const subscribe = useCallback((cb) => session.subscribe(cb), [session])
  const last = useRef({ snap: undefined, selector: undefined, value: undefined })
  const select = (snap) => {
    const memo = last.current
    if (memo.snap === snap && memo.selector === selector) return memo.value
    const value = selector(snap)
    last.current = { snap, selector, value }
    return value
  }
  return useSyncExternalStore(subscribe, () => select(session.getSnapshot()), () => select(cold(session)))
}

/** Subscribes a component to a HostClient's connection snapshot. */
export function useConnection(host) {
  const subscribe = useCallback((cb) => host.subscribe(cb), [host])
  const get = useCallback(() => host.getSnapshot(), [host])
  return useSyncExternalStore(subscribe, get, () => CONNECTING)
}

/** Subscribes a component to a HostClient's live session list (`host.getSessions()`). */
export function useSessions(host) {
  const subscribe = useCallback((cb) => host.subscribe(cb), [host])
  const get = useCallback(() => host.getSessions(), [host])
  return useSyncExternalStore(subscribe, get, () => NO_SESSIONS)
}
