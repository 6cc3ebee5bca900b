import type { ConnectionSnapshot, ConversationSnapshot, HostClient, Session, SessionListSnapshot } from 'agent-session'

/** The session's frozen snapshot (or `selector(snapshot)`), re-rendering when it changes. */
export function useSession(session: Session): ConversationSnapshot
export function useSession<T>(session: Session, selector: (snapshot: ConversationSnapshot) => T): T

/** The host's frozen connection snapshot, re-rendering when it changes. */
export function useConnection(host: HostClient): ConnectionSnapshot

/** The host's live session list (titles, running/waiting), re-rendering when it changes. */
export function useSessions(host: HostClient): SessionListSnapshot
