// agent-session: hand-written typings of the package's fixed JS API (docs/API.md).

declare global {
  interface SymbolConstructor {
    /** Explicit resource management (`using`); declared here too so that a `lib` without
     * `esnext.disposable` (e.g. `["ES2022", "DOM"]`) type-checks these declarations. */
    readonly dispose: unique symbol
  }
}

/** wasm-bindgen init: accepts a URL, Response, BufferSource or WebAssembly.Module (default: the bundled .wasm next to the glue). */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module
/** Outside a browser (the package's `node` entry), no argument reads the .wasm beside the glue from the file system; in a server bundle without that file it resolves without loading (see docs/API.md, "Server rendering, Node and tests"). */
export default function init(
  moduleOrPath?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>,
): Promise<unknown>
export { init }
export function initSync(module: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): unknown

// ---- results ---------------------------------------------------------------------------

/** `'unsupported'`: made by the client when the host has no such method (it answered 404). */
export type RpcErrorCode = 'bad-request' | 'cancelled' | 'session-not-found' | 'agent-busy' | 'unsupported' | 'internal'
export type RpcError = { code: RpcErrorCode; message: string; details: object }
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: RpcError }
/** A host's result as it wrote it (`call` and the methods made of it): its error codes are the
 * host's own (`'workspace-not-found'`, `'fork-unavailable'`, …); the client's own failures are
 * `RpcErrorCode`s (`'cancelled'` for an aborted signal, `'unsupported'` for a 404). */
export type HostRpcError = { code: RpcErrorCode | (string & {}); message: string; details: object }
export type HostRpcResult<T> = { ok: true; value: T } | { ok: false; error: HostRpcError }
export type CallOptions = { signal?: AbortSignal }
/** A session whose visible messages matched a `search` (the 2026-08 host's `session.search`). */
export type SessionSearchItem = { sessionId: string; snippet: string }

// ---- the 2026-08 host's methods `call` knows the shapes of (upstream b150a551b8's schema) ----

export type ModelSelection = { provider: string; model: string; reasoningEffort?: string }
export type ModelCatalogModel = {
  id: string
  name: string
  description?: string
  reasoning?: { efforts: { id: string; name: string; description?: string }[]; defaultEffort?: string }
}
export type ModelCatalogGroup = { id: string; name: string; models: ModelCatalogModel[] }
/** `session.models`: the directory for one session; `routable` says whether a route serves `current`. */
export type SessionModels = {
  current: ModelSelection
  routable: boolean
  groups: ModelCatalogGroup[]
  failures: { id: string; name: string; message: string }[]
}
export type WorkspaceView = { workspaceId: string; path: string; title: string; sessionIds: string[]; createdAt: string; updatedAt: string }
/** `host.workspaces()`'s snapshot: frozen, the same object until something changes; a workspace
 * whose record did not change stays the same object. */
export interface WorkspacesSnapshot {
  /** `loading` until the first `workspace.list` answers; `unsupported` on a host without
   * workspaces (a seed host); `error` when the list failed (asked again at the next connection). */
  readonly state: 'loading' | 'ready' | 'unsupported' | 'error'
  /** In the host's display order (a new workspace first). */
  readonly items: readonly Readonly<WorkspaceView>[]
  readonly archivedSessionIds: readonly string[]
  readonly error: HostRpcError | null
  /** Workspace frames dropped: not of their shape. */
  readonly dropped: number
}
/** `host.models(sessionId)`'s snapshot: frozen, a new object at every change. */
export interface ModelsSnapshot {
  /** `loading` until `session.models` answers; `unsupported` on a host without it (a seed host). */
  readonly state: 'loading' | 'ready' | 'unsupported' | 'error'
  readonly groups: readonly ModelCatalogGroup[]
  /** Whether a route serves `current` (`session.models`' `routable`). */
  readonly routable: boolean
  /** The selection as the host last confirmed it (null until listed). */
  readonly current: Readonly<ModelSelection> | null
  /** The newest pick while the host has not answered it. */
  readonly pending: Readonly<ModelSelection> | null
  /** Why the directory could not be listed, or why the newest pick was refused. */
  readonly error: HostRpcError | null
}
/** One session's model directory and selection. Picks are fenced: only the answer to the
 * newest one is applied, so a slower answer to an older pick never overwrites a newer one. */
export interface ModelStore {
  getSnapshot(): ModelsSnapshot
  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
  /** `session.selectModel` for the session's next step; resolves the host's answer. */
  select(selection: ModelSelection): Promise<HostRpcResult<{ selected: ModelSelection }>>
}
/** `host.subagents(parentSessionId)`'s snapshot: frozen, the same object until the catalog changes. */
export interface SubagentsSnapshot {
  /** `loading` until `subagent.list` answers; `unsupported` on a host without it (a seed host). */
  readonly state: 'loading' | 'ready' | 'unsupported' | 'error'
  /** The catalog in creation order; an entry that did not change stays the same object. */
  readonly items: readonly Readonly<SubagentListEntry>[]
  readonly parentAvailable: boolean
  readonly error: HostRpcError | null
}
/** One session's subagents, kept live while it has a listener: `subagent.list` again at every
 * new connection and whenever the live list's children of the session come, go or start and
 * stop running (a listener that comes back finds what changed meanwhile). Open a child with
 * `host.session(entry.id)`. */
export interface SubagentStore {
  getSnapshot(): SubagentsSnapshot
  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
  /** `subagent.prompt` to continuable child `childSessionId` (text parts), with the client's
   *  `clientTimeZone` as upstream's own client sends it. */
  prompt(childSessionId: string, content: readonly { type: 'text'; text: string }[]): Promise<HostRpcResult<{ messageId: string }>>
  /** `subagent.interrupt`: ends the child's running turn. */
  interrupt(childSessionId: string): Promise<HostRpcResult<{ accepted: true }>>
}
/** The 2026-08 host's workspaces and archive set, kept live by its `host/workspace-*` and
 * `host/archived-sessions-changed` frames; `workspace.list` again at every new connection. */
export interface WorkspaceStore {
  getSnapshot(): WorkspacesSnapshot
  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
}
export type SubagentAddress = { parentSessionId: string; childSessionId: string; mode: 'one-shot' | 'continuable' }
export type SubagentListEntry =
  | ({ kind: 'child'; id: string; activity: 'running' | 'inactive'; hasChildren: boolean } & ({ mode: 'one-shot'; label?: string } | { mode: 'continuable'; label: string }))
  | { kind: 'diagnostic'; id: string; reason: 'corrupt' | 'unsupported' | 'unavailable' }
/** Payload and value of each method below; any other name takes an object and resolves `unknown`. */
export interface HostMethods {
  'session.search': { payload: { query: string }; value: { items: SessionSearchItem[]; hasMore: boolean } }
  'session.models': { payload: { sessionId: string }; value: SessionModels }
  'session.selectModel': { payload: { sessionId: string } & ModelSelection; value: { selected: ModelSelection } }
  'workspace.list': { payload: Record<string, never>; value: { items: WorkspaceView[]; archivedSessionIds: string[] } }
  'workspace.create': { payload: { path: string }; value: { workspace: WorkspaceView; created: boolean } }
  'workspace.rename': { payload: { workspaceId: string; title: string }; value: { workspace: WorkspaceView } }
  'workspace.delete': { payload: { workspaceId: string }; value: { deleted: true } }
  'workspace.insertBefore': { payload: { workspaceId: string; beforeWorkspaceId?: string }; value: { workspaceIds: string[] } }
  'workspace.insertSessionBefore': { payload: { workspaceId: string; sessionId: string; beforeSessionId?: string }; value: { workspace: WorkspaceView } }
  'workspace.archiveSession': { payload: { sessionId: string }; value: { archivedSessionIds: string[] } }
  'subagent.list': { payload: { parentSessionId: string }; value: { entries: SubagentListEntry[]; parentAvailable: boolean } }
  'subagent.history': { payload: SubagentAddress & { beforeSeq?: number; maxMessages?: number }; value: { events: { event: { type: string; seq: number; time: number; data: unknown } }[]; hasMore: boolean } }
  'subagent.prompt': { payload: SubagentAddress & { mode: 'continuable'; content: ContentBlock[]; clientTimeZone?: string }; value: { messageId: string } }
  'subagent.interrupt': { payload: SubagentAddress & { mode: 'continuable' }; value: { accepted: true } }
}
type MethodPayload<M extends string> = M extends keyof HostMethods ? HostMethods[M]['payload'] : object
type MethodValue<M extends string> = M extends keyof HostMethods ? HostMethods[M]['value'] : unknown

/** The receipt of `session.respond`. `'transport'`: the answer did not reach the host (see `error`). */
export type RpcReceipt =
  | { accepted: true }
  | { accepted: false; reason: 'not-pending' | 'bad-response' }
  | { accepted: false; reason: 'transport'; error?: RpcError }

export type PlanModeState = { active: boolean; pending?: boolean }

/** A programmer error thrown synchronously (bad argument types, use after `close()`). */
export interface AgentSessionError extends Error {
  /** `'not-initialized'`: the Node entry's `init()` found no `.wasm` to load (a rejection). */
  code: 'bad-argument' | 'closed' | 'not-initialized'
}

// ---- host ------------------------------------------------------------------------------

export interface HostClientOptions {
  /** Default: `location.origin`. */
  baseUrl?: string
  /**
   * Sent as `Authorization: Bearer <token>` on every `POST`. It never travels in a URL: before
   * each WebSocket upgrade the client mints a single-use, short-lived ticket with
   * `POST /api/stream.ticket` and puts only that ticket in the upgrade URL.
   */
  token?: string
  /**
   * How the two downlinks (`/api/events.mux`, `/api/events.host`) are carried. Default `'auto'`.
   * - `'websocket'`: one WebSocket each (`ws:`/`wss:` derived from `baseUrl`); one socket per
   *   stream instead of one held HTTP/1.1 connection, so many tabs can share an origin.
   * - `'sse'`: streaming `fetch` (Server-Sent Events), for hosts without WebSocket downlinks.
   * - `'auto'`: WebSocket first; a socket that closes or errors before it opens counts as
   *   refused and both streams reopen over SSE in the same attempt. The carrier that connected
   *   is kept; after 3 consecutive failed attempts on it, the next attempt probes again.
   *   Outside a browser, `'auto'` is `'sse'` where no working WebSocket exists (Node 20 has no
   *   global one; jsdom's and happy-dom's do not work with Node's fetch and events).
   * Unary calls and `respond` always use `POST /api/*`. See docs/TRANSPORTS.md.
   */
  transport?: Transport
  backoff?: { baseMs?: number; maxMs?: number }
  /** Unary call timeout, `0`: none (also bounds how long a connection attempt may take). Default 30000. */
  requestTimeoutMs?: number
  /** Largest unary response body read, in bytes; a larger one fails the call with a `transport` error naming the limit. Default 67108864 (64 MiB). */
  maxResponseBytes?: number
  /**
   * Sessions nobody watches (no listener, no operation in flight) that stay warm, most recently
   * watched first; the others are released to `openState: 'cold'` on the next timer turn
   * (docs/API.md, "Session lifecycle"). Default 4; 0 releases every unwatched session.
   */
  keepWarm?: number
  /** How long a warm unwatched session stays before it is released too. Default 60000 ms. */
  releaseAfterMs?: number
  /**
   * The opt-in local cache (docs/API.md, "Local cache"): what a session's window showed is kept
   * in IndexedDB (conversation content in the browser's storage: the app decides), so a reopen
   * paints it (`cached: true`) before the host answers. `true` = `{ maxBytes: 52428800 }`
   * (50 MiB, least recently opened entries go first); falsy = off (the default: nothing is
   * stored). Where there is no IndexedDB (Node, jsdom) nothing is stored or read.
   */
  cache?: boolean | { maxBytes?: number }
  /** Share one host connection with the other tabs of this origin that have the same
   *  `baseUrl` and token, where Web Locks and BroadcastChannel exist (default `true`; `false`:
   *  this client connects alone). */
  share?: boolean
  /**
   * Sent with every prompt as its `clientTimeZone`, as upstream's own client does: the 2026-08
   * host keeps it on the user message, so the agent knows the user's zone (the seed host's
   * schema drops it). Default: this runtime's zone (`Intl.DateTimeFormat().resolvedOptions()
   * .timeZone`); `null`: none is sent.
   */
  clientTimeZone?: string | null
}

/** `host.sharing()`: this client's part in the shared connection (docs/API.md "Many tabs"). */
export interface ShareState {
  readonly role: 'starting' | 'leader' | 'follower'
  /** Borrowed downlinks closed because their leader went. */
  readonly handovers: number
  /** `Date.now()` of the latest handover, 0 before any. */
  readonly handoverAt: number
  /** `Date.now()` of the first frame read after the latest handover, 0 before any. */
  readonly firstFrameAt: number
}

export type Transport = 'auto' | 'websocket' | 'sse'

export interface HostDescription {
  version: string
  cwd: string
  /** Optional in the 2026-08 schema (every seed host sends it). */
  provider?: string
  /** Optional in the 2026-08 schema (every seed host sends it). */
  model?: string
  attachedSessions: number
  /** The 2026-08 host: the host account's home directory. */
  home?: string
  /** The 2026-08 host (in every description of it, in none of the seed's): whether it can
   *  hand a path to a native desktop. The client asks a host without it only the seed's
   *  methods. */
  canOpenPath?: boolean
}

export interface SessionSummary {
  sessionId: string
  updatedAt: number
  running: boolean
  parentSessionId?: string
  cwd?: string
}

export interface ConnectionSnapshot {
  readonly state: 'connecting' | 'open' | 'reconnecting' | 'closed'
  /** Bumps on every (re)connect attempt. */
  readonly generation: number
  /** Consecutive failed attempts, 0 when open. */
  readonly attempt: number
  /** Epoch ms of the next attempt while reconnecting. */
  readonly retryAt: number | null
  readonly lastError: string | null
  /** The carrier of the latest established connection; `null` until one was established. */
  readonly transport: 'websocket' | 'sse' | null
}

export interface HostDiagnostics {
  readonly frames: number
  readonly malformedFrames: number
  /** Frames for a session that is not resident and could not be held (stash bounds included). */
  readonly unroutedFrames: number
  /** Non-resident sessions with held interaction/status frames (at most 1,024). */
  readonly stashedSessions: number
  /** Bytes of those held frames (at most 4 MiB). */
  readonly stashedBytes: number
  readonly inflightRequests: number
  /** WebSocket downlinks held (0 on SSE, after a generation ends, and after `close()`). */
  readonly sockets: number
  readonly timerArmed: boolean
  readonly hostListeners: number
  readonly sessionListeners: number
}

export class HostClient {
  /**
   * Starts the connection (mux + host streams, host.describe) and keeps it up. Outside a DOM
   * (Node, a server render) it starts on the first `subscribe` or operation instead, so a
   * server render, which only reads snapshots, never connects (docs/API.md, "Server rendering").
   * Throws `bad-argument` for `transport: 'websocket'` where there is no global `WebSocket`.
   */
  constructor(options?: HostClientOptions)
  getSnapshot(): ConnectionSnapshot
  /** Returns the unsubscribe function. Listeners run in a microtask, at most once per microtask. */
  subscribe(listener: () => void): () => void
  /** `host.describe` through `call`: the host's result as written (the client checks the same
   * value against its schema at every connect). */
  describe(): Promise<HostRpcResult<HostDescription>>
  /** `session.list` through `call`: one page, no cursor sent. */
  listSessions(): Promise<HostRpcResult<{ items: SessionSummary[] }>>
  /** `session.create` with `options` as its payload (the host checks it; the 2026-08 host also
   * takes `workspaceId`, `sessionId`, `agentPreset`). */
  createSession(options?: { cwd?: string; provider?: string; [member: string]: unknown }): Promise<HostRpcResult<{ sessionId: string }>>
  /** The 2026-08 host: a new session with `sessionId`'s history up to the completed turn
   * `atSeq` falls in (the whole log without it); the child's history ends with a
   * `session/end-seed` event. A host without it resolves `ok:false`, code `'unsupported'`. */
  fork(options: { sessionId: string; atSeq?: number }): Promise<HostRpcResult<{ sessionId: string }>>
  /**
   * Any host method (`session.models`, `workspace.list`, `subagent.list`, …) with the client's
   * envelope, token, deadline (`requestTimeoutMs`) and body bound (`maxResponseBytes`);
   * `payload` (default `{}`) is sent as `JSON.stringify` writes it. Resolves the host's result
   * as it wrote it; never rejects. Throws `bad-argument` for a method that is not a name of
   * letters, digits, `.`, `_` and `-`, or a payload with no JSON form.
   */
  call<M extends string>(method: M, payload?: MethodPayload<M>, options?: CallOptions): Promise<HostRpcResult<MethodValue<M>>>
  /** The 2026-08 host's `session.search`: at most 20 sessions, `hasMore` when the query should
   * be narrowed. A search gives up the one before it (which resolves `'cancelled'`). */
  search(query: string, options?: CallOptions): Promise<HostRpcResult<{ items: SessionSearchItem[]; hasMore: boolean }>>
  /** The 2026-08 host's workspaces and archive set, kept live (loaded on the first call; the
   * same store for every call). Change them with `call('workspace.create' | 'workspace.rename' |
   * …)`: the store shows what the host's frames say, whoever made the change. */
  workspaces(): Promise<WorkspaceStore>
  /** The 2026-08 host's model directory and selection of one session (loaded on the first
   * call; the same store for the same id). Rejects with `bad-argument` for an empty id. */
  models(sessionId: string): Promise<ModelStore>
  /** The 2026-08 host's subagents of one session, kept live (loaded on the first call; the same
   * store for the same id). Rejects with `bad-argument` for an empty id. */
  subagents(parentSessionId: string): Promise<SubagentStore>
  /** The resident Session for the id: the same object for the same id. */
  session(sessionId: string): Session
  /** Empties the local cache: every host's entries (whether or not this client uses it). */
  clearCache(): Promise<void>
  /** `null` when this client connects alone (`share: false`, or no Web Locks/BroadcastChannel). */
  sharing(): ShareState | null
  diagnostics(): HostDiagnostics
  /** Stops streams, timers and in-flight calls; settles every pending operation. Idempotent. */
  close(): void
  [Symbol.dispose](): void
  /** Closes the client and releases its Rust object. */
  free(): void
}

// ---- session ---------------------------------------------------------------------------

/** A content block of a prompt (`{type:'text', text}` and whatever else the host accepts). */
export type ContentBlock = { type: string; [key: string]: unknown }
/** The 2026-08 host takes text and inline images (base64 `data`) in a prompt; history keeps
 * an image as `{type: 'image', attachment: AttachmentRef}` (`attachmentId: 'sha256:…'`), whose
 * bytes `session.readAttachment` reads back. */
export type PromptPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mediaType: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif'; data: string; name?: string }
/** One command of `snapshot.commands` (the 2026-08 host, `commands/list`). */
export interface CommandInfo {
  readonly name: string
  readonly description?: string
  /** Present when the command takes text after its name; `images`: it accepts attached images. */
  readonly input?: { readonly hint?: string; readonly images?: boolean }
}
/** What `session.command` resolves with: `null` when the host has no command for the line. */
export type CommandOutcome = { readonly commandId: string; readonly result: { readonly kind: string; readonly text?: string } } | null
export type QueueAction = { kind: 'edit'; content: ContentBlock[] } | { kind: 'remove' } | { kind: 'steer' }
export interface AttachmentRef {
  readonly attachmentId: string
  readonly mediaType: string
  readonly bytes: number
  readonly width: number
  readonly height: number
  readonly name?: string
}

export type NodeBase = { readonly id: string; readonly seq: number; readonly turn: number | null }

/**
 * A user message. From the host's log, or (`delivery` present) the echo of a prompt this client
 * made that the log does not show yet. Key rows by `node.clientId ?? node.id`: the host's node
 * that replaces an echo carries the echo's id as `clientId`, so the swap re-mounts nothing.
 */
export type UserNode = NodeBase & {
  readonly type: 'user' | 'steering'
  readonly content: unknown
  readonly source: unknown
  /** The prompt's client-minted id (its envelope rpcId): on an echo, and on the host's node of a prompt of this client. */
  readonly clientId?: string
  /** Echoes only (`seq: -1`): where the prompt stands. */
  readonly delivery?: PromptDelivery
  /** Echoes only, `delivery: 'failed'`: why the host refused it. */
  readonly error?: RpcError
}
/** `waiting` (connection down, or its fate being looked up) → `sending` → `sent` (the host accepted it); `failed`: the host refused it (`retry`/`discard`). */
export type PromptDelivery = 'waiting' | 'sending' | 'sent' | 'failed'
export type ContextNode = NodeBase & { readonly type: 'context'; readonly content: unknown; readonly source: unknown }
export type AssistantNode = NodeBase & {
  readonly type: 'assistant'
  readonly step: number
  readonly content: unknown
  readonly provenance: unknown
}
export type ToolNode = NodeBase & {
  readonly type: 'tool'
  readonly step: number
  readonly callId: string
  readonly name: string
  readonly arguments: unknown
  readonly status: 'running' | 'completed' | 'interrupted'
  readonly result: unknown | null
  readonly isError: boolean
}
export type InterruptedNode = NodeBase & { readonly type: 'interrupted'; readonly step: number; readonly text: string; readonly reason: string }
export type PlanModeNode = NodeBase & { readonly type: 'plan-mode'; readonly active: boolean }

export interface PromptOption {
  readonly id: string
  readonly label: string
  readonly description?: string
  readonly recommended?: boolean
}
export interface PromptQuestion {
  readonly id: string
  readonly header?: string
  readonly label: string
  readonly description?: string
  readonly options: readonly PromptOption[]
  readonly multiSelect?: boolean
  readonly allowFreeform?: boolean
  readonly freeformPlaceholder?: string
  readonly required?: boolean
}
export interface UserInputPrompt {
  readonly promptId: string
  readonly title?: string
  readonly description?: string
  readonly questions: readonly PromptQuestion[]
  readonly source: string
}
export interface PromptAnswer {
  readonly questionId: string
  readonly selectedOptionIds?: readonly string[]
  readonly text?: string
}
export type InteractionNode = NodeBase & {
  readonly type: 'interaction'
  readonly prompt: UserInputPrompt
  readonly answers: readonly PromptAnswer[]
  readonly outcome: 'answered' | 'cancelled'
}
export type ProposedPlanNode = NodeBase & {
  readonly type: 'proposed-plan'
  readonly plan: { readonly planId: string; readonly markdown: string; readonly source: 'native' | 'synthesized' }
}

/** The folded, renderable conversation: discriminated on `type`. */
export type ConversationNode =
  | UserNode
  | ContextNode
  | AssistantNode
  | ToolNode
  | InterruptedNode
  | PlanModeNode
  | InteractionNode
  | ProposedPlanNode

export interface PartialNode {
  readonly turn: number
  readonly step: number
  readonly text: string
  readonly reasoning: string
  readonly firstSeq: number
  readonly lastSeq: number
}

export interface RunningToolCall {
  readonly callId: string
  readonly name: string
  readonly turn: number
  readonly step: number
  readonly seq: number
}

export interface Question {
  readonly id: string
  readonly question: string
  readonly header?: string
  readonly detail?: string
  readonly options?: readonly { readonly label: string; readonly description?: string }[]
  readonly multiSelect?: boolean
  /**
   * The 2026-08 host: what answering means. `{kind: 'plan-review', approve}`: answering
   * with the `approve` option leaves plan mode and carries the plan out.
   */
  readonly intent?: { readonly kind: 'plan-review'; readonly approve: string } | { readonly kind: string }
}

/** One prompt in the host's queue (the 2026-08 host, `session/queue`). */
export interface QueuedPrompt {
  readonly id: string
  /** `'queued'` until its turn takes it; other values may come from newer hosts. */
  readonly placement: string
  readonly message: {
    readonly content: readonly ContentBlock[]
    readonly source?: unknown
    readonly role?: string
    readonly id?: string
  }
}

/** Projections the 2026-08 host keeps beside the log; absent on hosts that lack them. */
export interface KnownProjections {
  /** Token accounting of the session so far. */
  readonly tokenUsage?: {
    readonly uncachedInputTokens: number
    readonly outputTokens: number
    readonly cacheReadTokens: number
    readonly cacheWriteTokens: number
  }
  /** How full the model's context is (`{}` before the first request). */
  readonly contextPressure?: {
    readonly pressureTokens?: number
    readonly projectedTokens?: number
    readonly contextWindow?: number
  }
  /** Where the context's tokens go. */
  readonly contextBreakdown?: {
    readonly systemTokens: number
    readonly toolsTokens: number
    readonly messageTokens: number
  }
  /** The title, also surfaced as `snapshot.title`. */
  readonly title?: string | null
}

export type PendingInteraction =
  | {
      /** Pass to `session.respond(key, result)`. */
      readonly key: string
      readonly kind: 'approval'
      /** The envelope rpcId of the requested frame. */
      readonly rpcId: string
      readonly approvalId: string
      readonly toolName: string
      readonly callId?: string
      readonly reason?: string
    }
  | {
      readonly key: string
      readonly kind: 'question'
      readonly rpcId: string
      readonly questions: readonly Question[]
    }

export interface ConversationSnapshot {
  readonly sessionId: string
  readonly openState: 'cold' | 'loading' | 'open' | 'error'
  readonly openError: RpcError | null
  /** The window no longer follows the host's log: its connection ended and no fresh tail page
   * has replaced it yet (a session nobody watches keeps it through a reconnect until watched). */
  readonly stale: boolean
  /** Oldest seq in the window (0 when empty). */
  readonly baseSeq: number
  /** Newest seq in the window (-1 when empty). */
  readonly tailSeq: number
  readonly hasMore: boolean
  readonly loadingOlder: boolean
  readonly nodes: readonly ConversationNode[]
  readonly partial: PartialNode | null
  readonly runningCalls: readonly RunningToolCall[]
  readonly pending: readonly PendingInteraction[]
  /** Host-confirmed only; null = capability absent or not yet known. */
  readonly planMode: PlanModeState | null
  readonly running: boolean
  readonly promptError: { readonly op: 'send' | 'stop'; readonly error: RpcError } | null
  readonly lastAgentError: string | null
  /** Every projection the host keeps, by key (the generic store); the known ones typed. */
  readonly projections: Readonly<Record<string, unknown>> & KnownProjections
  /** Provider-agnostic interaction state (Extension 2); each part null/empty when the host never said. */
  readonly interaction: InteractionState
  /** The latest `session/title` frame's title, else the `title` projection; null before one is set. */
  readonly title: string | null
  /** The host's prompt queue (the 2026-08 host); null when the host sends none. */
  readonly queue: readonly QueuedPrompt[] | null
  /** The session's commands (the 2026-08 host, `commands/list`, kept current on the host's
   * `commands/change`); null before the host listed them and on hosts without commands. */
  readonly commands: readonly CommandInfo[] | null
  /** True while the snapshot is painted from the local cache (`openState: 'open'`, the cached
   * nodes and seqs) and the host has not answered the open yet; false otherwise. */
  readonly cached: boolean
}

export type OperatingMode = 'default' | 'plan' | 'ask' | 'execute' | 'unknown'
export interface ProviderCapabilities {
  readonly supportsPlanMode: boolean
  readonly supportsAskMode: boolean
  readonly supportsStructuredPlanUpdates: boolean
  readonly supportsPlanTextStreaming: boolean
  readonly supportsStructuredUserInput: boolean
  readonly supportsFreeformUserInput: boolean
  readonly supportsExitPlanMode: boolean
}
export interface PlanStep {
  readonly id?: string
  readonly text: string
  readonly status: 'pending' | 'inProgress' | 'completed'
  readonly source: 'native' | 'synthesized'
}
export interface InteractionState {
  readonly mode: { readonly mode: OperatingMode; readonly native?: string } | null
  readonly capabilities: ProviderCapabilities | null
  readonly planSteps: { readonly explanation?: string; readonly steps: readonly PlanStep[] } | null
  readonly planText: { readonly itemId: string; readonly turn: number | null; readonly text: string; readonly done: boolean } | null
  readonly proposedPlan: { readonly planId: string; readonly markdown: string; readonly source: 'native' | 'synthesized' } | null
  readonly userInput: readonly UserInputPrompt[]
}

export interface SessionDiagnostics {
  readonly staleResponses: number
  readonly duplicateEvents: number
  readonly rejectedPages: number
  readonly repairs: number
  /** Live frames dropped while loading: past the buffer's 10,000 frames / 16 MiB, or held for a repair that was given up. */
  readonly bufferOverflows: number
  /** Repairs given up: a claimed tail (`lastSeq`, frames past a gap) that 12 tail pulls never brought. */
  readonly unreachedTails: number
  /** Approval/question requests dropped: 256 were pending already. */
  readonly pendingDropped: number
  readonly planResponsesFenced: number
  /** Times the session was released to `cold` because nobody watched it. */
  readonly releases: number
  readonly inFlight: number
  /** Bumps on every open/resync (a window rebuild). */
  readonly openGeneration: number
  /** Prompts of the outbox waiting to be sent. */
  readonly promptsWaiting: number
  /** Prompts sent again after a request that got no answer (the host's tail did not show them). */
  readonly promptsResent: number
  /** Prompts whose unanswered request the look-up found delivered (not sent again). */
  readonly promptsDeduplicated: number
}

export class Session {
  private constructor()
  readonly sessionId: string
  /** Idempotent; concurrent calls share one history request. Resolves once the tail window is installed (or the open failed into openState 'error'). */
  open(): Promise<void>
  /** Rebuilds from a fresh tail page (new open generation). */
  resync(): void
  /** One in flight at a time. */
  loadOlder(): Promise<void>
  /**
   * Shows the prompt at once (an echo in `nodes`) and sends it when the connection allows, under
   * its own id. Resolves when its fate is known: accepted by the host (its answer, or found in the
   * host's log or queue after an unanswered request), refused (`ok:false`, the echo stays `failed`),
   * or refused locally (`bad-request`, `details.reason: 'outbox-full'`). Never resolves `ok:false`
   * for a transport failure: the prompt waits and is sent again.
   */
  prompt(content: (PromptPart | ContentBlock)[], mode?: 'queue' | 'steer'): Promise<RpcResult<{ accepted: true }>>
  /** Sends a `failed` prompt (by its `clientId`) again; resolves as `prompt` does. */
  retry(clientId: string): Promise<RpcResult<{ accepted: true }>>
  /** Drops a `failed` prompt (its echo goes); `ok:false` when no failed prompt has the id. */
  discard(clientId: string): Promise<RpcResult<null>>
  /** The 2026-08 host: runs a slash-command line (`'/plan'`, `'/feedback great'`). */
  command(line: string): Promise<RpcResult<CommandOutcome>>
  /** The 2026-08 host: renames the session; resolves with the title as the host normalized it. */
  rename(title: string): Promise<RpcResult<{ title: string; seq: number }>>
  /** The 2026-08 host: edits, removes or steers a queued prompt (`snapshot.queue[i].id`). */
  updateQueue(itemId: string, action: QueueAction): Promise<RpcResult<{ accepted: true }>>
  /** The 2026-08 host: one image attachment with its bytes (base64 `data`). */
  readAttachment(attachmentId: string): Promise<RpcResult<{ attachment: AttachmentRef; data: string }>>
  cancel(): Promise<RpcResult<{ accepted: true }>>
  setPlanMode(active: boolean): Promise<RpcResult<PlanModeState | null>>
  /** Answers a pending approval/question. */
  respond(key: string, result: RpcResult<unknown>): Promise<RpcReceipt>
  /** Extension 2: answers a pending structured user-input prompt (snapshot.interaction.userInput). */
  answer(promptId: string, answers: PromptAnswer[]): Promise<RpcResult<RpcReceipt>>
  /** Frozen; the same object until something changes. */
  getSnapshot(): ConversationSnapshot
  /** A session with listeners is watched: it stays resident and reconnects resync it. */
  subscribe(listener: () => void): () => void
  diagnostics(): SessionDiagnostics | null
  /** Does nothing: a Session belongs to its HostClient (close that instead). */
  [Symbol.dispose](): void
  /** Does nothing (kept so wasm-bindgen-style code does not break the resident object). */
  free(): void
}

// ---- live session list -----------------------------------------------------------------

/** One session of `host.getSessions()`. Frozen; the same object while it does not change. */
export interface SessionListItem {
  readonly sessionId: string
  /** The host's latest title (`session/title`), `null` until the first message with text. */
  readonly title: string | null
  /** A turn is open (it may be waiting on the user: see `waiting`). */
  readonly running: boolean
  /** The open turn waits on the user's answer (question, approval, user-input prompt). Always
   * false when not running, and on hosts that do not send it (reference-host extension). */
  readonly waiting: boolean
  /** Epoch ms of the session's last known activity; the list is ordered by it, newest first. */
  readonly updatedAt: number
  /** The session it was forked or spawned from. */
  readonly parentSessionId?: string
  readonly cwd?: string
  /** `'subagent'` for a child a turn spawned (the 2026-08 host; `subagents(parentSessionId)`
   *  lists them with their state); absent for a fork and a top-level session. Any other word
   *  a host writes comes through as written. */
  readonly origin?: 'subagent' | (string & {})
}

/** The live session list: seeded by `session.list` on every (re)connect, then kept current
 * by host-stream frames and `session/title` frames; no polling. */
export interface SessionListSnapshot {
  /** `loading` until the first seed answers; `error` when the last seed failed (items are what
   * was known before; it is retried while the connection stays up). */
  readonly state: 'loading' | 'ready' | 'error'
  readonly items: readonly SessionListItem[]
  readonly error: RpcError | null
}

export interface HostClient {
  /** The live session list: the same frozen object until it changes; listeners via `subscribe`. */
  getSessions(): SessionListSnapshot
}
