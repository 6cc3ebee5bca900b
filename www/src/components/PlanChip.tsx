import { useState } from 'react'
import type { ConversationSnapshot, Session } from 'agent-session'
import { humanError } from '../errors'

type PlanState = ConversationSnapshot['planMode']

/** What the chip says for a host-confirmed plan state (never a speculative one). */
export function planLabel(plan: PlanState, loading = false): { label: string; tone: string; desired: boolean | null } {
  if ((plan === null || plan === undefined) && loading) return { label: 'Checking plan mode…', tone: 'off', desired: null }
  if (plan === null || plan === undefined) return { label: 'Plan mode unavailable', tone: 'off', desired: null }
  const pending = typeof plan.pending === 'boolean' ? plan.pending : undefined
  if (pending !== undefined && pending !== plan.active) {
    return pending
      ? { label: 'Plan mode starts with the next request', tone: 'pending', desired: true }
      : { label: 'Plan mode ends with the next request', tone: 'pending', desired: false }
  }
  return plan.active ? { label: 'Plan mode on', tone: 'on', desired: true } : { label: 'Plan mode off', tone: 'off', desired: false }
}

/** `loading`: the plan state is not known yet (the session is opening, or the host has a plan
 *  service whose answer has not arrived): not the same as "unavailable". */
export function PlanChip({ session, plan, loading = false }: { session: Session; plan: PlanState; loading?: boolean }) {
  const [inFlight, setInFlight] = useState<Promise<unknown> | null>(null)
  const [error, setError] = useState<string | null>(null)
  const { label, tone, desired } = planLabel(plan, loading)
  const unavailable = desired === null

  const toggle = () => {
    if (unavailable || inFlight) return
    setError(null)
    const p = session.setPlanMode(!desired).then((r) => {
      if (!r.ok) setError(humanError('change plan mode', r.error))
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
        data-plan={unavailable ? (loading ? 'loading' : 'unavailable') : tone === 'pending' ? (desired ? 'pending-on' : 'pending-off') : desired ? 'on' : 'off'}
        disabled={unavailable || inFlight !== null}
        aria-busy={inFlight !== null}
        aria-pressed={desired === true}
        title={unavailable ? (loading ? 'Asking the host for the plan mode' : 'The host does not offer plan mode') : desired ? 'Turn plan mode off' : 'Turn plan mode on'}
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
