// The local cache (`new HostClient({ cache })`, docs/API.md "Local cache"): what a session's
// window showed, kept in IndexedDB so a reopen paints it before the host answers. Loaded by
// index.js only when an app turns the option on (apps without it never load this file); the
// wasm module checks the option with the others and knows nothing else of it.
import { Session } from './pkg/agent_session.js'
//
// What is kept is the rendered window (the snapshot's nodes, its seqs and title), not the
// host's events: a reopen still reads the host's tail page, which alone decides what is
// shown once it is in; the cache only paints first and lends its objects to nodes equal to
// them. So a stale, replaced or tampered entry can cost a flash of old content, never a
// wrong window.

const DB = 'agent-session-cache'
// An entry of another format version is ignored (and replaced by the next write).
const VERSION = 1
// Writes wait this long and go in one transaction: a burst of changes is one write, and a
// window that keeps changing is written at most this often.
const BATCH_MS = 2000
// The bound of `cache: true` (and of an object without `maxBytes`).
const MAX_BYTES = 50 * 1024 * 1024

const freeze = (v) => {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const k in v) freeze(v[k])
    Object.freeze(v)
  }
  return v
}

// Whether two exported (plain, JSON-shaped) values are equal.
export function same(a, b) {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  for (const k of ka) if (!(k in b) || !same(a[k], b[k])) return false
  return true
}

const done = (req) =>
  new Promise((ok, fail) => {
    req.onsuccess = () => ok(req.result)
    req.onerror = () => fail(req.error)
  })

let db = null
function database() {
  if (!db) {
    const req = indexedDB.open(DB, 1)
    req.onupgradeneeded = () => {
      // `meta` holds what eviction reads (size, last open, tail) without the nodes.
      req.result.createObjectStore('meta', { keyPath: 'key' })
      req.result.createObjectStore('entries', { keyPath: 'key' })
    }
    db = done(req).then((d) => {
      // Another tab upgrading the database closes this connection; the next call reopens.
      d.onversionchange = () => {
        d.close()
        db = null
      }
      return d
    })
    db.catch(() => (db = null))
  }
  return db
}

async function tx(mode, run) {
  const d = await database()
  const t = d.transaction(['meta', 'entries'], mode)
  const ended = new Promise((ok, fail) => {
    t.oncomplete = ok
    t.onerror = t.onabort = () => fail(t.error)
  })
  // Both awaited together: a failed request aborts the transaction, and neither rejection
  // may go unhandled.
  const [out] = await Promise.all([run(t.objectStore('meta'), t.objectStore('entries')), ended])
  return out
}

// The caches of the clients that have not closed (clearAll drops their queued writes).
const live = new Set()

/** Empties the cache (every host's entries). What was queued before is dropped with it:
 *  only what changes afterwards is written again. */
export async function clearAll() {
  for (const c of live) c.forget()
  if (typeof indexedDB === 'undefined') return
  await tx('readwrite', (meta, entries) => {
    meta.clear()
    entries.clear()
  })
}

// A stored entry as the cached snapshot's parts, or null when it is not one of this version.
function valid(e, key) {
  const ok =
    e &&
    e.v === VERSION &&
    e.key === key &&
    Array.isArray(e.nodes) &&
    Number.isSafeInteger(e.baseSeq) &&
    Number.isSafeInteger(e.tailSeq) &&
    e.tailSeq >= e.baseSeq &&
    (e.title === null || typeof e.title === 'string') &&
    e.nodes.every((n) => n && typeof n.id === 'string' && typeof n.type === 'string')
  return ok ? e : null
}

/** The cache of one host (`base`: its normalized base URL), bounded by `maxBytes`. */
export class Cache {
  constructor(base, maxBytes) {
    this.base = base
    this.maxBytes = maxBytes
    this.queue = new Map()
    this.timer = 0
    // The snapshots written (an unchanged one is not written again), held weakly: a released
    // session's window must not stay in memory because the cache once wrote it.
    this.written = new WeakSet()
    // Sessions whose host-confirmed window is behind what was cached: the host's log was
    // replaced (an honest log never shrinks), so their next write replaces the entry.
    this.replaced = new Set()
    this.flush = this.flush.bind(this)
    if (typeof addEventListener === 'function') addEventListener('pagehide', this.flush)
    live.add(this)
  }

  /** Queues `snap` of session `id`, whose host-confirmed window is behind its entry, to
   *  replace the entry (written even where the entry looks newer). */
  replace(id, snap) {
    this.replaced.add(id)
    this.written.delete(snap)
    this.save(id, snap)
  }

  /** Drops what is queued; the snapshots it held count as written. */
  forget() {
    for (const snap of this.queue.values()) this.written.add(snap)
    this.queue.clear()
    clearTimeout(this.timer)
    this.timer = 0
  }

  key(id) {
    return `${this.base}\n${id}`
  }

  /** The cached window of session `id`, frozen, or null (none, another version, unreadable). */
  async read(id) {
    if (typeof indexedDB === 'undefined') return null
    const key = this.key(id)
    try {
      return await tx('readwrite', async (meta, entries) => {
        const e = valid(await done(entries.get(key)), key)
        const m = await done(meta.get(key))
        // Least recently opened goes first: this open counts.
        if (e && m) meta.put({ ...m, openedAt: Date.now() })
        return e && freeze({ nodes: e.nodes, baseSeq: e.baseSeq, tailSeq: e.tailSeq, title: e.title })
      })
    } catch {
      return null
    }
  }

  /** Queues `snap` (an open, host-confirmed snapshot of session `id`) to be written with the
   *  next batch: the latest one of each session is what is written. */
  save(id, snap) {
    if (typeof indexedDB === 'undefined' || snap.openState !== 'open' || snap.cached || snap.tailSeq < 0) return
    if (this.written.has(snap)) return
    this.queue.set(id, snap)
    if (!this.timer) this.timer = setTimeout(this.flush, BATCH_MS)
  }

  /** Writes what is queued, in one transaction; the higher tail wins over another tab's. */
  async flush() {
    clearTimeout(this.timer)
    this.timer = 0
    if (!this.queue.size) return
    const batch = [...this.queue]
    this.queue.clear()
    for (const [, snap] of batch) this.written.add(snap)
    const rows = batch.map(([id, s]) => {
      const entry = { v: VERSION, key: this.key(id), nodes: s.nodes, baseSeq: s.baseSeq, tailSeq: s.tailSeq, title: s.title }
      return { id, entry, bytes: JSON.stringify(s.nodes).length + 64 }
    })
    try {
      await tx('readwrite', async (meta, entries) => {
        const now = Date.now()
        for (const { id, entry, bytes } of rows) {
          const m = await done(meta.get(entry.key))
          // Another tab's longer view of the same log stays; a replaced log's does not (asked
          // here, in the transaction: a cache read that ran before it has said so by now).
          if (m && m.v === VERSION && m.tailSeq > entry.tailSeq && !this.replaced.delete(id)) continue
          this.replaced.delete(id)
          meta.put({ v: VERSION, key: entry.key, bytes, tailSeq: entry.tailSeq, openedAt: m?.openedAt ?? now })
          entries.put(entry)
        }
        // Least recently opened first, until the whole cache is within its bound.
        const all = (await done(meta.getAll())).sort((a, b) => a.openedAt - b.openedAt)
        let total = all.reduce((n, m) => n + (m.bytes || 0), 0)
        for (const m of all) {
          if (total <= this.maxBytes) break
          total -= m.bytes || 0
          meta.delete(m.key)
          entries.delete(m.key)
        }
      })
    } catch {
      // Storage refused (quota, private mode, a closing database): the cache is only a head
      // start, so the write is dropped, never reported.
    }
  }

  /** Writes what is queued and stops listening for the page going away. */
  close() {
    if (typeof removeEventListener === 'function') removeEventListener('pagehide', this.flush)
    live.delete(this)
    return this.flush()
  }
}

// ---- the hooks: a session of a HostClient with the cache on paints from it ----

const S = Session.prototype
const { open, getSnapshot } = S
const state = new WeakMap()
let patched = false

/** Takes over `host`'s sessions (index.js collects them until this module is in). */
export function attach(host, options) {
  const c = options.cache
  const base = String(options.baseUrl ?? location.origin).replace(/\/+$/, '')
  // `true` (or any truthy value that is not an object) has no `maxBytes`: the default.
  const cache = new Cache(base, c.maxBytes ?? MAX_BYTES)
  const add = (s) => {
    if (!state.has(s)) state.set(s, { cache, reading: false, entry: null, paint: null, base: null })
    // Opened before this module was in: read the cache now.
    if (getSnapshot.call(s).openState === 'loading') opened(s)
  }
  const close = host.close
  host.close = function () {
    close.call(this)
    cache.close()
  }
  for (const s of host.made) add(s)
  host.made = { add }
  if (!patched) {
    patched = true
    Object.defineProperty(S, 'open', { value: openPainting, configurable: true, writable: true })
    Object.defineProperty(S, 'getSnapshot', { value: snapshot, configurable: true, writable: true })
  }
}

function openPainting() {
  const p = open.call(this)
  if (getSnapshot.call(this).openState === 'loading') opened(this)
  return p
}

// The host's tail page is asked for already: the cache is read meanwhile, and shown if it
// is in first.
function opened(s) {
  const st = state.get(s)
  if (!st || st.reading) return
  st.reading = true
  st.cache
    .read(s.sessionId)
    .then((entry) => {
      const now = getSnapshot.call(s)
      if (entry && now.openState === 'loading') {
        st.entry = entry
        s.__cache()
      } else if (entry && now.openState === 'open' && now.tailSeq < entry.tailSeq) {
        // The host answered first, with a shorter log than the cached one: it was replaced.
        st.cache.replace(s.sessionId, now)
      }
    })
    .catch(() => {})
    .finally(() => (st.reading = false))
}

function snapshot() {
  const w = getSnapshot.call(this)
  const st = state.get(this)
  if (!st) return w
  const e = st.entry
  if (e && w.openState === 'loading') {
    // Painted from the cache until the host's window is in: the cached nodes and seqs,
    // everything else (pending interactions, plan mode, status) the module's own.
    if (st.base !== w) {
      st.base = w
      st.paint = Object.freeze({ ...w, openState: 'open', baseSeq: e.baseSeq, tailSeq: e.tailSeq, nodes: e.nodes, title: w.title ?? e.title, cached: true })
    }
    return st.paint
  }
  if (e) {
    st.entry = st.paint = st.base = null
    if (w.openState === 'open') {
      if (w.tailSeq < e.tailSeq) st.cache.replace(this.sessionId, w)
      // Confirmed: nodes equal to cached ones keep the cached objects from now on.
      const byId = new Map(e.nodes.map((n) => [n.id, n]))
      let kept = 0
      const nodes = w.nodes.map((n) => {
        const c = byId.get(n.id)
        return c && same(c, n) && ++kept ? c : n
      })
      if (kept) {
        this.__cache(Object.freeze(nodes))
        return snapshot.call(this)
      }
    }
  }
  st.cache.save(this.sessionId, w)
  return w
}
