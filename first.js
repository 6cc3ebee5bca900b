// The first frames of a fresh client, before any I/O: what a server render shows and what a
// browser hydrates with (the bindings' server snapshots), so both render the same markup.
// Equal to the module's own (tests/integrations/node checks them).
const freeze = Object.freeze
const EMPTY = freeze([])

export const CONNECTING = freeze({ state: 'connecting', generation: 1, attempt: 0, retryAt: null, lastError: null, transport: null })
export const NO_SESSIONS = freeze({ state: 'loading', items: EMPTY, error: null })
const COLD = {
  openState: 'cold',
  openError: null,
  baseSeq: 0,
  tailSeq: -1,
  hasMore: false,
  loadingOlder: false,
  stale: false,
  nodes: EMPTY,
  partial: null,
  runningCalls: EMPTY,
  pending: EMPTY,
  planMode: null,
  running: false,
  promptError: null,
  lastAgentError: null,
  projections: freeze({}),
  interaction: freeze({ mode: null, capabilities: null, planSteps: null, planText: null, proposedPlan: null, userInput: EMPTY }),
  title: null,
  queue: null,
  commands: null,
  cached: false,
}
const colds = new WeakMap()
/** The cold snapshot of `session` (one frozen object per session). */
export function cold(session) {
  let s = colds.get(session)
  if (!s) colds.set(session, (s = freeze({ sessionId: session.sessionId, ...COLD })))
  return s
}
