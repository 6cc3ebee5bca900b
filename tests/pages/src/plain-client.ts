// A minimal plain-JS client of the same API, for the memory bench's comparison (not part of the
// demo UI): one `session.history` fetch, `JSON.parse`, the parsed events kept, and a fold into
// ordinary node objects (one node per message; streamed text-deltas concatenated into the
// pending partial, replaced by the message's own text when it lands), as a UI without the
// package would hold a conversation.

export interface PlainNode {
  id: string
  type: 'user' | 'assistant' | 'context'
  seq: number
  turn: number | null
  text: string
}

export interface PlainSession {
  sessionId: string
  /** The page's events as parsed (a client keeps them to re-fold and page). */
  events: HistoryItem[]
  nodes: PlainNode[]
  /** The streamed text since the last assistant message (the in-flight reply). */
  partial: string
  hasMore: boolean
}

type Block = { type: string; text?: string }
interface WireEvent {
  type: string
  seq: number
  time: number
  data: {
    turn?: number
    content?: Block[]
    chunk?: { type: string; text?: string }
  }
}
export interface HistoryItem {
  event: WireEvent
}
interface HistoryEnvelope {
  result?: { ok: boolean; value?: { events: HistoryItem[]; hasMore: boolean }; error?: unknown }
}

const textOf = (content: Block[] | undefined) =>
  (content ?? []).map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')

/** Folds a page of events into nodes (the seeded and scripted logs' message kinds). */
export function fold(events: HistoryItem[]): { nodes: PlainNode[]; partial: string } {
  const nodes: PlainNode[] = []
  let partial = ''
  for (const { event: e } of events) {
    const d = e.data ?? {}
    const node = (type: PlainNode['type'], text: string) =>
      nodes.push({ id: `${type}-${e.seq}`, type, seq: e.seq, turn: d.turn ?? null, text })
    switch (e.type) {
      case 'assistant/chunk':
        if (d.chunk?.type === 'text-delta' && typeof d.chunk.text === 'string') partial += d.chunk.text
        break
      case 'assistant/message':
        node('assistant', textOf(d.content) || partial)
        partial = ''
        break
      case 'user/message':
      case 'steering/message':
        node('user', textOf(d.content))
        break
      case 'context/message':
        node('context', textOf(d.content))
        break
      case 'turn/end':
        partial = ''
        break
    }
  }
  return { nodes, partial }
}

let rpc = 0

/** Fetches the session's tail page and folds it. */
export async function openPlain(sessionId: string, baseUrl = ''): Promise<PlainSession> {
  const body = JSON.stringify({ type: 'client-request', rpcId: `plain-${++rpc}`, method: 'session.history', payload: { sessionId } })
  const res = await fetch(`${baseUrl}/api/session.history`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    cache: 'no-store',
  })
  const v = JSON.parse(await res.text()) as HistoryEnvelope
  if (!v.result?.ok || !v.result.value) throw new Error(`history failed: ${JSON.stringify(v).slice(0, 300)}`)
  const { events, hasMore } = v.result.value
  return { sessionId, events, hasMore, ...fold(events) }
}
