// agent-session/vue: Vue composables. Each returns a shallow ref holding the frozen snapshot
// (or `selector(snapshot)`), updated from `subscribe`; like `useSession` in React, the ref is
// set only when the selected value changed identity (`Object.is`), so `s => s.nodes` triggers
// only when the nodes array changed. Subscribed while the calling effect scope lives (a
// component's setup); outside a scope, call the returned ref's `stop()` to unsubscribe.
import { getCurrentScope, onScopeDispose, shallowRef } from 'vue'

const identity = (s) => s

function track(source, read) {
  const ref = shallowRef(read())
  const unsubscribe = source.subscribe(() => {
    const next = read()
    if (!Object.is(next, ref.value)) ref.value = next
  })
  // A change between the first read and the subscription is not lost.
  const now = read()
  if (!Object.is(now, ref.value)) ref.value = now
  if (getCurrentScope()) onScopeDispose(unsubscribe)
  ref.stop = unsubscribe
  return ref
}

/** The session's snapshot (or `selector(snapshot)`) as a shallow ref. */
export function useSession(session, selector = identity) {
  let snap
  let value
  return track(session, () => {
    const s = session.getSnapshot()
    if (s !== snap) {
      snap = s
      value = selector(s)
    }
    return value
  })
}

/** The host's connection snapshot as a shallow ref. */
export function useConnection(host) {
  return track(host, () => host.getSnapshot())
}

/** The host's live session list as a shallow ref. */
export function useSessions(host) {
  return track(host, () => host.getSessions())
}
