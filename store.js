// What the package's lazily loaded stores share (workspaces.js, models.js; cache.js freezes
// with it): a frozen snapshot, listeners, and a change that tells them. Loaded with the first
// of them.

/** Freezes `v` and everything in it (exported values are plain JSON-shaped data). */
export function deepFreeze(v) {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const k in v) deepFreeze(v[k])
    Object.freeze(v)
  }
  return v
}

const bad = (message) => Object.assign(new Error(message), { code: 'bad-argument' })

// Per client, per key: one store, held weakly (a store nobody holds goes, its entry with it).
const stores = new WeakMap()
const gone = new FinalizationRegistry(([mine, key]) => mine.get(key)?.deref() || mine.delete(key))

/** Client `host`'s store of `kind` for session `id` (a non-empty string, else `bad-argument`
 *  naming it `what`): the same object while anything holds it, else `make()`'s. */
export function keyed(host, kind, what, id, make) {
  if (typeof id !== 'string' || !id) throw bad(`${what} must be a non-empty string`)
  let mine = stores.get(host)
  if (!mine) stores.set(host, (mine = new Map()))
  const key = `${kind}\n${id}`
  let s = mine.get(key)?.deref()
  if (!s) {
    mine.set(key, new WeakRef((s = make())))
    gone.register(s, [mine, key])
  }
  return s
}

/** Resolves once client `host` is connected, so the host's description has said which
 *  methods it has: a seed host is then never asked what it lacks (the client refuses it,
 *  where asking would be a failed request the browser reports as a console error). */
export function opened(host) {
  return new Promise((resolve) => {
    let off
    const open = () => host.getSnapshot().state === 'open' && (off?.(), resolve(), true)
    if (!open()) off = host.subscribe(open)
  })
}

/** A store's snapshot and listeners (`getSnapshot`, `subscribe`), as the package's own are. A
 *  store with a `watched(on)` method is told when its first listener comes and its last goes,
 *  so what keeps it current (a host listener) is held only while someone listens. */
export class Store {
  constructor(snap) {
    this.snap = deepFreeze(snap)
    this.listeners = new Set()
  }

  getSnapshot() {
    return this.snap
  }

  subscribe(listener) {
    if (typeof listener !== 'function') throw bad('listener must be a function')
    const l = () => listener()
    this.listeners.add(l)
    if (this.listeners.size === 1) this.watched?.(true)
    return () => this.listeners.delete(l) && !this.listeners.size && this.watched?.(false)
  }

  /** `next` is the snapshot (frozen here); every listener is told. */
  show(next) {
    this.snap = deepFreeze(next)
    for (const l of this.listeners) {
      try {
        l()
      } catch (e) {
        console.error(e)
      }
    }
  }
}
