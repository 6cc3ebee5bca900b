// The 2026-08 host's model directory and selection of one session (`host.models(sessionId)`,
// docs/API.md "Models"). Loaded by index.js on the first call (apps without it never load this
// file). Made of `host.call`: `session.models` once the client is connected, then
// `session.selectModel` per pick. The host sends no frame when a selection changes, so what is
// shown is what its answers say, behind a fence: each pick is numbered, and only the answer to
// the newest one is applied (a slower answer to an older pick never overwrites a newer one).

import { Store, keyed, opened } from './store.js'

/** The store of session `sessionId`'s models on client `host` (one per session: one fence for
 *  every component that picks). */
export function store(host, sessionId) {
  return keyed(host, 'models', 'sessionId', sessionId, () => new Models(host, sessionId))
}

class Models extends Store {
  constructor(host, sessionId) {
    super({ state: 'loading', groups: [], routable: false, current: null, pending: null, error: null })
    this.host = host
    this.id = sessionId
    // The number of the newest pick (the fence).
    this.picks = 0
    this.load()
  }

  async load() {
    await opened(this.host)
    const r = await this.host.call('session.models', { sessionId: this.id })
    const v = r.ok && r.value
    if (v && Array.isArray(v.groups) && v.current && typeof v.current.provider === 'string') {
      // A pick made while the directory was asked stands over its `current`.
      this.set({ state: 'ready', groups: v.groups, routable: v.routable === true, current: this.picks ? this.snap.current : v.current })
    } else {
      const error = r.ok ? { code: 'internal', message: 'session.models: not {current, routable, groups}' } : r.error
      this.set({ state: error.code === 'unsupported' ? 'unsupported' : 'error', error })
    }
  }

  /** Asks the host to use `selection` (`{provider, model, reasoningEffort?}`) for the next
   *  step; resolves the host's answer. `pending` shows it until the answer comes. */
  async select(selection) {
    const n = ++this.picks
    const pick = { ...selection }
    this.set({ pending: pick, error: null })
    const r = await this.host.call('session.selectModel', { ...selection, sessionId: this.id })
    if (n === this.picks) {
      if (r.ok) this.set({ current: r.value.selected, pending: null })
      else this.set({ pending: null, error: r.error })
    }
    return r
  }

  set(part) {
    this.show({ ...this.snap, ...part })
  }
}
