// The local cache (`new HostClient({ cache })`, docs/API.md "Local cache"): what a session's
// window showed, kept in IndexedDB so a reopen paints it before the host answers, and the
// prompts not delivered yet, so a reload sends them. Loaded by index.js only when an app turns
// the option on (apps without it never load this file). It composes through the wasm's store
// hook (`changed`, called for each changed session) and the session's `__cache` (paint a kept
// window, lend kept node objects) and `prompt(content, mode, id)` (take a kept prompt over).
//
// What is kept is the rendered window (the snapshot's nodes, its seqs and title), not the
// host's events: a reopen still reads the host's tail page, which alone decides what is
// shown once it is in; the cache only paints first and lends its objects to nodes equal to
// them. So a stale, replaced or tampered entry can cost a flash of old content, never a
// wrong window.

import { deepFreeze as freeze } from './store.js'

/** The IndexedDB database of the cache (its one definition; docs/API.md names it). */
export const DB = 'agent-session-cache'
// An entry of another format version is ignored (and replaced by the next write).
const VERSION = 2
// Nodes per stored chunk. A window is kept as chunks so that a write is what changed (a
// streaming turn rewrites its last chunk, not 100,000 nodes), a first write lands newest
// first (a reload meanwhile paints what is in), and a read paints the newest chunk before the
// older ones are in.
const CHUNK = 1000
// Orphaned outbox records (their page gone, their session never opened again) are dropped
// after this long.
const OUTBOX_DAYS = 7
// The Web Lock a page holds while its outbox records are its own.
const PAGE_LOCK = 'agent-session-page:'
// Writes wait this long and go in one transaction: a burst of changes is one write, and a
// window that keeps changing is written at most this often.
const BATCH_MS = 2000
// The bound of `cache: true` (and of an object without `maxBytes`).
const MAX_BYTES = 50 * 1024 * 1024

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
    const req = indexedDB.open(DB, 2)
    req.onupgradeneeded = () => {
      // `meta` holds what eviction reads (size, last open, tail) without the nodes; `outbox`
      // one record per page and session: the prompts that page has not seen in the log.
      const have = req.result.objectStoreNames
      for (const name of ['meta', 'entries', 'outbox']) if (!have.contains(name)) req.result.createObjectStore(name, { keyPath: 'key' })
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
  const t = d.transaction(['meta', 'entries', 'outbox'], mode)
  const ended = new Promise((ok, fail) => {
    t.oncomplete = ok
    t.onerror = t.onabort = () => fail(t.error)
  })
  // Both awaited together: a failed request aborts the transaction, and neither rejection
  // may go unhandled.
  const [out] = await Promise.all([run(t.objectStore('meta'), t.objectStore('entries'), t.objectStore('outbox')), ended])
  return out
}

// The caches of the clients that have not closed (clearAll drops their queued writes).
const live = new Set()

/** Empties the cache (every host's entries). What was queued before is dropped with it:
 *  only what changes afterwards is written again. */
export async function clearAll() {
  for (const c of live) c.forget()
  if (typeof indexedDB === 'undefined') return
  await tx('readwrite', (meta, entries, outbox) => {
    meta.clear()
    entries.clear()
    outbox.clear()
  })
}

// The key of an entry's older chunk `i` (the newest is the entry itself); zero-padded, so
// the keys sort as the chunks do.
const chunkKey = (key, i) => `${key}\n#${String(i).padStart(6, '0')}`
// The older chunks of an entry from chunk `from` on (all of them by default).
const chunks = (key, from = 0) => IDBKeyRange.bound(chunkKey(key, from), `${key}\n#\uffff`)
const nodesOk = (nodes) => Array.isArray(nodes) && nodes.every((n) => n && typeof n.id === 'string' && typeof n.type === 'string')
const sum = (xs) => xs.reduce((n, x) => n + (x || 0), 0)
const size = (nodes) => JSON.stringify(nodes).length + 64
// The cached snapshot's parts of entry `e` with `nodes` (frozen): the window's `baseSeq` when
// they are all of it, else that of their first node (a part paints newest first).
const keptWindow = (e, nodes, whole) =>
  freeze({ nodes, baseSeq: whole ? e.baseSeq : (nodes[0]?.seq ?? e.baseSeq), tailSeq: e.tailSeq, title: e.title })

// A stored entry (the newest chunk and the window's seqs and title) as the cached snapshot's
// parts, or null when it is not one of this version or its meta does not describe it.
function valid(e, key, m) {
  const ok =
    e &&
    e.v === VERSION &&
    e.key === key &&
    Number.isSafeInteger(e.baseSeq) &&
    Number.isSafeInteger(e.tailSeq) &&
    e.tailSeq >= e.baseSeq &&
    (e.title === null || typeof e.title === 'string') &&
    nodesOk(e.nodes) &&
    m?.v === VERSION &&
    m.tailSeq === e.tailSeq &&
    Number.isSafeInteger(m.n) &&
    Number.isSafeInteger(m.from) &&
    m.from >= 0 &&
    m.from < m.n
  return ok ? e : null
}

/** The cache of one host (`base`: its normalized base URL), bounded by `maxBytes`. */
export class Cache {
  constructor(base, maxBytes) {
    this.base = base
    this.maxBytes = maxBytes
    this.queue = new Map()
    this.timer = 0
    // The windows written (their `nodes` arrays: a snapshot whose window did not change is
    // not written again), held weakly: a released session's window must not stay in memory
    // because the cache once wrote it.
    this.written = new WeakSet()
    // Per session, what this page wrote last: its write's id, how many nodes were the window's,
    // in how many chunks, and each chunk's first seq. With `kept` (every node object this page
    // stored or read, held weakly: frozen objects are only replaced, never changed) a write
    // finds the first chunk that changed. (Not the last array written, held weakly: the
    // collector took it between writes and every write then rewrote the whole window.)
    this.last = new Map()
    this.kept = new WeakSet()
    // Sessions whose host-confirmed window is behind what was cached: the host's log was
    // replaced (an honest log never shrinks), so their next write replaces the entry.
    this.replaced = new Set()
    // Per session, its open's cache read while it runs: a write waits for it, since only
    // the read can tell that the host answered with a replaced log before it was in.
    this.reading = new Map()
    this.flush = this.flush.bind(this)
    if (typeof addEventListener === 'function') addEventListener('pagehide', this.flush)
    live.add(this)
    // This page's outbox records are its own while it holds this lock (held for the page's
    // life, released by close or by the page going): a record whose page lock nobody holds is
    // an orphan the next page to open its session takes over. Without Web Locks no outbox is
    // kept (a live tab's prompts could not be told from a gone one's).
    this.page = `${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}`
    const locks = globalThis.navigator?.locks
    this.locked = locks
      ? new Promise((held) => locks.request(PAGE_LOCK + this.page, () => (held(true), new Promise((r) => (this.unlock = r))))).catch(() => false)
      : Promise.resolve(false)
    this.chain = Promise.resolve()
  }

  /** The ids of the pages whose lock is held (in any tab of this origin), or null without
   *  Web Locks. */
  async pages() {
    if (!(await this.locked)) return null
    const { held = [] } = await navigator.locks.query()
    return new Set(held.map((l) => l.name).filter((n) => n?.startsWith(PAGE_LOCK)).map((n) => n.slice(PAGE_LOCK.length)))
  }

  /** Writes session `s`'s echoes (the prompts its log does not show yet: the snapshot's
   *  trailing `seq: -1` nodes) to this page's outbox record when they changed. */
  outbox(s, st, w) {
    const n = w.nodes
    let i = n.length
    while (i > 0 && n[i - 1].seq === -1) i--
    const echoes = n.slice(i)
    if (echoes.length === st.echoes.length && echoes.every((e, j) => e === st.echoes[j])) return
    st.echoes = echoes
    const key = `${this.key(s.sessionId)}\n${this.page}`
    const prompts = echoes.map((e) => ({ id: e.id, content: e.content, mode: e.type === 'steering' ? 'steer' : 'queue' }))
    // One write after the other, so the last one stands.
    this.chain = this.chain
      .then(async () => {
        if (await this.locked) await tx('readwrite', (m, e, outbox) => (prompts.length ? outbox.put({ key, page: this.page, at: Date.now(), prompts }) : outbox.delete(key)))
      })
      .catch(() => {})
  }

  /** Queues `snap` of session `id`, whose host-confirmed window is behind its entry, to
   *  replace the entry (written even where the entry looks newer). */
  replace(id, snap) {
    this.replaced.add(id)
    this.written.delete(snap.nodes)
    this.save(id, snap)
  }

  /** Drops what is queued; the snapshots it held count as written. */
  forget() {
    for (const snap of this.queue.values()) this.written.add(snap.nodes)
    this.queue.clear()
    clearTimeout(this.timer)
    this.timer = 0
  }

  key(id) {
    return `${this.base}\n${id}`
  }

  /** The cached window of session `id` as far as its newest chunk (frozen, or null: none,
   *  another version, unreadable), the prompts of its outbox records whose pages are gone,
   *  taken over by this page (deleted in the same transaction, so no other page takes them
   *  too), and `more` (the older chunks to read, or null). */
  async read(id) {
    const key = this.key(id)
    try {
      const pages = await this.pages()
      return await tx('readwrite', async (meta, entries, outbox) => {
        const m = await done(meta.get(key))
        const e = valid(await done(entries.get(key)), key, m)
        // Least recently opened goes first: this open counts.
        if (e && m) meta.put({ ...m, openedAt: Date.now() })
        const prompts = []
        if (pages) {
          const old = Date.now() - OUTBOX_DAYS * 864e5
          const all = await done(outbox.getAll(IDBKeyRange.bound(`${key}\n`, `${key}\n\uffff`)))
          for (const r of all.sort((a, b) => a.at - b.at)) {
            if (r.page === this.page || pages.has(r.page)) continue
            outbox.delete(r.key)
            if (r.at > old && Array.isArray(r.prompts)) for (const p of r.prompts) if (typeof p?.id === 'string' && Array.isArray(p.content)) prompts.push(p)
          }
        }
        if (e && m.n === 1) this.wrote(id, m.w, e.nodes, 1)
        return [e && keptWindow(e, e.nodes, m.n === 1), prompts, e && m.from < m.n - 1 ? { m, e } : null]
      })
    } catch {
      return [null, [], null]
    }
  }

  /** The whole kept window of an entry `read` gave in part (its older chunks read in one
   *  transaction), or null when they are not all there or another write replaced them. */
  async older(id, { m, e }) {
    const key = this.key(id)
    try {
      return await tx('readonly', async (meta, entries) => {
        const now = await done(meta.get(key))
        const all = await done(entries.getAll(IDBKeyRange.bound(chunkKey(key, m.from), chunkKey(key, m.n - 2))))
        if (now?.w !== m.w || all.length !== m.n - 1 - m.from || !all.every((c) => nodesOk(c.nodes))) return null
        const nodes = all.flatMap((c) => c.nodes).concat(e.nodes)
        if (!m.from) this.wrote(id, m.w, nodes, m.n)
        return keptWindow(e, nodes, !m.from)
      })
    } catch {
      return null
    }
  }

  /** Queues `snap` (an open, host-confirmed snapshot of session `id`) to be written with the
   *  next batch: the latest one of each session is what is written. */
  save(id, snap) {
    if (typeof indexedDB === 'undefined' || snap.openState !== 'open' || snap.cached || snap.tailSeq < 0) return
    if (this.written.has(snap.nodes)) return
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
    for (const [, snap] of batch) this.written.add(snap.nodes)
    try {
      for (const [id, s] of batch) await this.write(id, s)
      await tx('readwrite', async (meta, entries) => {
        // Least recently opened first, until the whole cache is within its bound.
        const all = (await done(meta.getAll())).sort((a, b) => a.openedAt - b.openedAt)
        let total = sum(all.map((m) => m.bytes))
        for (const m of all) {
          if (total <= this.maxBytes) break
          total -= m.bytes || 0
          meta.delete(m.key)
          entries.delete(m.key)
          entries.delete(chunks(m.key))
        }
      })
    } catch {
      // Storage refused (quota, private mode, a closing database): the cache is only a head
      // start, so the write is dropped, never reported.
    }
  }

  /** Remembers what the stored entry of session `id` holds (written by this page or read
   *  whole): the first `n` of `nodes` in `count` chunks under write `w`. Nodes the page lends
   *  from it are the same objects, so the next write puts only the chunks that changed. */
  wrote(id, w, nodes, count, n = nodes.length, from = 0) {
    for (let i = from; i < n; i++) this.kept.add(nodes[i])
    const seqs = []
    for (let i = 0; i < count; i++) seqs.push(nodes[i * CHUNK]?.seq)
    this.last.set(id, { w, n, count, seqs })
  }

  /** Writes snapshot `s` of session `id`: the entry (its newest chunk, seqs and title) and the
   *  older chunks that changed since this page's last write, in one transaction; where this
   *  page did not write the stored entry last (or its first write is not all in), the older
   *  chunks follow newest first, one transaction each, while no other write replaces them. */
  async write(id, s) {
    const key = this.key(id)
    // Without the echoes: the outbox keeps those prompts (and a reload makes them anew).
    const nodes = s.nodes
    let n = nodes.length
    while (n > 0 && nodes[n - 1].seq === -1) n--
    const count = Math.max(1, Math.ceil(n / CHUNK))
    const chunk = (i) => nodes.slice(i * CHUNK, Math.min(n, (i + 1) * CHUNK))
    await this.reading.get(id)
    const last = this.last.get(id)
    // The first node that is not what this page wrote last: a new object, or in a chunk that
    // no longer starts where it did (a node came or went before it).
    let d = 0
    if (last) while (d < Math.min(n, last.n) && this.kept.has(nodes[d]) && (d % CHUNK || nodes[d].seq === last.seqs[d / CHUNK])) d++
    const w = Math.random()
    let mine = false
    const wrote = await tx('readwrite', async (meta, entries) => {
      const m = await done(meta.get(key))
      // Another tab's longer view of the same log stays; a replaced log's does not (asked
      // here, in the transaction: a cache read that ran before it has said so by now).
      if (m && m.v === VERSION && m.tailSeq > s.tailSeq && !this.replaced.delete(id)) return false
      this.replaced.delete(id)
      mine = !!last && m?.v === VERSION && m.w === last.w && m.from === 0 && m.n === last.count
      const sizes = mine ? m.sizes.slice(0, count) : []
      if (mine) {
        // From the first chunk that changed, or the old newest one (kept in the entry until
        // now, so never stored as a chunk).
        for (let i = Math.min(Math.floor(d / CHUNK), last.count - 1); i < count - 1; i++) {
          const c = chunk(i)
          entries.put({ key: chunkKey(key, i), nodes: c })
          sizes[i] = size(c)
        }
        // Older chunks past the new count (the window got shorter) go.
        if (count < m.n) entries.delete(chunks(key, count - 1))
      } else {
        entries.delete(chunks(key))
      }
      const head = chunk(count - 1)
      entries.put({ v: VERSION, key, nodes: head, baseSeq: s.baseSeq, tailSeq: s.tailSeq, title: s.title })
      sizes[count - 1] = size(head)
      meta.put({ v: VERSION, key, bytes: sum(sizes), tailSeq: s.tailSeq, openedAt: m?.openedAt ?? Date.now(), w, n: count, from: mine ? 0 : count - 1, sizes })
      return true
    })
    if (!wrote) return
    this.wrote(id, w, nodes, count, n, mine ? d : 0)
    if (mine) return
    for (let i = count - 2; i >= 0; i--) {
      const c = chunk(i)
      const on = await tx('readwrite', async (meta, entries) => {
        const m = await done(meta.get(key))
        if (m?.w !== w) return false
        entries.put({ key: chunkKey(key, i), nodes: c })
        m.sizes[i] = size(c)
        m.bytes = sum(m.sizes)
        m.from = i
        meta.put(m)
        return true
      })
      // Another write replaced this one: it goes on from there.
      if (!on) return this.last.delete(id)
    }
  }

  /** Writes what is queued, drops this page's outbox records and stops listening for the
   *  page going away. */
  close() {
    this.closed = true
    if (typeof removeEventListener === 'function') removeEventListener('pagehide', this.flush)
    live.delete(this)
    // A closed client's prompts resolved `cancelled` (docs/API.md): its outbox records go
    // with it, then its page lock.
    this.chain
      .then(() => tx('readwrite', async (m, e, outbox) => {
        for (const r of await done(outbox.getAll())) if (r.page === this.page) outbox.delete(r.key)
      }))
      .catch(() => {})
      .then(() => this.unlock?.())
    return this.flush()
  }
}

// ---- the store hook: the wasm calls it for every changed session it holds ----

/** Takes over the store hook of a `HostClient` with `options.cache` (index.js hands the wasm
 *  `__store`, which calls `kept.f` once this module is in, and holds the sessions that changed
 *  before it in `kept.w`): `kept.c` is the client's cache (none without IndexedDB). */
export function attach(kept, options) {
  const w = kept.w
  kept.w = null
  kept.f = () => {}
  if (kept.gone || typeof indexedDB === 'undefined') return
  const base = String(options.baseUrl ?? location.origin).replace(/\/+$/, '')
  // `true` (or any truthy value that is not an object) has no `maxBytes`: the default.
  const c = (kept.c = new Cache(base, options.cache.maxBytes ?? MAX_BYTES))
  kept.f = (s) => changed(c, s)
  for (const s of w) changed(c, s)
}

// What the hook keeps per Session object: whether this open read the cache, the entry it
// painted, the echoes last written to the page's outbox record.
const state = new WeakMap()

/** A session of `cache` changed (called by the wasm before its listeners run). */
function changed(cache, s) {
  // A collected `Session` (undefined) or a released one (no snapshot): nothing to keep.
  const w = cache.closed || s?.getSnapshot()
  if (!w?.nodes) return
  let st = state.get(s)
  if (!st) state.set(s, (st = { asked: false, entry: null, echoes: [] }))
  if (w.cached) {
    // Painted: the host's window is not in yet.
  } else if (w.openState === 'loading') {
    // Once per open: the read, then (if it comes first) the paint.
    if (!st.asked) opened(cache, s, st)
  } else {
    st.asked = false
    const e = st.entry
    st.entry = null
    if (e && w.openState === 'open') {
      if (w.tailSeq < e.tailSeq) cache.replace(s.sessionId, w)
      // Confirmed: nodes equal to cached ones keep the cached objects from now on (lent
      // before the listeners read this snapshot).
      const byId = new Map(e.nodes.map((n) => [n.id, n]))
      let kept = 0
      const nodes = w.nodes.map((n) => {
        const c = byId.get(n.id)
        return c && same(c, n) && ++kept ? c : n
      })
      if (kept) s.__cache(Object.freeze(nodes))
    }
    if (w.openState === 'open') cache.save(s.sessionId, s.getSnapshot())
  }
  cache.outbox(s, st, s.getSnapshot())
}

// The host's tail page is asked for already: the cache (and the outbox an earlier page left)
// is read meanwhile, and the window shown if it is in first.
function opened(cache, s, st) {
  st.asked = true
  const id = s.sessionId
  const run = cache
    .read(id)
    .then(([entry, prompts, more]) => {
      // Prompts an earlier page of this app made and could not deliver: sent by this one,
      // under their ids (the session looks the host's log up first: never twice).
      for (const p of prompts) {
        try {
          s.prompt(p.content, p.mode === 'steer' ? 'steer' : 'queue', p.id)
        } catch {
          // A record this page cannot read as a prompt (another version, tampered): dropped.
        }
      }
      const now = s.getSnapshot()
      if (entry && now.openState === 'loading') {
        paint(s, st, entry)
        // The older chunks, then the whole kept window (unless the host answered meanwhile).
        if (more) cache.older(id, more).then((all) => all && st.entry === entry && s.getSnapshot().cached && paint(s, st, all))
      } else if (entry && now.openState === 'open' && now.tailSeq < entry.tailSeq) {
        // The host answered first, with a shorter log than the cached one: it was replaced.
        cache.replace(id, now)
      }
    })
    .catch(() => {})
    .then(() => cache.reading.get(id) === run && cache.reading.delete(id))
  cache.reading.set(id, run)
}

// The snapshot while the host's window is not in: the kept window's nodes (its newest chunk
// first, then all of it), then the session's own (only prompts made meanwhile: no window is
// in yet).
function paint(s, st, entry) {
  st.entry = entry
  s.__cache((own) =>
    Object.freeze({ ...own, openState: 'open', baseSeq: entry.baseSeq, tailSeq: entry.tailSeq, nodes: Object.freeze(entry.nodes.concat(own.nodes)), title: own.title ?? entry.title, cached: true }),
  )
}
