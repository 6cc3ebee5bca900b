import { memo, useState } from 'react'
import type { Session } from 'agent-session'
import type { InteractionView, PlanStepView, UserInputPromptView } from '../model'
import { rec } from '../model'
import { humanError } from '../errors'
import { Markdown } from './Markdown'

const MODE_LABEL: Record<string, string> = {
  default: 'Default',
  plan: 'Planning',
  ask: 'Ask',
  execute: 'Executing',
  unknown: 'Unknown mode',
}

export function ModeIndicator({ mode }: { mode: InteractionView['mode'] }) {
  if (!mode) return null
  return (
    <span className={`mode-pill mode-${mode.mode}`} data-testid="mode-indicator" title={mode.native ? `native: ${mode.native}` : undefined}>
      {MODE_LABEL[mode.mode] ?? mode.mode}
    </span>
  )
}

const STEP_ICON: Record<PlanStepView['status'], string> = { pending: '○', inProgress: '◐', completed: '●' }

function StepList({ plan }: { plan: NonNullable<InteractionView['planSteps']> }) {
  const done = plan.steps.filter((s) => s.status === 'completed').length
  return (
    <div className="card plan-steps" data-testid="plan-steps">
      <div className="card-head">
        <span className="card-kicker">Plan</span>
        <span className="muted small">
          {done}/{plan.steps.length} done
        </span>
      </div>
      {plan.explanation ? <p className="card-body">{plan.explanation}</p> : null}
      <ol className="steps">
        {plan.steps.map((s, i) => (
          <li key={s.id ?? i} className={`step ${s.status}`}>
            <span className="step-icon" aria-label={s.status}>
              {STEP_ICON[s.status]}
            </span>
            <span className="step-text">{s.text}</span>
            {s.source === 'synthesized' ? <span className="tag subtle">derived</span> : null}
          </li>
        ))}
      </ol>
    </div>
  )
}

export const IMPLEMENT_PROMPT = 'Implement the plan.'

function HandoffCard({
  session,
  plan,
  canExit,
  inConversation,
}: {
  session: Session
  plan: NonNullable<InteractionView['proposedPlan']>
  canExit: boolean
  inConversation: boolean
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  // Like peer UIs: leaving plan mode and asking for the implementation is one action. The
  // mode change is selected first, so the host commits it at the start of this very turn.
  const implement = async () => {
    setBusy(true)
    setError(null)
    const r = await session.setPlanMode(false)
    if (!r.ok || r.value === null) {
      setBusy(false)
      setError(r.ok ? 'This host has no plan mode.' : humanError('leave plan mode', r.error))
      return
    }
    const sent = await session.prompt([{ type: 'text', text: IMPLEMENT_PROMPT }])
    setBusy(false)
    if (!sent.ok) setError(humanError('send the implementation request', sent.error))
  }
  return (
    <div className="card handoff" data-testid="proposed-plan">
      <div className="card-head">
        <span className="card-kicker">{inConversation ? 'The plan above is ready' : 'Proposed plan'}</span>
        {plan.source === 'synthesized' ? <span className="tag subtle">derived</span> : null}
      </div>
      {inConversation ? (
        <p className="card-body muted">Implement switches plan mode off and asks the agent to carry the plan out.</p>
      ) : (
        <div className="card-body">
          <Markdown text={plan.markdown} />
        </div>
      )}
      <div className="card-actions">
        <button className="btn primary" data-testid="implement" disabled={busy || !canExit} onClick={() => void implement()}>
          {busy ? 'Starting…' : 'Implement'}
        </button>
      </div>
      {error ? (
        <div className="card-error" role="alert">
          {error}
        </div>
      ) : null}
    </div>
  )
}

type AnswerOut = { questionId: string; selectedOptionIds?: string[]; text?: string }

const PromptCard = memo(function PromptCard({
  session,
  prompt,
  freeformAllowed,
}: {
  session: Session
  prompt: UserInputPromptView
  freeformAllowed: boolean
}) {
  const [sel, setSel] = useState<Record<string, string[]>>({})
  const [text, setText] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  const answers: AnswerOut[] = prompt.questions
    .map((q) => {
      const a: AnswerOut = { questionId: q.id }
      const ids = sel[q.id] ?? []
      if (ids.length) a.selectedOptionIds = ids
      const t = (text[q.id] ?? '').trim()
      if (t) a.text = t
      return a
    })
    .filter((a) => a.selectedOptionIds || a.text)
  const complete = prompt.questions.every((q) => !q.required || answers.some((a) => a.questionId === q.id))

  const submit = async () => {
    const answer = (session as unknown as { answer?: (id: string, a: AnswerOut[]) => Promise<unknown> }).answer
    if (typeof answer !== 'function') {
      setError('This version of agent-session cannot submit answers.')
      return
    }
    setBusy(true)
    setError(null)
    const r = rec(await answer.call(session, prompt.promptId, answers))
    setBusy(false)
    if (r?.ok === false) setError(humanError('submit the answers', rec(r.error) as { code?: string; message?: string; details?: unknown }))
    else {
      const v = rec(r?.value) ?? r
      if (v?.accepted === false) setError(v.reason === 'not-pending' ? 'This question is no longer pending.' : 'The host did not accept these answers.')
    }
  }

  return (
    <div className="card question-card" data-testid="user-input-card">
      <div className="card-head">
        <span className="card-kicker">{prompt.title ?? 'The agent needs your input'}</span>
      </div>
      {prompt.description ? <p className="card-body">{prompt.description}</p> : null}
      {prompt.questions.map((q) => {
        const picked = sel[q.id] ?? []
        const showFree = q.allowFreeform && freeformAllowed
        return (
          <fieldset key={q.id} className="question">
            {/* The header goes inside the legend: a fieldset always draws its legend first. */}
            <legend className="q-text">
              {q.header ? <span className="q-header">{q.header}</span> : null}
              {q.label}
              {q.required ? <span className="req"> *</span> : null}
            </legend>
            {q.description ? <p className="muted small">{q.description}</p> : null}
            <div className="options">
              {q.options.map((o) => {
                const on = picked.includes(o.id)
                return (
                  <label key={o.id} className={`option${on ? ' on' : ''}`}>
                    <input
                      type={q.multiSelect ? 'checkbox' : 'radio'}
                      name={`${prompt.promptId}:${q.id}`}
                      checked={on}
                      onChange={() =>
                        setSel((cur) => ({
                          ...cur,
                          [q.id]: q.multiSelect ? (on ? picked.filter((x) => x !== o.id) : [...picked, o.id]) : [o.id],
                        }))
                      }
                    />
                    <span className="option-text">
                      <span className="option-label">
                        {o.label}
                        {o.recommended ? <span className="tag">recommended</span> : null}
                      </span>
                      {o.description ? <span className="option-desc">{o.description}</span> : null}
                    </span>
                  </label>
                )
              })}
            </div>
            {showFree || q.options.length === 0 ? (
              <input
                className="text-input"
                placeholder={q.freeformPlaceholder ?? 'Type your answer'}
                value={text[q.id] ?? ''}
                onChange={(e) => setText((cur) => ({ ...cur, [q.id]: e.target.value }))}
              />
            ) : null}
          </fieldset>
        )
      })}
      <div className="card-actions">
        <button className="btn primary" data-testid="user-input-submit" disabled={busy || !complete || answers.length === 0} onClick={() => void submit()}>
          {busy ? 'Sending…' : 'Submit'}
        </button>
      </div>
      {error ? <div className="card-error">{error}</div> : null}
    </div>
  )
})

/** Plan progress, plan prose, the proposed-plan handoff and structured questions — each only
 *  when the provider's capabilities say it exists. */
export function InteractionPanel({
  session,
  view,
  planAvailable,
  planIdsInConversation,
}: {
  session: Session
  view: InteractionView
  planAvailable: boolean
  planIdsInConversation: ReadonlySet<string>
}) {
  const caps = view.capabilities
  const steps = view.planSteps && view.planSteps.steps.length > 0 ? view.planSteps : null
  // The step list belongs to the planning turn: shown while steps are open or the plan
  // awaits its handoff, not pinned under the conversation after it was implemented.
  const stepsCurrent = steps !== null && (steps.steps.some((x) => x.status !== 'completed') || view.proposedPlan !== null)
  const showSteps = stepsCurrent && (caps?.supportsStructuredPlanUpdates ?? true)
  // Plan prose: while it streams, and once done only while still planning with no proposed
  // plan yet (the handoff card and the conversation carry it after that).
  const proseLive = !view.planTextDone || (view.mode?.mode === 'plan' && !view.proposedPlan)
  // Steps and prose are independent capabilities: a provider with both (Codex) shows the
  // step list *and* the prose as it streams.
  const showText = view.planText !== null && proseLive && (caps?.supportsPlanTextStreaming ?? !showSteps)
  const showPrompts = caps?.supportsStructuredUserInput === true && view.prompts.length > 0
  return (
    <>
      {showSteps && steps ? <StepList plan={steps} /> : null}
      {showText ? (
        <div className="card plan-text" data-testid="plan-text">
          <div className="card-head">
            <span className="card-kicker">{view.planTextDone ? 'Plan' : 'Drafting a plan'}</span>
          </div>
          <div className="card-body">
            <Markdown text={view.planText ?? ''} streaming={!view.planTextDone && !view.proposedPlan} />
          </div>
        </div>
      ) : null}
      {view.proposedPlan ? (
        <HandoffCard
          session={session}
          plan={view.proposedPlan}
          // "Implement" goes through the host's plan service (setPlanMode(false)), which every
          // provider with plan mode honours at the next turn start; supportsExitPlanMode only
          // says the provider has a native exit tool (Claude's ExitPlanMode).
          canExit={planAvailable && (caps?.supportsPlanMode ?? true)}
          inConversation={planIdsInConversation.has(view.proposedPlan.planId)}
        />
      ) : null}
      {showPrompts
        ? view.prompts.map((p) => (
            <PromptCard key={p.promptId} session={session} prompt={p} freeformAllowed={caps?.supportsFreeformUserInput === true} />
          ))
        : null}
    </>
  )
}
