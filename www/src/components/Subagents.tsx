import { createContext, useCallback, useContext, useEffect, useMemo, useState, useSyncExternalStore } from 'react'
import type { ConversationNode, HostClient, SubagentListEntry, SubagentStore } from 'agent-session'

type Child = Extract<SubagentListEntry, { kind: 'child' }>

/** Each `subagent` tool call's child (by `callId`), and how to open one. */
export const SubagentsContext = createContext<{ byCall: ReadonlyMap<string, Child>; open(id: string): void } | null>(null)

const none = () => () => {}
const noEntries: readonly SubagentListEntry[] = []

/** The session's direct children, kept live by the package (`host.subagents(sessionId)`), each
 *  matched to the tool call that spawned it: a continuable child's result names it (`started
 *  subagent <id>`); otherwise the n-th `subagent` call spawned the n-th child (the catalog is
 *  in creation order). */
export function useSubagents(host: HostClient, sessionId: string, nodes: readonly ConversationNode[], enabled: boolean) {
  const [store, setStore] = useState<SubagentStore | null>(null)
  useEffect(() => {
    if (!enabled) return
    let live = true
    void host.subagents(sessionId).then((s) => live && setStore(s))
    return () => {
      live = false
      setStore(null)
    }
  }, [host, sessionId, enabled])
  const subscribe = useCallback((l: () => void) => (store ? store.subscribe(l) : none()), [store])
  const entries = useSyncExternalStore(subscribe, () => store?.getSnapshot().items ?? noEntries)
  const children = useMemo(() => entries.filter((e): e is Child => e.kind === 'child'), [entries])
  return useMemo(() => {
    const byCall = new Map<string, Child>()
    const rest = [...children]
    for (const n of nodes) {
      if (n.type !== 'tool' || n.name !== 'subagent') continue
      const named = /started subagent ([\w.:-]+)/.exec(typeof n.result === 'string' ? n.result : JSON.stringify(n.result ?? ''))?.[1]
      const at = named ? rest.findIndex((c) => c.id === named) : 0
      const child = at >= 0 ? rest.splice(at, 1)[0] : undefined
      if (child) byCall.set(n.callId, child)
    }
    return byCall
  }, [children, nodes])
}

/** Under a `subagent` tool call: the child it spawned, openable as a session of its own. */
export function SubagentLink({ callId }: { callId: string }) {
  const ctx = useContext(SubagentsContext)
  const child = ctx?.byCall.get(callId)
  if (!ctx || !child) return null
  return (
    <div className="subagent-link" data-testid="subagent" data-session-id={child.id} data-mode={child.mode}>
      <span className="muted small">
        Subagent{child.label ? ` “${child.label}”` : ''} · {child.mode === 'continuable' ? 'continuable' : 'one-shot'} · {child.activity === 'running' ? 'running' : 'done'}
      </span>
      <button className="link small" data-testid="subagent-open" onClick={() => ctx.open(child.id)}>
        Open
      </button>
    </div>
  )
}
