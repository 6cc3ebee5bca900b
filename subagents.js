// The 2026-08 host's subagents of one session (`host.subagents(parentSessionId)`, docs/API.md
// "Subagents"), kept live. Loaded by index.js on the first call. Made of `host.call`
// (`subagent.list`) and the live session list: a child is a session whose `parentSessionId`
// is the parent's, so the catalog is asked again at every new connection and whenever the
// live list's children of the parent come, go or change their running state; the newest ask
// wins (an older one is given up). It follows the live list only while it has a listener (the
// host holds no reference to a store nobody watches, so one per session visited does not pile
// up); a listener that comes back finds what changed meanwhile. Each child opens as a session
// of its own: `host.session(child.id)`; a continuable one takes prompts and interrupts here.
// `h.z` is the client's `clientTimeZone`, which upstream's own client sends with these
// prompts too.

import { Store, keyed } from './store.js'

/** The store of `parentSessionId`'s subagents on client `host` (one per parent). */
export function store(host, h, parentSessionId) {
  return keyed(host, 'subagents', 'parentSessionId', parentSessionId, () => new Subagents(host, h, parentSessionId))
}

class Subagents extends Store {
  constructor(host, h, parent) {
    super({ state: 'loading', items: [], parentAvailable: true, error: null })
    this.host = host
    this.h = h
    this.parent = parent
    // What the catalog was last asked for: the generation and the children as listed live.
    this.seen = null
    this.ask = null
    this.off = null
    this.changed()
  }

  /** `subagent.prompt`: `content` (text parts) to continuable child `childSessionId`;
   *  resolves the host's answer (`{messageId}`). The catalog shows the child running. */
  prompt(childSessionId, content) {
    const zone = this.h.z
    return this.host.call('subagent.prompt', { ...this.to(childSessionId), content, ...(zone ? { clientTimeZone: zone } : {}) })
  }

  /** `subagent.interrupt`: ends child `childSessionId`'s running turn; resolves the host's answer. */
  interrupt(childSessionId) {
    return this.host.call('subagent.interrupt', this.to(childSessionId))
  }

  /** A continuable child's address, as upstream's schema has it. */
  to(childSessionId) {
    return { parentSessionId: this.parent, childSessionId, mode: 'continuable' }
  }

  watched(on) {
    if (on) {
      this.off = this.host.subscribe(() => this.changed())
      this.changed()
    } else {
      this.off()
      this.off = null
    }
  }

  changed() {
    const c = this.host.getSnapshot()
    if (c.state !== 'open') return
    const children = this.host.getSessions().items.filter((i) => i.parentSessionId === this.parent)
    const seen = `${c.generation}\n${children.map((i) => `${i.sessionId}:${i.running}:${i.waiting}`).join('\n')}`
    if (seen === this.seen) return
    this.seen = seen
    this.list()
  }

  async list() {
    this.ask?.abort()
    const ask = (this.ask = new AbortController())
    const r = await this.host.call('subagent.list', { parentSessionId: this.parent }, { signal: ask.signal })
    if (ask !== this.ask) return
    this.ask = null
    const v = r.ok && r.value
    if (v && Array.isArray(v.entries) && v.entries.every((e) => e && typeof e.id === 'string' && typeof e.kind === 'string')) {
      // Entries equal to the ones shown stay the same objects.
      const old = new Map(this.snap.items.map((e) => [e.id, e]))
      const items = v.entries.map((e) => {
        const o = old.get(e.id)
        return o && JSON.stringify(o) === JSON.stringify(e) ? o : e
      })
      const same = items.length === this.snap.items.length && items.every((e, i) => e === this.snap.items[i])
      const next = { state: 'ready', items: same ? this.snap.items : items, parentAvailable: v.parentAvailable !== false, error: null }
      if (!same || Object.keys(next).some((k) => next[k] !== this.snap[k])) this.show(next)
    } else if (r.ok || r.error.code !== 'cancelled') {
      const error = r.ok ? { code: 'internal', message: 'subagent.list: not {entries, parentAvailable}' } : r.error
      this.show({ ...this.snap, state: error.code === 'unsupported' ? 'unsupported' : 'error', error })
    }
  }
}
