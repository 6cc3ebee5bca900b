// Every tab of an origin shares one host connection (docs/API.md "Many tabs"). Many pages of
// one browser context load a bare page that imports the package entry (no UI), against the
// reference host, whose `--faults` status counts the downlinks it holds open. Checked: 8
// tabs hold exactly 1 mux and 1 host downlink and all are live; the leader closed 20 times
// in a row (a replacement tab opened each time) and once crashed: every remaining tab keeps
// the host's exact window and prompts from any tab are answered; without Web Locks and
// BroadcastChannel, and with `share: false`, each tab connects alone. Printed: the host's
// downlinks, history calls, and the handover time from the leader's close to the first
// frame in every remaining tab (median and worst).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { copyFileSync, cpSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, admin, cleanup, killHost, startHost, tempDir } from '../tests/support/host.mjs'
import { launch } from '../tests/support/browser.mjs'
import { guardContext } from '../tests/support/guard.mjs'

const TABS = 8
const log = (m) => console.log(`[share] ${m}`)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

const PAGE = `<!doctype html><meta charset="utf-8"><title>share</title><link rel="icon" href="data:,">
<script type="module">
import init, { HostClient } from './index.js'
await init()
const q = new URLSearchParams(location.search)
// Sharing is the default: the page passes nothing unless told \`share=off\`.
const host = new HostClient({ baseUrl: location.origin, ...(q.get('share') === 'off' ? { share: false } : {}) })
const s = host.session(q.get('s'))
s.subscribe(() => {})
window.__t = { host, s, opened: s.open() }
</script>`

async function until(what, f, ms = 10_000) {
  const t0 = Date.now()
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms: ${what}`)
    await sleep(20)
  }
}

async function setup() {
  const dir = tempDir()
  const www = join(dir, 'www')
  cpSync(join(ROOT, 'pkg'), join(www, 'pkg'), { recursive: true })
  for (const f of ['index.js', 'cache.js', 'share.js', 'store.js']) copyFileSync(join(ROOT, f), join(www, f))
  writeFileSync(join(www, 'share.html'), PAGE)
  const host = await startHost({ db: join(dir, 'host.sqlite'), staticDir: www, chunkDelayMs: 5, faults: true })
  const { sessionId } = (await admin(host.url, { command: 'seed', events: 20, messageEvery: 5 })).results[0]
  const browser = await launch()
  const env = { dir, host, sessionId, browser, history: 0 }
  env.newContext = async (init) => {
    const context = await browser.newContext()
    if (init) await context.addInitScript(init)
    const guard = await guardContext(context)
    context.on('request', (r) => r.url().endsWith('/api/session.history') && env.history++)
    return { context, guard }
  }
  return env
}

async function teardown(env) {
  await env?.browser?.close().catch(() => {})
  await killHost(env?.host)
  if (env?.dir) cleanup(env.dir)
}

const downlinks = async (env) => (await admin(env.host.url, { command: 'status' })).downlinks

async function openTab(env, context, query = '') {
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  await page.goto(`${env.host.url}/share.html?s=${encodeURIComponent(env.sessionId)}${query}`)
  await page.waitForFunction(() => window.__t && window.__t.host.getSnapshot().state === 'open')
  await page.evaluate(() => window.__t.opened)
  return page
}

/** The host's last seq of the session (its tail page). */
async function hostTail(env) {
  const r = await fetch(`${env.host.url}/api/session.history`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'client-request', rpcId: 'e2e-h', method: 'session.history', payload: { sessionId: env.sessionId } }),
  }).then((x) => x.json())
  const events = r.result.value.events
  return events.at(-1).event.seq
}

const view = (page) =>
  page.evaluate(() => {
    const snap = window.__t.s.getSnapshot()
    // `clientId` says which client sent a message: each tab's own, so it is left out.
    const nodes = snap.nodes.map((n) => JSON.stringify(n, (k, v) => (k === 'clientId' ? undefined : v)))
    return { tailSeq: snap.tailSeq, running: snap.running, state: window.__t.host.getSnapshot().state, nodes }
  })

/** Every tab shows the host's tail, idle, and the same nodes as a fresh unshared client. */
async function exactWindows(env, pages, reference) {
  const tail = await hostTail(env)
  await until(`every tab at the host's tail ${tail}`, async () => {
    const vs = await Promise.all(pages.map(view))
    return vs.every((v) => v.tailSeq === tail && !v.running && v.state === 'open')
  })
  const ref = await openTab(env, reference, '&share=off')
  await until('the reference at the tail', async () => (await view(ref)).tailSeq === tail)
  const want = (await view(ref)).nodes
  await ref.close()
  // The reference holds the tail page; a tab that followed the log live may hold more before it.
  for (const [i, p] of pages.entries()) {
    const got = (await view(p)).nodes
    assert.ok(got.length >= want.length, `tab ${i + 1} holds the tail page`)
    assert.deepEqual(got.slice(got.length - want.length), want, `tab ${i + 1}'s nodes are the host's`)
  }
  return tail
}

/** A prompt from `from`: answered, and seen by every tab. */
async function prompt(env, from, pages, text) {
  const before = await hostTail(env)
  const r = await from.evaluate((text) => window.__t.s.prompt([{ type: 'text', text }]), text)
  assert.equal(r.ok, true, JSON.stringify(r))
  await until('the answer reaches the host log', async () => (await hostTail(env)) > before + 2)
  await until('every tab sees the prompt and its answer', async () => {
    const vs = await Promise.all(pages.map(view))
    return vs.every((v) => v.nodes.some((n) => n.includes(text)) && !v.running)
  })
}

/** The WebSockets open in each tab: the leader's mux and host downlinks, none elsewhere (a
 *  socket the core had closed, given a real one by a new leader, stayed open before). */
async function oneLeadersSockets(pages) {
  const open = await Promise.all(
    pages.map((p) => p.evaluate(() => [window.__t.host.sharing().role, window.__ws.filter((w) => w.readyState < 2).map((w) => new URL(w.url).pathname).sort()])),
  )
  for (const [role, urls] of open) assert.deepEqual(urls, role === 'leader' ? ['/api/events.host', '/api/events.mux'] : [], `a ${role}'s open sockets`)
  assert.equal(open.filter(([role]) => role === 'leader').length, 1)
}

const role = (p) => p.evaluate(() => window.__t.host.sharing()?.role ?? null)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

describe('8 tabs share one host connection', () => {
  let env, ctx, ref
  const pages = []
  before(async () => {
    env = await setup()
    // Every WebSocket a tab opens, to count the ones still open (one leader's two, nothing else).
    ctx = await env.newContext(() => {
      const R = window.WebSocket
      window.__ws = []
      window.WebSocket = class extends R {
        constructor(u, p) {
          super(u, p)
          window.__ws.push(this)
        }
      }
    })
    ref = (await env.newContext()).context
  })
  after(() => teardown(env))

  it('8 tabs hold exactly 1 mux and 1 host downlink, and all are live', async () => {
    for (let i = 0; i < TABS; i++) pages.push(await openTab(env, ctx.context))
    const roles = await Promise.all(pages.map(role))
    assert.equal(roles.filter((r) => r === 'leader').length, 1, `one leader: ${roles}`)
    assert.equal(roles.filter((r) => r === 'follower').length, TABS - 1, `the others follow: ${roles}`)
    const d = await until('the host holds one downlink pair', async () => {
      const d = await downlinks(env)
      return d.mux === 1 && d.host === 1 && d
    })
    log(`${TABS} tabs: host downlinks ${JSON.stringify(d)} (unshared: ${TABS} of each); session.history calls ${env.history}`)
    await prompt(env, pages[TABS - 1], pages, 'Hello from the eighth tab.')
    await prompt(env, pages[2], pages, 'Hello from the third tab.')
    await exactWindows(env, pages, ref)
  })

  it('a burst of live events reaches a follower as fast as the leader', async () => {
    const from = await hostTail(env)
    const N = 5000
    const to = from + N
    // Each tab: from the burst's first event in its window to its last (wall clock).
    await Promise.all(
      pages.map((p) =>
        p.evaluate(({ from, to }) => {
          const s = window.__t.s
          window.__burst = new Promise((resolve) => {
            let first = 0
            const off = s.subscribe(() => {
              const t = s.getSnapshot().tailSeq
              if (!first && t > from) first = performance.now()
              if (t >= to) off(), resolve(performance.now() - first)
            })
          })
        }, { from, to }),
      ),
    )
    // And each tab's main-thread script time over the burst (CDP Performance metrics): the
    // leader reads the sockets and posts every frame; a follower reads the channel.
    const cdps = await Promise.all(pages.map((p) => ctx.context.newCDPSession(p)))
    await Promise.all(cdps.map((c) => c.send('Performance.enable')))
    const script = async () =>
      Promise.all(cdps.map(async (c) => (await c.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ScriptDuration').value * 1000))
    const before = await script()
    const written = (await admin(env.host.url, { command: 'status' })).framesWritten
    const t0 = Date.now()
    await admin(env.host.url, { command: 'seed', sessionId: env.sessionId, events: N, messageEvery: 5, broadcast: true })
    const hostMs = Date.now() - t0
    const ms = await Promise.all(pages.map((p) => p.evaluate(() => window.__burst)))
    const busy = (await script()).map((v, i) => v - before[i])
    const wrote = (await admin(env.host.url, { command: 'status' })).framesWritten - written
    await Promise.all(cdps.map((c) => c.detach()))
    const roles = await Promise.all(pages.map(role))
    const at = roles.indexOf('leader')
    const followers = ms.filter((_, i) => i !== at)
    const followersBusy = busy.filter((_, i) => i !== at)
    const ratio = median(followersBusy) / busy[at]
    log(
      `burst of ${N} live events (the host appended them in ${hostMs} ms): first to last event, leader ${ms[at].toFixed(0)} ms, ` +
        `followers median ${median(followers).toFixed(0)} ms, worst ${Math.max(...followers).toFixed(0)} ms; ` +
        `script time ${busy[at].toFixed(0)} ms in the leader, followers median ${median(followersBusy).toFixed(0)} ms, ` +
        `worst ${Math.max(...followersBusy).toFixed(0)} ms (${ratio.toFixed(2)}x the leader's); ` +
        `the host wrote ${wrote} frames for the ${pages.length} tabs`,
    )
    // One socket for all the tabs: each event is written once (and the list's own frames).
    assert.ok(wrote >= N && wrote < 2 * N, `the host wrote each event once, not once per tab (${wrote})`)
    assert.ok(Math.max(...followers) <= ms[at] * 1.3 + 100, 'every follower has the burst within 1.3x the time of the leader')
    await exactWindows(env, pages, ref)
  })

  it('the leader closed 20 times in a row: a follower takes over, every tab keeps an exact window', async () => {
    const times = []
    const history0 = env.history
    for (let round = 1; round <= 20; round++) {
      const roles = await Promise.all(pages.map(role))
      const i = roles.indexOf('leader')
      assert.ok(i >= 0, `round ${round}: a leader among ${roles}`)
      const [leader] = pages.splice(i, 1)
      const t0 = Date.now()
      await leader.close()
      const firsts = await until(`round ${round}: every tab has a frame from the new leader`, async () => {
        const s = await Promise.all(pages.map((p) => p.evaluate(() => window.__t.host.sharing())))
        return s.every((x) => x.firstFrameAt >= t0) && s.map((x) => x.firstFrameAt - t0)
      })
      times.push(Math.max(...firsts))
      if (round % 5 === 0) await prompt(env, pages[round % pages.length], pages, `Round ${round} prompt.`)
      pages.push(await openTab(env, ctx.context))
    }
    const d = await until('one downlink pair again', async () => {
      const d = await downlinks(env)
      return d.mux === 1 && d.host === 1 && d
    }).catch(async (e) => {
      const tabs = await Promise.all(pages.map((p) => p.evaluate(() => ({ ...window.__t.host.sharing(), transport: window.__t.host.getSnapshot().transport, sockets: window.__t.host.diagnostics().sockets }))))
      throw new Error(`${e.message}: host ${JSON.stringify(await downlinks(env))}, tabs ${JSON.stringify(tabs)}`)
    })
    await exactWindows(env, pages, ref)
    log(`handover after close (leader closed -> first frame in every remaining tab, worst tab per round), 20 rounds: median ${median(times)} ms, worst ${Math.max(...times)} ms; all: ${times.join(' ')}`)
    log(`session.history calls over 20 handovers of ${TABS} tabs: ${env.history - history0}; host downlinks after: ${JSON.stringify(d)}`)
    assert.ok(median(times) <= 250, `median handover ${median(times)} ms`)
    assert.ok(Math.max(...times) <= 1000, `worst handover ${Math.max(...times)} ms`)
  })

  it('the leader crashes: a follower takes over within 3 s, windows stay exact', async () => {
    const roles = await Promise.all(pages.map(role))
    const [leader] = pages.splice(roles.indexOf('leader'), 1)
    // Nothing was reported so far; a crashed renderer's own reports are not the pages' errors.
    ctx.guard.assertClean()
    ctx.guard.expect(/./)
    const cdp = await ctx.context.newCDPSession(leader)
    const t0 = Date.now()
    // Not awaited: the crashed target never answers.
    cdp.send('Page.crash').catch(() => {})
    const firsts = await until('every tab has a frame from the new leader', async () => {
      const s = await Promise.all(pages.map((p) => p.evaluate(() => window.__t.host.sharing())))
      return s.every((x) => x.firstFrameAt >= t0) && s.map((x) => x.firstFrameAt - t0)
    }, 10_000)
    log(`handover after a crash: worst tab ${Math.max(...firsts)} ms`)
    await oneLeadersSockets(pages)
    let d
    await until('the host holds one downlink pair', async () => {
      d = await downlinks(env)
      return d.mux === 1 && d.host === 1
    }).catch((e) => assert.fail(`${e.message}: ${JSON.stringify(d)}`))
    assert.ok(Math.max(...firsts) <= 3000)
    await prompt(env, pages[0], pages, 'After the crash.')
    await exactWindows(env, pages, ref)
    await Promise.race([leader.close().catch(() => {}), sleep(2000)])
  })

  it('a leader whose page is hidden hands the lock to a visible tab', async () => {
    const roles = await Promise.all(pages.map(role))
    const leader = pages[roles.indexOf('leader')]
    const t0 = Date.now()
    await leader.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' })
      document.dispatchEvent(new Event('visibilitychange'))
    })
    await until('a visible tab leads', async () => {
      const r = await Promise.all(pages.map(role))
      return r.filter((x) => x === 'leader').length === 1 && r[pages.indexOf(leader)] === 'follower'
    })
    log(`hidden leader -> a visible tab leads in ${Date.now() - t0} ms`)
    let d
    await until('one downlink pair', async () => {
      d = await downlinks(env)
      return d.mux === 1 && d.host === 1
    }).catch((e) => assert.fail(`${e.message}: ${JSON.stringify(d)}`))
    await oneLeadersSockets(pages)
    await prompt(env, leader, pages, 'From the hidden tab.')
    await exactWindows(env, pages, ref)
  })
})

describe('without Web Locks and BroadcastChannel, and with share: false, each tab connects alone', () => {
  let env
  before(async () => {
    env = await setup()
  })
  after(() => teardown(env))

  it('APIs removed: 3 tabs, 3 downlink pairs, all live', async () => {
    const { context, guard } = await env.newContext(() => {
      delete Navigator.prototype.locks
      delete globalThis.BroadcastChannel
    })
    const pages = []
    for (let i = 0; i < 3; i++) pages.push(await openTab(env, context))
    assert.deepEqual(await Promise.all(pages.map(role)), [null, null, null])
    const d = await until('3 pairs', async () => {
      const d = await downlinks(env)
      return d.mux === 3 && d.host === 3 && d
    })
    log(`fallback (no navigator.locks, no BroadcastChannel), 3 tabs: host downlinks ${JSON.stringify(d)}`)
    await prompt(env, pages[1], pages, 'Fallback prompt.')
    await context.close()
    guard.assertClean()
  })

  it('share: false: 3 tabs, 3 downlink pairs, all live', async () => {
    await until('no downlink left', async () => {
      const d = await downlinks(env)
      return d.mux === 0 && d.host === 0
    })
    const { context, guard } = await env.newContext()
    const pages = []
    for (let i = 0; i < 3; i++) pages.push(await openTab(env, context, '&share=off'))
    assert.deepEqual(await Promise.all(pages.map(role)), [null, null, null])
    const d = await until('3 pairs', async () => {
      const d = await downlinks(env)
      return d.mux === 3 && d.host === 3 && d
    })
    log(`share: false, 3 tabs: host downlinks ${JSON.stringify(d)}`)
    await prompt(env, pages[2], pages, 'Unshared prompt.')
    await context.close()
    guard.assertClean()
  })
})
