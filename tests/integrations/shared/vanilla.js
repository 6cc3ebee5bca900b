// The README's code without React or JSX, for the webpack 5 (no config) and plain-ESM apps:
// the same calls (init, HostClient, session, open, subscribe, prompt) driving the DOM.
import init, { HostClient } from 'agent-session'

await init()
const host = new HostClient({ baseUrl: 'http://127.0.0.1:7878' })

const $ = (id) => document.getElementById(id)
const text = (n) => (Array.isArray(n.content) ? n.content.map((b) => b.text ?? '').join('') : '')
host.subscribe(() => {
  $('conn').textContent = host.getSnapshot().state
})
$('conn').textContent = host.getSnapshot().state

$('create').addEventListener('click', async () => {
  const r = await host.createSession()
  if (!r.ok) return void ($('error').textContent = r.error.code)
  const session = host.session(r.value.sessionId)
  const render = () => {
    $('nodes').replaceChildren(
      ...session.getSnapshot().nodes.map((n) => Object.assign(document.createElement('p'), { className: `node ${n.type}`, textContent: `${n.type}: ${text(n)}` })),
    )
  }
  session.subscribe(render)
  await session.open()
  $('send').hidden = false
  $('send').onclick = () => session.prompt([{ type: 'text', text: 'hi' }])
})
