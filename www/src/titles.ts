// Session titles for the sidebar. `session.list` carries no title, so the demo remembers the
// first user message of every session it has opened (persisted in localStorage).

const KEY = 'agent-session-demo:titles'
type Entry = { title: string; provider?: string }
let cache: Record<string, Entry> | null = null
const listeners = new Set<() => void>()

function load(): Record<string, Entry> {
  if (cache) return cache
  try {
    const raw = localStorage.getItem(KEY)
    const parsed: unknown = raw ? JSON.parse(raw) : {}
    cache = parsed && typeof parsed === 'object' ? (parsed as Record<string, Entry>) : {}
  } catch {
    cache = {}
  }
  return cache
}

export function getEntry(id: string): Entry | undefined {
  return load()[id]
}

export function remember(id: string, patch: Partial<Entry>) {
  const all = load()
  const prev = all[id] ?? { title: '' }
  const next = { ...prev, ...patch }
  if (prev.title === next.title && prev.provider === next.provider) return
  all[id] = next
  try {
    localStorage.setItem(KEY, JSON.stringify(all))
  } catch {
    /* storage full or disabled: titles stay in memory */
  }
  for (const l of listeners) l()
}

export function subscribeTitles(l: () => void): () => void {
  listeners.add(l)
  return () => listeners.delete(l)
}

let version = 0
subscribeTitles(() => version++)
export function titlesVersion(): number {
  return version
}
