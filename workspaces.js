// The 2026-08 host's workspaces and archive set, kept live (`host.workspaces()`, docs/API.md
// "Workspaces"). Loaded by index.js on the first call (apps without it never load this file).
// It composes through the wasm's frame hook (index.js's `__frames`: each frame of a type the
// wasm does not read, such as the four below) and `host.call`: `workspace.list` is the seed,
// asked again at every new connection, and the frames that came in while it was asked are
// applied on top of its answer (they are full records on one ordered stream, so applying one
// the answer already holds changes nothing, and the last one stands).

import { Store, deepFreeze } from './store.js'

const CHANGED = 'host/workspace-changed'
const REMOVED = 'host/workspace-removed'
const ORDER = 'host/workspace-order-changed'
const ARCHIVED = 'host/archived-sessions-changed'
// Frames held while a seed is asked; past this the seed is asked again (a flood meanwhile).
const MAX_HELD = 1000

const strings = (v) => Array.isArray(v) && v.every((s) => typeof s === 'string')
const workspace = (w) =>
  w && typeof w === 'object' && typeof w.workspaceId === 'string' && typeof w.title === 'string' && typeof w.path === 'string' && strings(w.sessionIds)

/** The store of client `host` (`h`: what the client holds beside the wasm; its frame hook
 *  reaches the store through `h.w`, held weakly: the client must stay collectable). */
export function store(host, h) {
  const s = new Workspaces(host)
  h.w = new WeakRef(s)
  return s
}

class Workspaces extends Store {
  constructor(host) {
    super({ state: 'loading', items: [], archivedSessionIds: [], error: null, dropped: 0 })
    this.host = host
    // The frames since the seed in flight was asked (null: none in flight).
    this.held = null
    this.gen = -1
    this.f = this.f.bind(this)
    host.subscribe(() => this.connected())
    this.connected()
  }

  // A new connection: its own seed (what changed while there was none is in its answer).
  connected() {
    const c = this.host.getSnapshot()
    if (c.state === 'open' && c.generation !== this.gen) {
      this.gen = c.generation
      this.seed()
    }
  }

  async seed() {
    this.ask?.abort()
    const ask = (this.ask = new AbortController())
    const held = (this.held = [])
    const r = await this.host.call('workspace.list', {}, { signal: ask.signal })
    if (ask !== this.ask) return
    this.ask = this.held = null
    const v = r.ok && r.value
    if (v && Array.isArray(v.items) && v.items.every(workspace) && strings(v.archivedSessionIds)) {
      let next = { ...this.snap, state: 'ready', items: v.items, archivedSessionIds: v.archivedSessionIds, error: null }
      for (const p of held) next = apply(next, p) ?? { ...next, dropped: next.dropped + 1 }
      this.set(next)
    } else if (!r.ok && r.error?.code === 'cancelled') {
      // Given up (the client closed): nothing to show for it.
    } else {
      const error = r.ok ? { code: 'internal', message: 'workspace.list: not {items: Workspace[], archivedSessionIds: string[]}' } : r.error
      this.set({ ...this.snap, state: error.code === 'unsupported' ? 'unsupported' : 'error', error })
    }
  }

  /** One frame the wasm did not read (its envelope's text). */
  f(text) {
    let p
    try {
      p = JSON.parse(text).payload
    } catch {
      return
    }
    if (![CHANGED, REMOVED, ORDER, ARCHIVED].includes(p?.type)) return
    if (this.held) {
      // The seed in flight answers for the time before it; this frame goes on top.
      if (this.held.push(p) > MAX_HELD) (this.gen = -1), this.connected()
      return
    }
    const next = apply(this.snap, p)
    if (next) this.set(next)
    else this.set({ ...this.snap, dropped: this.snap.dropped + 1 })
  }

  // The next snapshot: records equal to the ones shown stay the same objects.
  set(next) {
    const old = new Map(this.snap.items.map((w) => [w.workspaceId, w]))
    const keep = (w) => {
      const o = old.get(w.workspaceId)
      return o && JSON.stringify(o) === JSON.stringify(w) ? o : deepFreeze(w)
    }
    const items = next.items.map(keep)
    const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i])
    next.items = same(items, this.snap.items) ? this.snap.items : items
    if (same(next.archivedSessionIds, this.snap.archivedSessionIds)) next.archivedSessionIds = this.snap.archivedSessionIds
    if (!Object.keys(next).every((k) => next[k] === this.snap[k])) this.show(next)
  }
}

// Snapshot `s` with frame payload `p` applied, or null when `p` is not one of its shape.
function apply(s, p) {
  const items = s.items
  switch (p.type) {
    case CHANGED: {
      const w = p.workspace
      if (!workspace(w)) return null
      const i = items.findIndex((x) => x.workspaceId === w.workspaceId)
      // A new workspace is shown first, as `workspace.list` orders a new one.
      return { ...s, items: i < 0 ? [w, ...items] : items.map((x, j) => (j === i ? w : x)) }
    }
    case REMOVED:
      return typeof p.workspaceId === 'string' ? { ...s, items: items.filter((x) => x.workspaceId !== p.workspaceId) } : null
    case ORDER: {
      if (!strings(p.workspaceIds)) return null
      const at = new Map(p.workspaceIds.map((id, i) => [id, i]))
      // Ids the order does not name keep their place after the ones it does.
      const rank = (w) => at.get(w.workspaceId) ?? at.size
      return { ...s, items: items.map((w, i) => [w, i]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map((x) => x[0]) }
    }
    default:
      return strings(p.archivedSessionIds) ? { ...s, archivedSessionIds: p.archivedSessionIds } : null
  }
}
