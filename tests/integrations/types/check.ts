// Type-checks a use of every entry point (tsc --noEmit, strict, skipLibCheck off, lib
// ES2022 + DOM: no ESNext), once per module resolution (tsconfig.bundler.json, tsconfig.node16.json, tsconfig.nodenext.json).
import init, { HostClient, type ConnectionSnapshot, type ConversationNode, type Session } from 'agent-session'
import { useConnection, useSession } from 'agent-session/react'
import { useSession as useSessionRef } from 'agent-session/vue'
import { sessionStore } from 'agent-session/svelte'

await init()
const host = new HostClient({ baseUrl: 'http://127.0.0.1:7878', transport: 'auto' })
const session: Session = host.session('s')
const state: ConnectionSnapshot['state'] = host.getSnapshot().state
host[Symbol.dispose]()

export function Hooks(): number {
  const nodes: readonly ConversationNode[] = useSession(session, (s) => s.nodes)
  return useConnection(host).generation + nodes.length
}
const count: number = useSessionRef(session, (s) => s.nodes.length).value
const unsubscribe = sessionStore(session).subscribe((s) => s.openState)
unsubscribe()
export { count, state }
