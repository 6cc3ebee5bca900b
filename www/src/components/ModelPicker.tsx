import { useEffect, useRef, useState } from 'react'
import type { HostClient, ModelSelection as Selection, SessionModels as Models } from 'agent-session'
import { humanError } from '../errors'

const key = (s: { provider: string; model: string }) => `${s.provider}\n${s.model}`

/** Picks the model of the session's next step (`session.models` / `session.selectModel`
 *  through `host.call`). Shown only on a host that has them (the caller decides). A selection
 *  the host confirmed is what the picker shows; a newer pick always wins over an older answer. */
export function ModelPicker({ host, sessionId }: { host: HostClient; sessionId: string }) {
  const [models, setModels] = useState<Models | null>(null)
  const [shown, setShown] = useState<Selection | null>(null)
  const [error, setError] = useState<string | null>(null)
  // The newest pick: an answer to an older one is not shown.
  const latest = useRef(0)

  useEffect(() => {
    const c = new AbortController()
    void host.call('session.models', { sessionId }, { signal: c.signal }).then((r) => {
      if (r.ok) (setModels(r.value), setShown(r.value.current))
      else if (r.error.code !== 'cancelled') setError(humanError('list the models', r.error))
    })
    return () => c.abort()
  }, [host, sessionId])

  if (!models || !shown) return error ? <span className="small" role="alert">{error}</span> : null
  const pick = (value: string) => {
    const [provider, model] = value.split('\n') as [string, string]
    const n = ++latest.current
    setError(null)
    setShown({ provider, model })
    void host.call('session.selectModel', { sessionId, provider, model }).then((r) => {
      if (n !== latest.current) return
      if (r.ok) (setShown(r.value.selected), setModels({ ...models, current: r.value.selected }))
      else (setShown(models.current), setError(humanError('switch the model', r.error)))
    })
  }
  return (
    <div className="model-picker">
      <label className="visually-hidden" htmlFor="model-select">
        Model
      </label>
      <select id="model-select" className="select small" data-testid="model-select" value={key(shown)} onChange={(e) => pick(e.target.value)} title="The model of the next step">
        {models.groups.some((g) => g.models.some((m) => key({ provider: g.id, model: m.id }) === key(shown))) ? null : (
          <option value={key(shown)}>{shown.model}</option>
        )}
        {models.groups.map((g) => (
          <optgroup key={g.id} label={g.name}>
            {g.models.map((m) => (
              <option key={m.id} value={key({ provider: g.id, model: m.id })}>
                {m.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      {error ? (
        <span className="small" role="alert" data-testid="model-error">
          {error}
        </span>
      ) : null}
    </div>
  )
}
