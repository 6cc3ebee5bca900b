import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react'
import type { Session } from 'agent-session'
import { useSession } from 'agent-session/react'
import { contentText, interactionView, rec, str } from '../model'
import { remember } from '../titles'
import { Composer } from './Composer'
import { NodeRow, PartialRow, RunningCalls } from './Conversation'
import { InteractionPanel, ModeIndicator } from './Interaction'
import { PendingCards } from './PendingCards'
import { PlanChip } from './PlanChip'

export function SessionView({ session }: { session: Session }) {
  const snap = useSession(session)
  const scroller = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const anchor = useRef<number | null>(null)

  useEffect(() => {
    void session.open()
  }, [session])

  // Sidebar title: the first user message in the window (or the host's title if exposed).
  const title = useMemo(() => {
    const own = str(rec(snap)?.title)
    if (own) return own
    for (const n of snap.nodes) {
      const r = rec(n)
      if (r && (r.type === 'user' || r.kind === 'user')) return contentText(r.content).split('\n')[0]?.slice(0, 80) ?? ''
    }
    return ''
  }, [snap])
  useEffect(() => {
    if (title) remember(session.sessionId, { title })
  }, [title, session.sessionId])

  const interaction = useMemo(() => interactionView(snap), [snap])
  const [toolIds, planIds] = useMemo(() => {
    const tools = new Set<string>()
    const plans = new Set<string>()
    for (const n of snap.nodes) {
      const r = rec(n)
      const id = str(r?.callId)
      if (id) tools.add(id)
      const planId = str(rec(r?.plan)?.planId)
      if (planId) plans.add(planId)
    }
    return [tools, plans] as const
  }, [snap.nodes])

  const onScroll = () => {
    const el = scroller.current
    if (!el) return
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80
  }

  // Keep the view pinned to the bottom while streaming; keep it steady when older pages load.
  useLayoutEffect(() => {
    const el = scroller.current
    if (!el) return
    if (anchor.current !== null) {
      el.scrollTop = el.scrollHeight - anchor.current
      if (!snap.loadingOlder) anchor.current = null
    } else if (stick.current) {
      el.scrollTop = el.scrollHeight
    }
  }, [snap])

  const loadOlder = useCallback(() => {
    const el = scroller.current
    if (el) anchor.current = el.scrollHeight - el.scrollTop
    void session.loadOlder()
  }, [session])

  // No "typing" dots while the turn waits on the user (an approval, a question, or a structured
  // prompt the UI shows as a card).
  const awaitingUser = snap.pending.length > 0 || (interaction?.capabilities?.supportsStructuredUserInput === true && interaction.prompts.length > 0)
  const working = snap.running && !snap.partial && !awaitingUser
  return (
    <section className="session" data-testid="session-view" data-session-id={session.sessionId} data-open-state={snap.openState}>
      <header className="session-head">
        <div className="session-head-title">
          <h1>{title || 'New session'}</h1>
          <div className="session-sub muted small">
            {snap.running ? (
              <span className="status running" data-testid="status-running">
                <span className="dot running" /> Working
              </span>
            ) : (
              <span className="status" data-testid="status-idle">
                Idle
              </span>
            )}
            <ModeIndicator mode={interaction?.mode ?? null} />
          </div>
        </div>
        <PlanChip session={session} plan={snap.planMode} />
      </header>

      <div className="scroller" ref={scroller} onScroll={onScroll}>
        <div className="conversation" data-testid="conversation">
          {snap.hasMore ? (
            <div className="load-older">
              <button className="btn ghost small" data-testid="load-older" disabled={snap.loadingOlder} onClick={loadOlder}>
                {snap.loadingOlder ? 'Loading…' : 'Load older messages'}
              </button>
            </div>
          ) : null}
          {snap.openState === 'loading' && snap.nodes.length === 0 ? <div className="muted center pad">Loading conversation…</div> : null}
          {snap.openState === 'error' ? (
            <div className="card error-card" role="alert">
              <div>Could not open this session: {snap.openError?.message ?? 'unknown error'}</div>
              <button className="btn small" onClick={() => session.resync()}>
                Retry
              </button>
            </div>
          ) : null}
          {snap.openState === 'open' && snap.nodes.length === 0 && !snap.partial && !snap.running ? (
            <div className="empty-conversation muted">Send a message to start. Turn on plan mode to get a plan before any change.</div>
          ) : null}
          <div className="messages" data-testid="messages">
            {snap.nodes.map((n, i) => (
              <NodeRow key={str(rec(n)?.id) ?? i} node={n} index={i} />
            ))}
          </div>
          <RunningCalls calls={snap.runningCalls} shown={toolIds} />
          {snap.partial ? <PartialRow partial={snap.partial} /> : null}
          {working ? (
            <div className="working" data-testid="working">
              <span className="typing">
                <i />
                <i />
                <i />
              </span>
            </div>
          ) : null}
          {interaction ? <InteractionPanel session={session} view={interaction} planAvailable={snap.planMode !== null} planIdsInConversation={planIds} /> : null}
          <PendingCards session={session} pending={snap.pending} />
          {snap.lastAgentError ? (
            <div className="agent-error" role="alert">
              {snap.lastAgentError}
            </div>
          ) : null}
        </div>
      </div>

      <Composer session={session} running={snap.running} promptError={snap.promptError} disabled={snap.openState === 'error'} />
    </section>
  )
}
