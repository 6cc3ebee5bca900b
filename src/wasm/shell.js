// The WebAssembly shell's own JS: the fetch I/O (bound in src/wasm/io/transport.rs) and the
// frozen-value builders of the snapshot export (bound in src/wasm/js.rs).
//
// The I/O is JS because awaiting promises is what JS does natively: a Rust async runtime for
// the same two loops was ~1 KB of the gzipped package. Nothing here decides anything: every
// outcome goes to the Rust callback as it is, and the sans-IO core reads it.
//
// Both start one microtask later (`await null`): the shell starts I/O after it has settled
// the operation promises of the same step, so an `await` on an operation resumes before the
// requests it caused begin.

function init(method, body, token, signal, sse) {
  const headers = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (sse) headers.accept = 'text/event-stream'
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  return { method, body, headers, signal, cache: 'no-store' }
}

// All of a body stream's bytes (none without a body), as one Uint8Array; past `max` bytes
// the read stops and this throws a message naming the limit.
async function whole(body, max) {
  const chunks = []
  let n = 0
  const reader = body?.getReader()
  for (let c; reader && !(c = await reader.read()).done; n += c.value.length) {
    if (n + c.value.length > max) {
      reader.cancel().catch(() => {})
      throw `response body over the ${max}-byte limit (maxResponseBytes)`
    }
    chunks.push(c.value)
  }
  if (chunks.length === 1) return chunks[0]
  const bytes = new Uint8Array(n)
  n = 0
  for (const c of chunks) {
    bytes.set(c, n)
    n += c.length
  }
  return bytes
}

// A readable message from a thrown value.
export function describe(e) {
  if (typeof e === 'string') return e
  const name = e?.name
  const message = e?.message
  if (typeof message !== 'string') return 'unknown error'
  return typeof name === 'string' ? `${name}: ${message}` : message
}

// One unary POST. `done(status, bytes, error)` is called once: (0, Uint8Array, null) for a
// 2xx body, (status, null, null) for any other status, (0, null, why) for a failure (abort,
// network, a body over `max` bytes, or the `ms` timeout, which aborts through `ctrl`). The body is read from its
// stream: `arrayBuffer()` was measured 7 ms slower on a 15 MB body in Chromium, and a body
// that arrives as one chunk is then handed over as it is.
export async function unary(url, body, token, ms, max, ctrl, done) {
  await null
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    ctrl.abort()
  }, ms)
  let status = 0
  let bytes = null
  let why = null
  try {
    const res = await fetch(url, init('POST', body, token, ctrl.signal, false))
    if (!res.ok) status = res.status
    else bytes = await whole(res.body, max)
  } catch (e) {
    why = timedOut ? `timed out after ${Math.trunc(ms)} ms` : describe(e)
  }
  clearTimeout(timer)
  done(status, bytes, why)
}

// One SSE body. `feed(0)` once the host answered 2xx with a body, `feed(1, chunk)` for every
// chunk, then `feed(2, null, why)` once at the end (or the failure before it opened). `feed`
// returns false once the core no longer wants the stream: reading stops there.
export async function readSse(url, token, ctrl, feed) {
  await null
  let reader
  try {
    const res = await fetch(url, init('GET', undefined, token, ctrl.signal, true))
    if (!res.ok) return feed(2, null, `HTTP ${res.status}`)
    if (!res.body) return feed(2, null, 'no body')
    reader = res.body.getReader()
  } catch (e) {
    return feed(2, null, describe(e))
  }
  let wanted = feed(0)
  while (wanted) {
    let chunk
    try {
      chunk = await reader.read()
    } catch (e) {
      return feed(2, null, describe(e))
    }
    if (chunk.done) return feed(2, null, 'stream ended')
    wanted = feed(1, chunk.value)
  }
  // Nobody waits on the cancel: it rejects when the body was already aborted.
  reader.cancel().catch(() => {})
}

function deepFreeze(v) {
  if (typeof v !== 'object' || v === null) return v
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) deepFreeze(v[i])
  else for (const k in v) deepFreeze(v[k])
  return Object.freeze(v)
}

// `JSON.parse` builds the value (faster than any walk from Rust); one walk freezes it.
export function parseFrozen(t) {
  return deepFreeze(JSON.parse(t))
}

// `old[..start] ++ middle ++ old[end..]`, frozen, in one call.
export function spliceFrozen(old, start, end, middle) {
  if (start === 0 && end === old.length) return middle
  const a = old.slice(0, start)
  for (const x of middle) a.push(x)
  for (let i = end; i < old.length; i++) a.push(old[i])
  return Object.freeze(a)
}
