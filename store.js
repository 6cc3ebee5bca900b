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

/** A store's snapshot and listeners (`getSnapshot`, `subscribe`), as the package's own are. */
export class Store {
  constructor(snap) {
    this.snap = deepFreeze(snap)
    this.listeners = new Set()
  }

  getSnapshot() {
    return this.snap
  }

  subscribe(listener) {
    if (typeof listener !== 'function') throw Object.assign(new Error('listener must be a function'), { code: 'bad-argument' })
    const l = () => listener()
    this.listeners.add(l)
    return () => this.listeners.delete(l)
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
