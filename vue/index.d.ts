import type { ShallowRef } from 'vue'
import type { ConnectionSnapshot, ConversationSnapshot, HostClient, Session, SessionListSnapshot } from 'agent-session'

/** A read-only shallow ref kept current from `subscribe`; `stop()` unsubscribes (automatic when the calling effect scope, e.g. a component, is disposed). */
export type SnapshotRef<T> = Readonly<ShallowRef<T>> & { stop(): void }

/** The session's frozen snapshot (or `selector(snapshot)`); the ref changes only when the selected value changes identity. */
export function useSession(session: Session): SnapshotRef<ConversationSnapshot>
export function useSession<T>(session: Session, selector: (snapshot: ConversationSnapshot) => T): SnapshotRef<T>

/** The host's frozen connection snapshot. */
export function useConnection(host: HostClient): SnapshotRef<ConnectionSnapshot>

/** The host's live session list. */
export function useSessions(host: HostClient): SnapshotRef<SessionListSnapshot>
