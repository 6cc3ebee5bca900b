// Human wording for what the package reports. Raw messages stay available as a tooltip for
// whoever debugs, but the UI leads with a sentence a user can act on.

type ErrorLike = { code?: string; message?: string; details?: unknown } | null | undefined

const UNREACHABLE = /Failed to fetch|NetworkError|ERR_CONNECTION|Load failed|stream ended|HTTP 5\d\d|connect timeout|timed out/i

/** A sentence for an `RpcError` of an operation (`what`: "send the message", …). */
export function humanError(what: string, e: ErrorLike): string {
  const msg = e?.message ?? ''
  const transport = (e?.details as { transport?: boolean } | undefined)?.transport === true
  if (transport || UNREACHABLE.test(msg)) return `Could not ${what}: the agent host is not reachable. It will work again once the connection is back.`
  if (e?.code === 'session-not-found') return `Could not ${what}: the host no longer has this session.`
  if (e?.code === 'agent-busy') return `Could not ${what}: the agent is busy with another request.`
  if (e?.code === 'cancelled') return `Cancelled before it could ${what}.`
  if (e?.code === 'bad-request') return `Could not ${what}: the host refused the request (${msg}).`
  return `Could not ${what}${msg ? `: ${msg}` : '.'}`
}

/** A sentence for `ConnectionSnapshot.lastError`. */
export function humanConnError(raw: string | null): string | null {
  if (!raw) return null
  if (/HTTP 401|unauthorized/i.test(raw)) return 'The host refused the access token.'
  if (/stream\/error/.test(raw)) return 'The host reset the event stream.'
  if (UNREACHABLE.test(raw)) return 'The agent host is not reachable.'
  return 'The connection to the agent host failed.'
}
