import { useCallback, useEffect, useState, useSyncExternalStore } from 'react'
import type { HostClient, ModelStore, ModelsSnapshot } from 'agent-session'
import { humanError } from '../errors'

const key = (s: { provider: string; model: string }) => `${s.provider}\n${s.model}`
const none = () => () => {}

/** Picks the model of the session's next step through the package's model store
 *  (`host.models(sessionId)`). Shown only on a host that has them (the caller decides). It
 *  shows the newest pick while the host answers it, then the selection the host confirmed; the
 *  store's fence keeps an older pick's late answer from overwriting a newer one. */
export function ModelPicker({ host, sessionId }: { host: HostClient; sessionId: string }) {
  const [store, setStore] = useState<ModelStore | null>(null)
  useEffect(() => {
    let live = true
    void host.models(sessionId).then((s) => live && setStore(s))
    return () => {
      live = false
    }
  }, [host, sessionId])
  const subscribe = useCallback((l: () => void) => (store ? store.subscribe(l) : none()), [store])
  const snap: ModelsSnapshot | null = useSyncExternalStore(subscribe, () => store?.getSnapshot() ?? null)

  if (!store || !snap) return null
  if (snap.state !== 'ready' || !snap.current) {
    return snap.error ? <span className="small" role="alert">{humanError('list the models', snap.error)}</span> : null
  }
  const shown = snap.pending ?? snap.current
  const pick = (value: string) => {
    const [provider, model] = value.split('\n') as [string, string]
    void store.select({ provider, model })
  }
  return (
    <div className="model-picker">
      <label className="visually-hidden" htmlFor="model-select">
        Model
      </label>
      <select id="model-select" className="select small" data-testid="model-select" value={key(shown)} onChange={(e) => pick(e.target.value)} title="The model of the next step">
        {snap.groups.some((g) => g.models.some((m) => key({ provider: g.id, model: m.id }) === key(shown))) ? null : (
          <option value={key(shown)}>{shown.model}</option>
        )}
        {snap.groups.map((g) => (
          <optgroup key={g.id} label={g.name}>
            {g.models.map((m) => (
              <option key={m.id} value={key({ provider: g.id, model: m.id })}>
                {m.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      {snap.error ? (
        <span className="small" role="alert" data-testid="model-error">
          {humanError('switch the model', snap.error)}
        </span>
      ) : null}
    </div>
  )
}
