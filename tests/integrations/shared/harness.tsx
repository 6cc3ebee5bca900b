// Appended by scripts/integrations.mjs to the README's first code block (written as
// readme.tsx in each React app): the user-side pieces the block names (Banner, Node) and a
// page that creates a session and shows the block's Conversation for it.
import { useState } from 'react'
import type { ConversationNode } from 'agent-session'

function Banner({ retryAt }: { retryAt: number | null }) {
  return <p className="banner">not connected{retryAt === null ? '' : ' (retrying)'}</p>
}

function text(node: ConversationNode): string {
  const content = 'content' in node ? node.content : null
  return Array.isArray(content) ? content.map((b: { text?: unknown }) => (typeof b.text === 'string' ? b.text : '')).join('') : ''
}

function Node({ node }: { node: ConversationNode }) {
  return <p className={`node ${node.type}`}>{node.type}: {text(node)}</p>
}

export function App() {
  const conn = useConnection(host)
  const [id, setId] = useState<string | null>(null)
  const [error, setError] = useState('')
  const create = async () => {
    const r = await host.createSession()
    if (r.ok) setId(r.value.sessionId)
    else setError(r.error.code)
  }
  return (
    <main>
      <p id="conn">{conn.state}</p>
      <button id="create" onClick={() => void create()}>new session</button>
      {error && <p id="error">{error}</p>}
      {id && <Conversation id={id} />}
    </main>
  )
}
