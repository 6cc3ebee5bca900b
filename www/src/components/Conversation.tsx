import { createContext, memo, useContext, useState } from 'react'
import type { Session } from 'agent-session'
import { nodeView, preview, rec, str, type NodeView } from '../model'
import { Markdown } from './Markdown'
import { AttachmentImage, ForkButton } from './Verbs'
import { SubagentLink } from './Subagents'

function ToolCard({ name, status, args, result, isError }: { name: string; status: string; args: unknown; result: unknown; isError: boolean }) {
  const [open, setOpen] = useState(false)
  const argText = args === undefined ? '' : preview(args, 4000)
  const summary = (() => {
    const a = rec(args)
    const first = a ? Object.values(a).find((v) => typeof v === 'string') : undefined
    return typeof first === 'string' ? first : ''
  })()
  const state = isError ? 'error' : status
  return (
    <div className={`tool-card ${state}`} data-testid="tool-card" data-status={state}>
      <button className="tool-head" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        <span className="tool-icon" aria-hidden>
          {status === 'running' ? <span className="mini-spinner" /> : isError ? '!' : status === 'interrupted' ? '×' : '✓'}
        </span>
        <span className="tool-name">{name}</span>
        <span className="tool-summary">{summary}</span>
        <span className="tool-state">{state === 'completed' ? 'done' : state}</span>
        <span className={`chev${open ? ' open' : ''}`} aria-hidden>
          ›
        </span>
      </button>
      {open ? (
        <div className="tool-body">
          {argText ? (
            <>
              <div className="tool-label">Input</div>
              <pre>{argText}</pre>
            </>
          ) : null}
          {result !== undefined && result !== null ? (
            <>
              <div className="tool-label">{isError ? 'Error' : 'Output'}</div>
              <pre>{preview(result, 8000)}</pre>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}

/** The session whose failed prompts the rows retry or discard. */
export const OutboxContext = createContext<Session | null>(null)

type Delivery = { state: string; clientId: string; error: string | null }

/** An echo's state: a quiet note while it waits or sends, Retry/Discard once refused. */
function DeliveryNote({ d }: { d: Delivery }) {
  const session = useContext(OutboxContext)
  if (d.state === 'sent') return null
  if (d.state !== 'failed') {
    return <div className="delivery-note">{d.state === 'waiting' ? 'Waiting for the connection…' : 'Sending…'}</div>
  }
  return (
    <div className="delivery-note failed" role="alert">
      Not sent{d.error ? `: ${d.error}` : ''}
      <button type="button" onClick={() => void session?.retry(d.clientId)}>Retry</button>
      <button type="button" onClick={() => void session?.discard(d.clientId)}>Discard</button>
    </div>
  )
}

function Row({ v, delivery }: { v: NodeView; delivery?: Delivery | null }) {
  switch (v.kind) {
    case 'user':
      return (
        <div className={`msg user${delivery ? ` echo ${delivery.state}` : ''}`} data-testid="msg-user">
          {v.steering ? <div className="msg-kicker">Steering</div> : null}
          <div className="bubble">
            {v.text}
            {v.images.length ? (
              <div className="msg-images">
                {v.images.map((i) => (
                  <AttachmentImage key={i.attachmentId} attachment={i} />
                ))}
              </div>
            ) : null}
          </div>
          {delivery ? <DeliveryNote d={delivery} /> : null}
        </div>
      )
    case 'assistant':
      return (
        <div className="msg assistant" data-testid="msg-assistant">
          <Markdown text={v.text} />
          {v.seq >= 0 ? <ForkButton seq={v.seq} /> : null}
        </div>
      )
    case 'context':
      return (
        <div className="context-note" data-testid="msg-context">
          {v.text}
        </div>
      )
    case 'tool':
      return (
        <>
          <ToolCard name={v.name} status={v.status} args={v.args} result={v.result} isError={v.isError} />
          {v.name === 'subagent' ? <SubagentLink callId={v.callId} /> : null}
        </>
      )
    case 'interrupted':
      return (
        <div className="msg assistant interrupted" data-testid="msg-interrupted">
          {v.text ? <Markdown text={v.text} /> : null}
          <div className="interrupted-tag">Stopped{v.reason && v.reason !== 'interrupted' ? ` (${v.reason})` : ''}</div>
        </div>
      )
    case 'plan-mode':
      return (
        <div className="divider" data-testid="plan-divider">
          <span>{v.active ? 'Plan mode on' : 'Plan mode off'}</span>
        </div>
      )
    case 'interaction':
      return (
        <div className="resolved-prompt" data-testid="resolved-prompt">
          <div className="msg-kicker">
            {v.title} · {v.outcome}
          </div>
          {v.lines.map((l, i) => (
            <div key={i}>{l}</div>
          ))}
        </div>
      )
    case 'proposed-plan':
      return (
        <div className="card plan-node" data-testid="plan-node">
          <div className="card-head">
            <span className="card-kicker">Proposed plan</span>
            {v.source === 'synthesized' ? <span className="tag subtle">derived</span> : null}
          </div>
          <Markdown text={v.markdown} />
        </div>
      )
    default:
      return null
  }
}

/** One row per node; memoized on the node object, whose identity the package keeps stable. */
export const NodeRow = memo(function NodeRow({ node, index }: { node: unknown; index: number }) {
  const n = rec(node)
  const state = str(n?.delivery)
  const delivery = state ? { state, clientId: str(n?.clientId) ?? '', error: str(rec(n?.error)?.message) ?? null } : null
  return <Row v={nodeView(node, index)} delivery={delivery} />
})

export function PartialRow({ partial }: { partial: unknown }) {
  const p = rec(partial)
  if (!p) return null
  const text = str(p.text) ?? ''
  const reasoning = str(p.reasoning) ?? ''
  return (
    <div className="msg assistant streaming" data-testid="msg-partial">
      {reasoning && !text ? <div className="reasoning">{reasoning}</div> : null}
      <Markdown text={text} streaming />
    </div>
  )
}

export function RunningCalls({ calls, shown }: { calls: readonly unknown[]; shown: Set<string> }) {
  return (
    <>
      {calls.map((c, i) => {
        const r = rec(c)
        if (!r) return null
        const id = str(r.callId) ?? String(i)
        if (shown.has(id)) return null
        return <ToolCard key={id} name={str(r.name) ?? 'tool'} status="running" args={undefined} result={undefined} isError={false} />
      })}
    </>
  )
}
