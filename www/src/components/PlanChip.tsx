import { useState } from 'react'
import type { ConversationSnapshot, Session } from 'agent-session'

type PlanState = ConversationSnapshot['planMode']

/** What the chip says for a host-confirmed plan state (never a speculative one). */
export function planLabel(plan: PlanState): { label: string; tone: string; desired: boolean | null } {
  if (plan === null || plan === undefined) return { label: 'Plan mode unavailable', tone: 'off', desired: null }
  const pending = typeof plan.pending === 'boolean' ? plan.pending : undefined
  if (pending !== undefined && pending !== plan.active) {
    return pending
      ? { label: 'Plan mode starts with the next request', tone: 'pending', desired: true }
      : { label: 'Plan mode ends with the next request', tone: 'pending', desired: false }
  }
  return plan.active ? { label: 'Plan mode on', tone: 'on', desired: true } : { label: 'Plan mode off', tone: 'off', desired: false }
}

export function PlanChip({ session, plan }: { session: Session; plan: PlanState }) {
  const [inFlight, setInFlight] = useState<Promise<unknown> | null>(null)
  const [error, setError] = useState<string | null>(null)
  const { label, tone, desired } = planLabel(plan)
  const unavailable = desired === null

  const toggle = () => {
    if (unavailable || inFlight) return
    setError(null)
    const p = session.setPlanMode(!desired).then((r) => {
      if (!r.ok) setError(r.error.message)
      else if (r.value === null) setError('This host has no plan mode.')
    })
    setInFlight(p)
    void p.finally(() => setInFlight((cur) => (cur === p ? null : cur)))
  }

  return (
    <div className="plan-chip-wrap">
      <button
        type="button"
        className={`plan-chip ${tone}${inFlight ? ' busy' : ''}`}
        data-testid="plan-chip"
        data-plan={unavailable ? 'unavailable' : tone === 'pending' ? (desired ? 'pending-on' : 'pending-off') : desired ? 'on' : 'off'}
        disabled={unavailable || inFlight !== null}
        aria-busy={inFlight !== null}
        aria-pressed={desired === true}
        title={unavailable ? 'The host does not offer plan mode' : desired ? 'Turn plan mode off' : 'Turn plan mode on'}
        onClick={toggle}
      >
        <span className="plan-dot" aria-hidden />
        {label}
        {inFlight ? <span className="mini-spinner" aria-hidden /> : null}
      </button>
      {error ? <span className="chip-error">{error}</span> : null}
    </div>
  )
}
