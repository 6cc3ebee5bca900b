// agent-session/react: React bindings over useSyncExternalStore.
import { useCallback, useRef, useSyncExternalStore } from 'react'

const identity = (s) => s

/**
 * Subscribes a component to a Session's snapshot (or a selected part of it). Snapshots are
 * frozen and keep identity while unchanged, so selecting `s => s.nodes` re-renders only when
 * the nodes array changed.
 */
export function useSession(session, selector = identity) {
  const subscribe = useCallback((cb) => session.subscribe(cb), [session])
  const last = useRef({ snap: undefined, selector: undefined, value: undefined })
  const getSelected = () => {
    const snap = session.getSnapshot()
    const memo = last.current
    if (memo.snap === snap && memo.selector === selector) return memo.value
    const value = selector(snap)
    last.current = { snap, selector, value }
    return value
  }
  return useSyncExternalStore(subscribe, getSelected, getSelected)
}

/** Subscribes a component to a HostClient's connection snapshot. */
export function useConnection(host) {
  const subscribe = useCallback((cb) => host.subscribe(cb), [host])
  const get = useCallback(() => host.getSnapshot(), [host])
  return useSyncExternalStore(subscribe, get, get)
}

/** Subscribes a component to a HostClient's live session list (`host.getSessions()`). */
export function useSessions(host) {
  const subscribe = useCallback((cb) => host.subscribe(cb), [host])
  const get = useCallback(() => host.getSessions(), [host])
  return useSyncExternalStore(subscribe, get, get)
}
