// The WebAssembly shell's own JS: the fetch I/O (bound in src/wasm/io/transport.rs) and the
// frozen-value builders of the snapshot export (bound in src/wasm/js.rs).
//
// The I/O is JS because awaiting promises is what JS does natively: a Rust async runtime for
// the same two loops was ~1 KB of the gzipped package. Nothing here decides anything: every
// outcome goes to the Rust callback as it is, and the sans-IO core reads it.
//
// A request starts one microtask later (`await null`): the shell starts I/O after it has
// settled the operation promises of the same step, so an `await` on an operation resumes
// before the requests it caused begin.

function init(body, token, signal) {
  const headers = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  else headers.accept = 'text/event-stream'
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  return { method: body === undefined ? 'GET' : 'POST', body, headers, signal, cache: 'no-store' }
}

// A readable message from a thrown value.
export function describe(e) {
  const m = e?.message
  return typeof e == 'string' ? e : typeof m != 'string' ? 'unknown error' : typeof e.name == 'string' ? `${e.name}: ${m}` : m
}

// One request: a unary POST of `body`, or (`body` undefined) the GET of an SSE stream. Its
// body goes to `feed` as it arrives, so a history page is read while it downloads (over a
// network, the parse then overlaps the transfer a plain `JSON.parse` client waits for):
// `feed(0)` once a 2xx answer came, `feed(1, chunk)` for every chunk, then once
// `feed(2, status, why)`: status 0 and no `why` when the body ended, a non-2xx status, or
// `why` for a failure (abort, network, no body on a stream). `feed` returns false once the
// core no longer wants the body: reading stops there. A call's deadline and its body bound
// are the core's: it aborts through `ctrl` (then `feed` is told of the abort, and ignores it).
export async function request(url, body, token, ctrl, feed) {
  await null
  let reader
  try {
    const res = await fetch(url, init(body, token, ctrl.signal))
    if (!res.ok) return feed(2, res.status)
    if (!res.body && body === undefined) return feed(2, 0, 'no body')
    reader = res.body?.getReader()
    for (let c, wanted = feed(0); wanted; wanted = feed(1, c.value)) {
      if (!reader || (c = await reader.read()).done) return feed(2, 0)
    }
  } catch (e) {
    feed(2, 0, describe(e))
  }
  // Nobody waits on the cancel: it rejects when the body was already aborted.
  reader?.cancel().catch(() => {})
}

// `f` once `signal` aborts: at once if it has (a `host.call` given an aborted signal).
export const onAbort = (signal, f) => (signal.aborted ? f() : signal.addEventListener('abort', f))

// `for…in` over arrays too: an index loop for them was 10-20 ms faster on a 100,000-node
// window's export, and 20 B more of the initial load.
function deepFreeze(v) {
  if (v && typeof v == 'object') {
    for (const k in v) deepFreeze(v[k])
    Object.freeze(v)
  }
  return v
}

// `JSON.parse` builds the value (faster than any walk from Rust); one walk freezes it.
export function parseFrozen(t) {
  return deepFreeze(JSON.parse(t))
}

// The arrays `parts` joined, frozen: one copy of each (splicing each part onto the parts before
// copied those again for every part, and a frozen array's copy is the engine's slow one).
export function joinFrozen(parts) {
  return Object.freeze([].concat(...parts))
}

// `old[..start] ++ middle ++ old[end..]`, frozen, in one call. A node of `middle` that
// replaces an echo of `old[start..end]` (its `clientId` is the echo's id) keeps the echo's
// `content` object when equal: what the UI drew of the message does not change.
export function spliceFrozen(old, start, end, middle) {
  for (let i = start; i < end; i++) {
    const e = old[i]
    if (e.seq === -1) middle = middle.map((n) => (n.clientId === e.id && JSON.stringify(e.content) === JSON.stringify(n.content) ? Object.freeze({ ...n, content: e.content }) : n))
  }
  if (start === 0 && end === old.length) return Object.freeze(middle)
  return Object.freeze(old.slice(0, start).concat(middle, old.slice(end)))
}
