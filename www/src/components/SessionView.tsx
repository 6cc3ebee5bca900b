import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { HostClient, Session } from 'agent-session'
import { useSession } from 'agent-session/react'
import { contentText, interactionView, rec, str } from '../model'
import { humanError } from '../errors'
import { Composer } from './Composer'
import { Examples, type Example } from './Examples'
import { NodeRow, OutboxContext, PartialRow, RunningCalls } from './Conversation'
import { InteractionPanel, ModeIndicator } from './Interaction'
import { PendingCards } from './PendingCards'
import { PlanChip } from './PlanChip'
import { ModelPicker } from './ModelPicker'
import { SubagentsContext, useSubagents } from './Subagents'
import { HostQueue, VerbsContext } from './Verbs'

/** A follow-up sent while a turn runs: shown as queued until its own turn starts. */
interface Queued {
  key: number
  text: string
  /** How many user messages with this text the window had when it was queued. */
  seen: number
}

function userTexts(nodes: readonly unknown[]): string[] {
  const out: string[] = []
  for (const n of nodes) {
    const r = rec(n)
    if (r && (r.type === 'user' || r.type === 'steering')) out.push(contentText(r.content))
  }
  return out
}

/** The model of the newest assistant message (its provenance), if the host names one. */
function lastModel(nodes: readonly unknown[]): string | null {
  for (let i = nodes.length - 1; i >= 0; i--) {
    const r = rec(nodes[i])
    if (r?.type !== 'assistant') continue
    const model = str(rec(r.provenance)?.model)
    if (model) return model
  }
  return null
}

// Terminal colour codes (an agent's stderr quoted in its error) are noise on a page.
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g

/** The session's agent error: its first sentence, the whole text behind a disclosure. */
function AgentError({ message }: { message: string }) {
  const text = message.replace(ANSI, '')
  const cut = text.length > 160 ? Math.max(text.lastIndexOf(' ', 160), 80) : -1
  return (
    <div className="agent-error" role="alert" data-testid="agent-error">
      <div className="agent-error-head">
        <strong>The agent stopped with an error.</strong> {cut > 0 ? `${text.slice(0, cut)}…` : text}
      </div>
      {cut > 0 ? (
        <details>
          <summary>Full message</summary>
          <pre>{text}</pre>
        </details>
      ) : null}
    </div>
  )
}

export function SessionView({
  host,
  onUpstream,
  onOpen,
  session,
  title: hostTitle,
  connGeneration,
  onFork,
}: {
  /** For the host's own methods (`host.call`): the model directory. */
  host: HostClient
  /** Told once the session shows the host speaks the 2026-08 wire (it lists commands). */
  onUpstream?(): void
  /** Opens another session (a subagent's child). */
  onOpen?(sessionId: string): void
  session: Session
  title: string | null
  connGeneration: number
  /** Forks this session at a seq (the 2026-08 host); the app selects the child. */
  onFork?(sessionId: string, atSeq: number): Promise<void>
}) {
  const snap = useSession(session)
  const scroller = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const anchor = useRef<number | null>(null)
  const [queued, setQueued] = useState<Queued[]>([])
  const [exampleError, setExampleError] = useState<string | null>(null)

  useEffect(() => {
    void session.open()
  }, [session])
  const speaks2026 = snap.commands !== null
  useEffect(() => {
    if (speaks2026) onUpstream?.()
  }, [speaks2026, onUpstream])
  const byCall = useSubagents(host, session.sessionId, snap.nodes, speaks2026 && snap.openState === 'open')
  const subagents = useMemo(() => ({ byCall, open: (id: string) => onOpen?.(id) }), [byCall, onOpen])

  // The host's title (live session list), else the snapshot's; never a guess from the window.
  const title = hostTitle ?? snap.title

  // A queued follow-up leaves the queue when its user message appears.
  const texts = useMemo(() => userTexts(snap.nodes), [snap.nodes])
  useEffect(() => {
    setQueued((q) => {
      const left = q.filter((x) => texts.filter((t) => t === x.text).length <= x.seen)
      return left.length === q.length ? q : left
    })
  }, [texts])
  const onQueued = useCallback(
    (text: string) => setQueued((q) => [...q, { key: Date.now() + Math.random(), text, seen: texts.filter((t) => t === text).length }]),
    [texts],
  )

  const startExample = useCallback(
    async (e: Example) => {
      setExampleError(null)
      if (e.plan) await session.setPlanMode(true)
      const r = await session.prompt([{ type: 'text', text: e.text }])
      if (!r.ok) setExampleError(humanError('send the example', r.error))
    },
    [session],
  )

  // Fork is offered where the host speaks the 2026-08 verbs (it lists commands).
  const canFork = snap.commands !== null && onFork !== undefined
  const verbs = useMemo(
    () => ({ session, fork: canFork ? (atSeq: number) => void onFork?.(session.sessionId, atSeq) : null }),
    [session, onFork, canFork],
  )
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

  const loadOlder = useCallback(() => {
    const el = scroller.current
    if (el) anchor.current = el.scrollHeight - el.scrollTop
    void session.loadOlder()
  }, [session])

  const onScroll = () => {
    const el = scroller.current
    if (!el) return
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80
    // Scrolling near the top loads the previous page (the button stays for keyboards).
    if (el.scrollTop < 120 && snap.hasMore && !snap.loadingOlder && snap.openState === 'open') loadOlder()
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

  // No "typing" dots while the turn waits on the user (an approval, a question, or a structured
  // prompt the UI shows as a card).
  const awaitingUser = snap.pending.length > 0 || (interaction?.capabilities?.supportsStructuredUserInput === true && interaction.prompts.length > 0)
  const working = snap.running && !snap.partial && !awaitingUser
  const model = useMemo(() => lastModel(snap.nodes), [snap.nodes])
  // `lastAgentError` stays until the next error: show it under the turn it ended, not under
  // the turns the user sent after it (a restarted agent answering them).
  const lastUser = useMemo(() => {
    for (let i = snap.nodes.length - 1; i >= 0; i--) {
      const r = rec(snap.nodes[i])
      if (r?.type === 'user' || r?.type === 'steering') return str(r.id) ?? String(i)
    }
    return null
  }, [snap.nodes])
  const errorSeen = useRef<{ message: string; lastUser: string | null } | null>(null)
  if (snap.lastAgentError && errorSeen.current?.message !== snap.lastAgentError) {
    errorSeen.current = { message: snap.lastAgentError, lastUser }
  }
  const agentError = snap.lastAgentError && errorSeen.current?.lastUser === lastUser ? snap.lastAgentError : null
  const planLoading = snap.planMode === null && (snap.openState !== 'open' || snap.cached || 'plan' in snap.projections)
  return (
    <section className="session" data-testid="session-view" data-session-id={session.sessionId} data-open-state={snap.openState}>
      <header className="session-head">
        <div className="session-head-title">
          <h1>{title || 'New session'}</h1>
          <div className="session-sub muted small">
            {snap.running && awaitingUser ? (
              <span className="status waiting" data-testid="status-waiting">
                <span className="dot waiting" aria-hidden /> Waiting for your answer
              </span>
            ) : snap.running ? (
              <span className="status running" data-testid="status-running">
                <span className="dot running" aria-hidden /> Working
              </span>
            ) : (
              <span className="status" data-testid="status-idle">
                Idle
              </span>
            )}
            <ModeIndicator mode={interaction?.mode ?? null} />
            {model ? (
              <span className="status model" data-testid="session-model" title="The model of the latest answer">
                {model}
              </span>
            ) : null}
            {snap.cached ? (
              <span className="status cached" data-testid="status-cached" title="Shown from this browser's cache until the host answers">
                <span className="mini-spinner" aria-hidden /> Syncing
              </span>
            ) : null}
          </div>
        </div>
        <div className="session-head-tools">
          {/* The 2026-08 host (it lists commands) has a model directory; the seed host has none. */}
          {snap.commands !== null ? <ModelPicker host={host} sessionId={session.sessionId} /> : null}
          <PlanChip session={session} plan={snap.planMode} loading={planLoading} />
        </div>
      </header>

      <div className="scroller" ref={scroller} onScroll={onScroll}>
        <div className="conversation" data-testid="conversation">
          {snap.hasMore ? (
            <div className="load-older">
              <button className="btn ghost small" data-testid="load-older" disabled={snap.loadingOlder} aria-busy={snap.loadingOlder} onClick={loadOlder}>
                {snap.loadingOlder ? (
                  <>
                    <span className="mini-spinner" aria-hidden /> Loading older messages…
                  </>
                ) : (
                  'Load older messages'
                )}
              </button>
            </div>
          ) : null}
          {snap.openState === 'loading' && snap.nodes.length === 0 ? <div className="muted center pad">Loading conversation…</div> : null}
          {snap.openState === 'error' ? (
            <div className="card error-card" role="alert">
              <div>{humanError('open this session', snap.openError)}</div>
              <button className="btn small" onClick={() => session.resync()}>
                Retry
              </button>
            </div>
          ) : null}
          {snap.openState === 'open' && snap.nodes.length === 0 && !snap.partial && !snap.running ? (
            <div className="empty-conversation">
              <p className="muted">Send a message to start. Turn on plan mode to get a plan before any change.</p>
              <Examples onPick={(e) => void startExample(e)} />
              {exampleError ? (
                <div className="card-error" role="alert">
                  {exampleError}
                </div>
              ) : null}
            </div>
          ) : null}
          <VerbsContext.Provider value={verbs}>
            <OutboxContext.Provider value={session}>
              <SubagentsContext.Provider value={subagents}>
              <div className="messages" data-testid="messages">
                {/* `clientId ?? id`: the host's node that replaces an echo re-mounts nothing. */}
                {snap.nodes.map((n, i) => (
                  <NodeRow key={str(rec(n)?.clientId) ?? str(rec(n)?.id) ?? i} node={n} index={i} />
                ))}
              </div>
              </SubagentsContext.Provider>
            </OutboxContext.Provider>
          </VerbsContext.Provider>
          <RunningCalls calls={snap.runningCalls} shown={toolIds} />
          {snap.partial ? <PartialRow partial={snap.partial} /> : null}
          {snap.queue ? <HostQueue session={session} queue={snap.queue} /> : null}
          {(snap.queue ? [] : queued).map((q) => (
            <div key={q.key} className="msg user queued" data-testid="queued">
              <div className="bubble">{q.text}</div>
              <div className="queued-tag">Queued: starts when the current turn ends</div>
            </div>
          ))}
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
          {agentError ? <AgentError message={agentError} /> : null}
        </div>
      </div>

      <Composer
        session={session}
        running={snap.running}
        promptError={snap.promptError}
        disabled={snap.openState === 'error'}
        connGeneration={connGeneration}
        onQueued={onQueued}
        onStopped={() => setQueued([])}
        commands={snap.commands}
      />
    </section>
  )
}
