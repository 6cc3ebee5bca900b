import type { ConnectionSnapshot, ConversationSnapshot, HostClient, Session } from 'agent-session'

/** The session's frozen snapshot (or `selector(snapshot)`), re-rendering when it changes. */
export function useSession(session: Session): ConversationSnapshot
export function useSession<T>(session: Session, selector: (snapshot: ConversationSnapshot) => T): T

/** The host's frozen connection snapshot, re-rendering when it changes. */
export function useConnection(host: HostClient): ConnectionSnapshot
