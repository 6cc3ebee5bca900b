import { memo, useState } from 'react'
import type { Session } from 'agent-session'
import { arr, rec, str } from '../model'

type RespondResult = { ok: true; value: unknown } | { ok: false; error: { code: 'cancelled'; message: string; details: object } }

function useRespond(session: Session, key: string) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const respond = async (result: RespondResult) => {
    setBusy(true)
    setError(null)
    const receipt = (await session.respond(key, result as Parameters<Session['respond']>[1])) as unknown
    setBusy(false)
    const r = rec(receipt)
    if (r && r.accepted === false) {
      setError(
        r.reason === 'not-pending'
          ? 'This request is no longer pending.'
          : r.reason === 'transport'
            ? 'Could not reach the agent host. Try again once the connection is back.'
            : 'The host did not accept this answer.',
      )
    }
  }
  return { busy, error, respond }
}

const ApprovalCard = memo(function ApprovalCard({ session, item }: { session: Session; item: Record<string, unknown> }) {
  const key = str(item.key) ?? ''
  const { busy, error, respond } = useRespond(session, key)
  return (
    <div className="card approval-card" data-testid="approval-card">
      <div className="card-head">
        <span className="card-kicker">Approval needed</span>
        <span className="tool-name">{str(item.toolName) ?? 'tool'}</span>
      </div>
      {/* The host's words for the request, verbatim: a phrase ("run a shell command") or the
          command itself, so it is shown as what was asked, not spliced into a sentence. */}
      {str(item.reason) ? (
        <div className="card-body approval-reason" data-testid="approval-reason">
          {str(item.reason)}
        </div>
      ) : null}
      <div className="card-actions">
        <button className="btn" disabled={busy} onClick={() => void respond({ ok: true, value: { outcome: 'rejected' } })}>
          Reject
        </button>
        <button
          className="btn primary"
          data-testid="approve"
          disabled={busy}
          onClick={() => void respond({ ok: true, value: { outcome: 'allowed-once' } })}
        >
          Allow once
        </button>
      </div>
      {error ? <div className="card-error">{error}</div> : null}
    </div>
  )
})

interface Q {
  id: string
  question: string
  header?: string
  detail?: string
  options: { label: string; description?: string }[]
  multiSelect: boolean
}

function readQuestions(item: Record<string, unknown>): Q[] {
  return arr(item.questions)
    .map(rec)
    .filter((q): q is Record<string, unknown> => !!q && typeof q.id === 'string')
    .map((q) => ({
      id: q.id as string,
      question: str(q.question) ?? '',
      header: str(q.header),
      detail: str(q.detail),
      options: arr(q.options)
        .map(rec)
        .filter((o): o is Record<string, unknown> => !!o && typeof o.label === 'string')
        .map((o) => ({ label: o.label as string, description: str(o.description) })),
      multiSelect: q.multiSelect === true,
    }))
}

const QuestionCard = memo(function QuestionCard({ session, item }: { session: Session; item: Record<string, unknown> }) {
  const key = str(item.key) ?? ''
  const questions = readQuestions(item)
  const { busy, error, respond } = useRespond(session, key)
  const [picked, setPicked] = useState<Record<string, string[]>>({})
  const [other, setOther] = useState<Record<string, string>>({})

  const toggle = (q: Q, label: string) =>
    setPicked((cur) => {
      const have = cur[q.id] ?? []
      const next = q.multiSelect ? (have.includes(label) ? have.filter((l) => l !== label) : [...have, label]) : [label]
      return { ...cur, [q.id]: next }
    })

  const answerOf = (q: Q): string => {
    const labels = [...(picked[q.id] ?? [])]
    const free = (other[q.id] ?? '').trim()
    if (free) labels.push(free)
    return labels.join(', ')
  }
  const complete = questions.every((q) => answerOf(q) !== '')

  const submit = () => {
    const answers: Record<string, string> = {}
    for (const q of questions) answers[q.id] = answerOf(q)
    void respond({ ok: true, value: { answers } })
  }

  return (
    <div className="card question-card" data-testid="question-card">
      <div className="card-head">
        <span className="card-kicker">The agent has a question</span>
      </div>
      {questions.map((q) => (
        <fieldset key={q.id} className="question">
          {/* The header goes inside the legend: a fieldset always draws its legend first. */}
          <legend className="q-text">
            {q.header ? <span className="q-header">{q.header}</span> : null}
            {q.question}
          </legend>
          {q.detail ? <p className="muted small">{q.detail}</p> : null}
          <div className="options">
            {q.options.map((o) => {
              const on = (picked[q.id] ?? []).includes(o.label)
              return (
                <label key={o.label} className={`option${on ? ' on' : ''}`}>
                  <input
                    type={q.multiSelect ? 'checkbox' : 'radio'}
                    name={`${key}:${q.id}`}
                    checked={on}
                    onChange={() => toggle(q, o.label)}
                  />
                  <span className="option-text">
                    <span className="option-label">{o.label}</span>
                    {o.description ? <span className="option-desc">{o.description}</span> : null}
                  </span>
                </label>
              )
            })}
          </div>
          <input
            className="text-input"
            placeholder={q.options.length ? 'Or type your own answer' : 'Your answer'}
            value={other[q.id] ?? ''}
            onChange={(e) => setOther((cur) => ({ ...cur, [q.id]: e.target.value }))}
          />
        </fieldset>
      ))}
      <div className="card-actions">
        <button
          className="btn"
          disabled={busy}
          onClick={() => void respond({ ok: false, error: { code: 'cancelled', message: 'dismissed by the user', details: {} } })}
        >
          Dismiss
        </button>
        <button className="btn primary" data-testid="answer-submit" disabled={busy || !complete} onClick={submit}>
          Answer
        </button>
      </div>
      {error ? <div className="card-error">{error}</div> : null}
    </div>
  )
})

export function PendingCards({ session, pending }: { session: Session; pending: readonly unknown[] }) {
  if (pending.length === 0) return null
  return (
    <div className="pending-cards">
      {pending.map((p) => {
        const item = rec(p)
        if (!item) return null
        const key = str(item.key) ?? ''
        return item.kind === 'approval' ? (
          <ApprovalCard key={key} session={session} item={item} />
        ) : (
          <QuestionCard key={key} session={session} item={item} />
        )
      })}
    </div>
  )
}
