import type { Readable } from 'svelte/store'
import type { ConnectionSnapshot, ConversationSnapshot, HostClient, Session, SessionListSnapshot } from 'agent-session'

/** A readable store of the session's frozen snapshot (or `selector(snapshot)`); it sets a value only when the selected value changes identity. */
export function sessionStore(session: Session): Readable<ConversationSnapshot>
export function sessionStore<T>(session: Session, selector: (snapshot: ConversationSnapshot) => T): Readable<T>

/** A readable store of the host's frozen connection snapshot. */
export function connectionStore(host: HostClient): Readable<ConnectionSnapshot>

/** A readable store of the host's live session list. */
export function sessionsStore(host: HostClient): Readable<SessionListSnapshot>
