// agent-session/vue: Vue composables. Each returns a shallow ref holding the frozen snapshot
// (or `selector(snapshot)`), updated from `subscribe`; like `useSession` in React, the ref is
// set only when the selected value changed identity (`Object.is`), so `s => s.nodes` triggers
// only when the nodes array changed. In a component the ref is subscribed from mount to
// unmount; elsewhere at once, until the calling effect scope ends or `ref.stop()` is called.
import { getCurrentInstance, getCurrentScope, onBeforeUnmount, onMounted, onScopeDispose, shallowRef } from 'vue'

const identity = (s) => s

function track(source, read) {
  const ref = shallowRef(read())
  let unsubscribe = null
  const update = () => {
    const next = read()
    if (!Object.is(next, ref.value)) ref.value = next
  }
  const start = () => {
    if (unsubscribe) return
    unsubscribe = source.subscribe(update)
    update() // a change before the subscription is not lost
  }
  const stop = () => {
    unsubscribe?.()
    unsubscribe = null
  }
  if (getCurrentInstance()) {
    // In a component: from mount to unmount, so a server render never subscribes (nor
    // starts a client: see docs/API.md, "Server rendering").
    onMounted(start)
    onBeforeUnmount(stop)
  } else {
    start()
    if (getCurrentScope()) onScopeDispose(stop)
  }
  ref.stop = stop
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
