// agent-session's many-tabs layer (docs/API.md "Many tabs"), loaded on demand by index.js.
//
// Tabs of one origin whose HostClients have the same baseUrl and token elect one leader with
// a Web Lock held for the leader's whole life; the leader holds the two WebSocket downlinks
// and posts every socket event on a BroadcastChannel; every other tab's core reads those
// events through the objects this file hands the wasm in place of its WebSockets, as if
// from its own sockets (each tab keeps its own snapshots, identities and fences). The lock
// and the channel are named from the baseUrl and a SHA-256 of the token: the token never
// crosses. When the leader goes, every borrowed socket closes with code 0 (no WebSocket
// has it): the core starts its next generation at once and resyncs by its own window.
//
// Messages (each carries `f`, the sender's id): hello (who leads?), state {up, h} (the
// leader: which downlinks are open, hidden?), lead {h} (a new leader), bye (the leader
// goes), open {k}, m {k, d} (one socket message), close {k, c, r} (r: refused before it
// opened), join {k, n} / replay {to, n, r} (a socket opened late gets what a fresh mux open
// replays: titles, pending questions and approvals), vis (a visible follower), pass {to}.
const KIND = { 'events.mux': 'mux', 'events.host': 'host' }

/** Joins the tabs sharing `options`' host; `waiting` are sockets asked for before this loaded. */
export function join(options, waiting) {
  const id = Math.random().toString(36).slice(2) + Date.now().toString(36)
  const socks = new Set()
  const stats = { role: 'starting', handovers: 0, handoverAt: 0, firstFrameAt: 0 }
  let role = 'starting'
  let leader = null
  let leaderHidden = false
  let up = {}
  // The leader's open downlink per kind, and what a late mux open must replay.
  let live = {}
  let titles = new Map()
  let pending = new Map()
  let chan = null
  let name = null
  let ac = null
  let release = null
  let closed = false
  let paused = false
  let passing = false
  let fresh = false
  const hidden = () => globalThis.document?.visibilityState === 'hidden'
  const post = (m) => {
    m.f = id
    try {
      chan?.postMessage(m)
    } catch {}
  }

  const emit = (s, ev) => {
    if (s.st === 'gone') return
    if (ev.type === 'open') s.st = 'open'
    if (ev.type === 'close' || ev.type === 'error') {
      s.st = 'gone'
      socks.delete(s)
    }
    if (ev.type === 'message' && fresh) {
      fresh = false
      stats.firstFrameAt = Date.now()
    }
    s['on' + ev.type]?.(ev)
  }
  // A borrowed socket of a leader that went: the core reconnects at once.
  const handOver = (s) => {
    stats.handovers++
    stats.handoverAt = Date.now()
    fresh = true
    emit(s, { type: 'close', code: 0 })
  }

  // The leader: a real WebSocket behind the socket the core holds.
  const real = (s) => {
    // At most one real socket behind `s`: one still open from an earlier lead would stay open
    // on the host, unseen.
    unreal(s, 1000, true)
    s.st = 'wait'
    const ws = (s.ws = new WebSocket(s.u))
    ws.binaryType = 'arraybuffer'
    ws.onopen = (e) => {
      live[s.k] = s
      if (s.k === 'mux') (titles = new Map()), (pending = new Map())
      post({ t: 'open', k: s.k })
      emit(s, e)
    }
    ws.onmessage = (e) => {
      if (s.k === 'mux') track(e.data)
      post({ t: 'm', k: s.k, d: e.data })
      emit(s, e)
    }
    ws.onclose = ws.onerror = (e) => {
      unreal(s, e.code ?? 1006)
      emit(s, e)
    }
  }
  // Closes the real socket behind `s`; the followers hear of it unless this tab no longer leads.
  const unreal = (s, code, quiet) => {
    const ws = s.ws
    if (!ws) return
    s.ws = null
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null
    ws.close()
    const opened = live[s.k] === s
    if (opened) live[s.k] = null
    if (!quiet) post({ t: 'close', k: s.k, c: code, r: !opened })
  }
  // The frames a fresh mux open replays, as this leader last saw them.
  const track = (d) => {
    if (typeof d !== 'string' || !/session\/title|question\/|approval\//.test(d.slice(0, 400))) return
    let o
    try {
      o = JSON.parse(d)
    } catch {
      return
    }
    const p = o.payload || {}
    const m = o.method || p.type
    if (m === 'session/title') titles.set(p.sessionId, d)
    else if (m === 'question/requested') pending.set('q' + o.rpcId, d)
    else if (m === 'question/resolved') pending.delete('q' + p.questionRpcId)
    else if (m === 'approval/requested') pending.set('a' + p.sessionId + ' ' + p.approvalId, d)
    else if (m === 'approval/resolved') pending.delete('a' + p.sessionId + ' ' + p.approvalId)
  }

  const ask = (s) => {
    s.st = 'join'
    s.n = Math.random()
    post({ t: 'join', k: s.k, n: s.n })
  }
  const place = (s) => {
    socks.add(s)
    if (role === 'leader') real(s)
    else if (role === 'follower' && up[s.k]) ask(s)
  }
  const socket = (path, url) => {
    const s = { st: 'wait', k: KIND[path] ?? path, u: url }
    s.close = () => drop(s)
    place(s)
    return s
  }
  const drop = (s) => {
    s.st = 'gone'
    socks.delete(s)
    unreal(s, 1000)
  }
  // Each socket of this tab, skipping any a previous one's event made the core close: an event
  // runs the core, which may close sockets and ask for new ones (those are placed already).
  const each = (f) => {
    for (const s of [...socks]) if (socks.has(s)) f(s)
  }
  // Another tab leads now (or none): what it lent is handed over, what waits waits for it.
  const follow = (from, next) => {
    if (from !== leader) {
      leader = from
      each((s) => (s.st === 'open' ? handOver(s) : (s.st = 'wait')))
    }
    up = next || {}
    for (const s of socks) if (s.st === 'wait' && up[s.k]) ask(s)
  }

  const lead = () => {
    role = stats.role = 'leader'
    leader = id
    up = {}
    live = {}
    passing = false
    post({ t: 'lead', h: hidden() })
    each((s) => (s.st === 'open' ? handOver(s) : real(s)))
  }
  const demote = () => {
    role = stats.role = 'follower'
    leader = null
    up = {}
    each((s) => {
      unreal(s, 1000, true)
      if (s.st === 'open') handOver(s)
    })
    live = {}
    post({ t: 'hello' })
  }
  // Queues for the lock (or steals it from a hidden leader): held until pagehide or close.
  const queue = (steal) => {
    ac?.abort()
    const a = (ac = new AbortController())
    let held = false
    navigator.locks
      .request(name, steal ? { steal: true } : { signal: a.signal }, () => {
        if (closed || paused || a !== ac) return
        held = true
        lead()
        return new Promise((r) => (release = r))
      })
      .catch(() => {})
      .then(() => {
        if (!held) return
        release = null
        if (role === 'leader') demote()
        if (!closed && !paused && a === ac) queue(false)
      })
  }
  const leave = () => {
    if (role === 'leader') post({ t: 'bye' })
    const a = ac
    ac = null
    a?.abort()
    release?.()
  }

  const on = ({ t, f, k, ...m }) => {
    const mine = f === leader && role !== 'leader'
    switch (t) {
      case 'hello':
        if (role === 'leader') post({ t: 'state', up: { mux: !!live.mux, host: !!live.host }, h: hidden() })
        break
      case 'lead':
      case 'state':
        if (role === 'leader') break
        follow(f, m.up)
        leaderHidden = m.h
        if (leaderHidden && !hidden()) post({ t: 'vis' })
        break
      case 'bye':
        if (mine) follow(null)
        break
      case 'open':
        if (role === 'leader' || !(mine || leader === null)) break
        if (leader === null) follow(f)
        up[k] = true
        for (const s of socks) if (s.k === k && s.st !== 'open') (s.st = 'open'), emit(s, { type: 'open' })
        break
      case 'close':
        if (!mine) break
        up[k] = false
        for (const s of [...socks]) {
          if (s.k !== k) continue
          if (s.st === 'open' || (m.r && s.st === 'wait')) emit(s, { type: 'close', code: m.c })
          else if (s.st === 'join') s.st = 'wait'
        }
        break
      case 'm':
        if (!mine) break
        for (const s of [...socks]) if (s.k === k && s.st === 'open') emit(s, { type: 'message', data: m.d })
        break
      case 'join':
        if (role === 'leader' && live[k]) {
          post({ t: 'replay', to: f, n: m.n, r: k === 'mux' ? [...titles.values(), ...pending.values()] : [] })
        }
        break
      case 'replay':
        if (m.to !== id || !mine) break
        for (const s of [...socks]) {
          if (s.st !== 'join' || s.n !== m.n) continue
          s.st = 'open'
          emit(s, { type: 'open' })
          for (const d of m.r) emit(s, { type: 'message', data: d })
        }
        break
      case 'vis':
        if (role === 'leader' && hidden() && !passing) {
          passing = true
          post({ t: 'pass', to: f })
        }
        break
      case 'pass':
        if (m.to === id && role === 'follower' && !hidden()) queue(true)
        break
    }
  }

  for (const p of waiting) {
    if (p.gone) continue
    p.st = 'wait'
    p.k = KIND[p.path] ?? p.path
    p.u = p.url
    p.close = () => drop(p)
    socks.add(p)
  }
  // Where the browser cannot share (no page, Web Locks, BroadcastChannel or digest), this tab
  // connects alone: its sockets are its own, and `sharing()` says null.
  const g = globalThis
  const alone = !(g.document && g.navigator?.locks && g.BroadcastChannel && g.crypto?.subtle)
  const base = alone ? '' : new URL(options?.baseUrl ?? location.origin, location.href).href.replace(/\/+$/, '')
  const token = new TextEncoder().encode(options?.token ?? '')
  ;(alone ? Promise.reject() : crypto.subtle.digest('SHA-256', token)).then(
    (h) => {
      if (closed) return
      const hash = [...new Uint8Array(h)].slice(0, 16).map((b) => b.toString(16).padStart(2, '0')).join('')
      name = `agent-session ${base} ${hash}`
      chan = new BroadcastChannel(name)
      chan.onmessage = (e) => on(e.data)
      role = stats.role = 'follower'
      post({ t: 'hello' })
      queue(false)
      addEventListener('pagehide', () => {
        paused = true
        leave()
      })
      addEventListener('pageshow', (e) => {
        if (!e.persisted || !paused || closed) return
        paused = false
        post({ t: 'hello' })
        queue(false)
      })
      globalThis.document?.addEventListener('visibilitychange', () => {
        if (role === 'leader') {
          passing = false
          post({ t: 'state', up: { mux: !!live.mux, host: !!live.host }, h: hidden() })
        } else if (!hidden() && leaderHidden) post({ t: 'vis' })
      })
    },
    // No digest (not a secure context), or no sharing here: this tab connects alone.
    () => {
      if (!closed) lead()
    },
  )

  return {
    socket,
    state: () => (alone ? null : { ...stats }),
    close() {
      if (closed) return
      leave()
      closed = true
      chan?.close()
    },
  }
}
