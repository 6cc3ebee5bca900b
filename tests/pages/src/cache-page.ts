// Local-cache test page (driven by e2e/cache.test.mjs; not part of the demo UI): the built
// package, exactly as an app imports it, plus what the tests read from outside the package:
// the IndexedDB database the cache writes (`agent-session-cache`, read and written here with
// connections of the page's own) and a count of the transactions the package runs on it (to
// know that a read or a write the test cannot see has finished).
import init, { HostClient, Session } from 'agent-session'
import { CACHE_DB as DB } from './cache-db'

type Store = 'meta' | 'entries'
type Row = { key: string; [field: string]: unknown }

// The package's transactions on the cache database, in the order they started: whether each
// has ended (complete or abort). The page's own helpers call the unwrapped method, so they are
// not counted.
const realTransaction = IDBDatabase.prototype.transaction
const ended: boolean[] = []
IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<typeof realTransaction>) {
  const t = realTransaction.apply(this, args)
  if (this.name === DB) {
    const i = ended.push(false) - 1
    const end = () => (ended[i] = true)
    t.addEventListener('complete', end)
    t.addEventListener('abort', end)
  }
  return t
} as typeof realTransaction

// The keys the package put into the `entries` store, in order (the page's own transactions,
// made through the unwrapped method, are not counted).
const own = new WeakSet<IDBTransaction>()
const puts: string[] = []
const realPut = IDBObjectStore.prototype.put
IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<typeof realPut>) {
  if (this.name === 'entries' && this.transaction.db.name === DB && !own.has(this.transaction)) puts.push((args[0] as Row).key)
  return realPut.apply(this, args)
} as typeof realPut

const request = <T>(req: IDBRequest<T>) =>
  new Promise<T>((ok, fail) => {
    req.onsuccess = () => ok(req.result)
    req.onerror = () => fail(req.error)
  })

async function exists() {
  return (await indexedDB.databases()).some((d) => d.name === DB)
}

// A connection of the page's own, at the database's current version (the stores as the
// cache makes them, should it be first).
function connect() {
  const req = indexedDB.open(DB)
  req.onupgradeneeded = () => {
    for (const name of ['meta', 'entries', 'outbox']) req.result.createObjectStore(name, { keyPath: 'key' })
  }
  return request(req)
}

async function withStores<T>(mode: IDBTransactionMode, run: (meta: IDBObjectStore, entries: IDBObjectStore) => Promise<T>) {
  const db = await connect()
  try {
    const t = realTransaction.call(db, ['meta', 'entries'], mode)
    own.add(t)
    const ended = new Promise<void>((ok, fail) => {
      t.oncomplete = () => ok()
      t.onerror = t.onabort = () => fail(t.error)
    })
    const out = await run(t.objectStore('meta'), t.objectStore('entries'))
    await ended
    return out
  } finally {
    db.close()
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `pred` (sync or async) every 20 ms until it is truthy; throws `what` after `ms`. */
async function until<T>(pred: () => T | Promise<T>, what: string, ms = 15_000): Promise<T> {
  const deadline = performance.now() + ms
  for (;;) {
    const v = await pred()
    if (v) return v
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** Whether two JSON-shaped values are equal (key order aside). */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  const ra = a as Record<string, unknown>
  const rb = b as Record<string, unknown>
  return ka.every((k) => k in rb && equal(ra[k], rb[k]))
}

const cachePage = {
  HostClient,
  Session,
  /** Clients and values kept between `page.evaluate` calls. */
  kept: {} as Record<string, unknown>,
  until,
  sleep,
  equal,
  /** The cache's key of session `id` on this page's host. */
  key: (id: string) => `${location.origin}\n${id}`,
  /** Whether the cache database exists (without creating it). */
  exists,
  /** Both stores' rows (empty, `exists: false`, when there is no database). */
  async list(): Promise<{ exists: boolean; meta: Row[]; entries: Row[] }> {
    if (!(await exists())) return { exists: false, meta: [], entries: [] }
    return withStores('readonly', async (meta, entries) => ({
      exists: true,
      meta: (await request(meta.getAll())) as Row[],
      entries: (await request(entries.getAll())) as Row[],
    }))
  },
  /** The row of `key` in `store`, or null. */
  async get(store: Store, key: string): Promise<Row | null> {
    if (!(await exists())) return null
    return withStores('readonly', async (meta, entries) => ((await request((store === 'meta' ? meta : entries).get(key))) as Row) ?? null)
  },
  /** Writes `row` as it is (no check) into `store`. */
  async put(store: Store, row: Row) {
    await withStores('readwrite', async (meta, entries) => {
      ;(store === 'meta' ? meta : entries).put(row)
    })
  },
  /** Deletes the database (the cache's own connection closes on `versionchange`). */
  async remove() {
    await request(indexedDB.deleteDatabase(DB))
  },
  /** The package's transactions on the cache database so far. */
  activity: () => ({ started: ended.length, ended: ended.filter(Boolean).length }),
  /** A mark for `settledAfter`: how many transactions the package started so far. */
  mark: () => ended.length,
  /** The keys the package put into `entries` since the last call (and forgets them). */
  takePuts: () => puts.splice(0),
  /** Waits until the package started a transaction after `mark` and every one it started
   *  since has ended, then a turn more (the continuations of its promise run first). */
  async settledAfter(mark: number, what = 'a cache transaction') {
    await until(() => ended.length > mark && ended.slice(mark).every(Boolean), what)
    await sleep(30)
  },
  /** Waits until `host` is connected with nothing in flight and, for a client with the cache
   *  option, the package's cache module is in (the entry's `h.k.c`: the client's cache). */
  async ready(host: HostClient, cache = true) {
    const kept = () => (host as unknown as { h?: { k?: { c?: unknown } } }).h?.k?.c
    await until(
      () => (!cache || kept()) && host.getSnapshot().state === 'open' && host.diagnostics().inflightRequests === 0,
      'the client to connect',
    )
  },
  /** The snapshot of a fresh open of `id` by a client without the cache. */
  async fresh(id: string) {
    const h = new HostClient({ baseUrl: location.origin })
    try {
      const s = h.session(id)
      await s.open()
      return s.getSnapshot()
    } finally {
      h.close()
    }
  },
}

await init()
;(window as unknown as { cachePage: typeof cachePage }).cachePage = cachePage
document.getElementById('out')!.textContent = 'ready'
