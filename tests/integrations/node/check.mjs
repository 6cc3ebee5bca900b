// A plain Node program as a user writes it (Node 20: SSE under 'auto'; Node 22+, or Node 20
// with --experimental-websocket: its global WebSocket), run against the reference host:
// create a session, prompt, read the reply.
// Also proves the server-render contract: nothing starts before the first subscribe or
// operation, and the first frames equal the module's own. Usage: node check.mjs HOST_URL
import assert from 'node:assert/strict'
import init, { HostClient } from 'agent-session'

const baseUrl = process.argv[2]
await init()

const host = new HostClient({ baseUrl })
const before = host.getSnapshot()
const coldBefore = host.session('never-opened').getSnapshot()
assert.equal(host.diagnostics().inflightRequests, 0, 'a client that was only read must not start')

// A client made where there is a DOM starts at once: its first frame is the module's own.
globalThis.document = {}
const eager = new HostClient({ baseUrl, transport: 'sse' })
delete globalThis.document
assert.deepEqual(eager.getSnapshot(), before, 'the lazy first frame equals the module\'s')
assert.deepEqual(eager.getSessions(), host.getSessions())
eager.close()

const created = await host.createSession()
assert.ok(created.ok, `createSession: ${JSON.stringify(created)}`)
// The live module's first frames: what the lazy client showed must be the same.
assert.deepEqual(host.session('never-opened').getSnapshot(), coldBefore)
assert.deepEqual(Object.keys(before), Object.keys(host.getSnapshot()))

const session = host.session(created.value.sessionId)
await session.open()
const replied = new Promise((resolve) => {
  const stop = session.subscribe(() => {
    const snap = session.getSnapshot()
    const reply = snap.nodes.find((n) => n.type === 'assistant')
    if (reply && !snap.running) {
      stop()
      resolve(reply.content.map((b) => b.text).join(''))
    }
  })
})
const sent = await session.prompt([{ type: 'text', text: 'hi from node' }])
assert.ok(sent.ok, `prompt: ${JSON.stringify(sent)}`)
const reply = await replied
assert.match(reply, /You asked: "hi from node"/)
const conn = host.getSnapshot()
assert.equal(conn.state, 'open')
const expected = typeof WebSocket === 'function' ? 'websocket' : 'sse'
assert.equal(conn.transport, expected, `transport under 'auto' on Node ${process.version}`)

// 'websocket' where Node has no WebSocket: a clear error, not endless retries.
if (typeof WebSocket !== 'function') {
  assert.throws(() => new HostClient({ baseUrl, transport: 'websocket' }), (e) => e.code === 'bad-argument' && /WebSocket/.test(e.message))
}
host.close()
console.log(`node ${process.version}${typeof WebSocket === 'function' ? ' with a global WebSocket' : ''}: open over ${conn.transport}, reply "${reply}"`)
