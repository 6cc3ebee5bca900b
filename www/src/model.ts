// Defensive readers over the snapshot values the demo renders. The package's .d.ts is the
// source of truth for the top-level shapes; node payloads and the interaction extension are
// read field by field so an older/newer package never crashes the UI.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
type Rec = Record<string, unknown>

export function rec(v: unknown): Rec | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : null
}
export function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : []
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined
}
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined
}
export function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined
}
export function field(v: unknown, key: string): unknown {
  return rec(v)?.[key]
}

/** Plain text of a content-block array (text blocks joined; others summarized). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  const parts: string[] = []
  for (const block of arr(content)) {
    const b = rec(block)
    if (!b) continue
    const t = str(b.text)
    if (t !== undefined) parts.push(t)
    else if (str(b.type) && str(b.type) !== 'image') parts.push(`[${str(b.type)}]`)
  }
  return parts.join('\n')
}

/** A JSON value as compact display text (tool arguments, results). */
export function preview(v: unknown, max = 2000): string {
  let s: string
  if (typeof v === 'string') s = v
  else if (Array.isArray(v) && v.every((b) => rec(b) && typeof rec(b)?.text === 'string')) s = contentText(v)
  else {
    try {
      s = JSON.stringify(v, null, 2) ?? ''
    } catch {
      s = String(v)
    }
  }
  return s.length > max ? s.slice(0, max) + '…' : s
}

/** An image part as history keeps it (the 2026-08 host): a reference, read back on demand. */
export type ImageRef = { attachmentId: string; mediaType?: string; name?: string }

export function contentImages(content: unknown): ImageRef[] {
  const out: ImageRef[] = []
  for (const block of arr(content)) {
    const a = rec(rec(block)?.attachment)
    const id = str(a?.attachmentId)
    if (rec(block)?.type === 'image' && id) out.push({ attachmentId: id, mediaType: str(a?.mediaType), name: str(a?.name) })
  }
  return out
}

export type NodeView =
  | { kind: 'user'; id: string; text: string; steering: boolean; images: ImageRef[] }
  | { kind: 'context'; id: string; text: string }
  | { kind: 'assistant'; id: string; text: string; seq: number }
  | { kind: 'tool'; id: string; name: string; callId: string; args: unknown; status: string; result: unknown; isError: boolean }
  | { kind: 'interrupted'; id: string; text: string; reason: string }
  | { kind: 'plan-mode'; id: string; active: boolean }
  | { kind: 'interaction'; id: string; title: string; lines: string[]; outcome: string }
  | { kind: 'proposed-plan'; id: string; planId: string; markdown: string; source: string }
  | { kind: 'unknown'; id: string; type: string }

export function nodeView(node: unknown, index: number): NodeView {
  const n = rec(node) ?? {}
  const id = str(n.id) ?? `n${num(n.seq) ?? index}`
  const type = str(n.type) ?? str(n.kind) ?? 'unknown'
  switch (type) {
    case 'user':
    case 'steering':
      return { kind: 'user', id, text: contentText(n.content), steering: type === 'steering' || n.steering === true, images: contentImages(n.content) }
    case 'context':
      return { kind: 'context', id, text: contentText(n.content) }
    case 'assistant':
      return { kind: 'assistant', id, text: contentText(n.content), seq: num(n.seq) ?? -1 }
    case 'tool':
      return {
        kind: 'tool',
        id,
        name: str(n.name) ?? 'tool',
        callId: str(n.callId) ?? '',
        args: n.arguments,
        status: str(n.status) ?? 'completed',
        result: n.result,
        isError: n.isError === true,
      }
    case 'interrupted':
      return { kind: 'interrupted', id, text: str(n.text) ?? '', reason: str(n.reason) ?? 'interrupted' }
    case 'plan-mode':
      return { kind: 'plan-mode', id, active: n.active === true }
    case 'interaction':
    case 'prompt-resolved':
    case 'user-input': {
      const prompt = rec(n.prompt) ?? {}
      const questions = arr(prompt.questions)
      const answers = arr(n.answers)
      const lines: string[] = []
      for (const a of answers) {
        const ar = rec(a)
        if (!ar) continue
        const q = questions.map(rec).find((x) => x && x.id === ar.questionId)
        const opts = arr(q?.options).map(rec)
        const picked = arr(ar.selectedOptionIds)
          .map((oid) => str(opts.find((o) => o && o.id === oid)?.label) ?? String(oid))
          .concat(str(ar.text) ? [str(ar.text) as string] : [])
        lines.push(`${str(q?.label) ?? str(ar.questionId) ?? ''}: ${picked.join(', ')}`)
      }
      return { kind: 'interaction', id, title: str(prompt.title) ?? 'Question', lines, outcome: str(n.outcome) ?? 'answered' }
    }
    case 'proposed-plan': {
      const plan = rec(n.plan) ?? {}
      return { kind: 'proposed-plan', id, planId: str(plan.planId) ?? '', markdown: str(plan.markdown) ?? '', source: str(plan.source) ?? '' }
    }
    default:
      return { kind: 'unknown', id, type }
  }
}

// ---- interaction extension (snapshot.interaction) -------------------------------------

export interface Capabilities {
  supportsPlanMode: boolean
  supportsAskMode: boolean
  supportsStructuredPlanUpdates: boolean
  supportsPlanTextStreaming: boolean
  supportsStructuredUserInput: boolean
  supportsFreeformUserInput: boolean
  supportsExitPlanMode: boolean
}
export interface PlanStepView {
  id?: string
  text: string
  status: 'pending' | 'inProgress' | 'completed'
  source: string
}
export interface PromptOptionView {
  id: string
  label: string
  description?: string
  recommended?: boolean
}
export interface PromptQuestionView {
  id: string
  header?: string
  label: string
  description?: string
  options: PromptOptionView[]
  multiSelect: boolean
  allowFreeform: boolean
  freeformPlaceholder?: string
  required: boolean
}
export interface UserInputPromptView {
  promptId: string
  title?: string
  description?: string
  questions: PromptQuestionView[]
  source: string
}
export interface InteractionView {
  mode: { mode: string; native?: string } | null
  capabilities: Capabilities | null
  planSteps: { explanation?: string; steps: PlanStepView[] } | null
  planText: string | null
  /** The plan prose item is complete (`plan/text-done`). */
  planTextDone: boolean
  proposedPlan: { planId: string; markdown: string; source: string } | null
  prompts: UserInputPromptView[]
}

const CAP_KEYS: (keyof Capabilities)[] = [
  'supportsPlanMode',
  'supportsAskMode',
  'supportsStructuredPlanUpdates',
  'supportsPlanTextStreaming',
  'supportsStructuredUserInput',
  'supportsFreeformUserInput',
  'supportsExitPlanMode',
]

function readCaps(v: unknown): Capabilities | null {
  const r = rec(v)
  if (!r) return null
  const out = {} as Capabilities
  for (const k of CAP_KEYS) out[k] = r[k] === true
  return out
}

function readPrompt(v: unknown): UserInputPromptView | null {
  const p = rec(v)
  const promptId = str(p?.promptId)
  if (!p || !promptId) return null
  const questions: PromptQuestionView[] = []
  for (const q of arr(p.questions)) {
    const qr = rec(q)
    const id = str(qr?.id)
    if (!qr || !id) continue
    const options: PromptOptionView[] = []
    for (const o of arr(qr.options)) {
      const or = rec(o)
      const oid = str(or?.id)
      if (!or || !oid) continue
      options.push({ id: oid, label: str(or.label) ?? oid, description: str(or.description), recommended: or.recommended === true })
    }
    questions.push({
      id,
      header: str(qr.header),
      label: str(qr.label) ?? str(qr.question) ?? id,
      description: str(qr.description),
      options,
      multiSelect: qr.multiSelect === true,
      allowFreeform: qr.allowFreeform === true,
      freeformPlaceholder: str(qr.freeformPlaceholder),
      required: qr.required === true,
    })
  }
  return { promptId, title: str(p.title), description: str(p.description), questions, source: str(p.source) ?? '' }
}

/** Reads `snapshot.interaction` when the package provides it (null when absent). */
export function interactionView(snapshot: unknown): InteractionView | null {
  let it = rec(field(snapshot, 'interaction'))
  if (!it) {
    // Older packages: the same whole values are in the generic projection store.
    const pr = rec(field(snapshot, 'projections'))
    if (!pr || !Object.keys(pr).some((k) => k.startsWith('interaction/'))) return null
    it = {
      mode: pr['interaction/mode'],
      capabilities: pr['interaction/capabilities'],
      planSteps: pr['interaction/plan'],
      proposedPlan: pr['interaction/proposedPlan'],
      userInput: pr['interaction/userInput'],
    }
  }
  const modeR = rec(it.mode)
  const mode = modeR && str(modeR.mode) ? { mode: str(modeR.mode) as string, native: str(modeR.native) } : null
  const stepsR = rec(it.planSteps)
  const planSteps = stepsR
    ? {
        explanation: str(stepsR.explanation),
        steps: arr(stepsR.steps)
          .map(rec)
          .filter((s): s is Rec => !!s && typeof s.text === 'string')
          .map((s) => ({
            id: str(s.id),
            text: s.text as string,
            status: (s.status === 'inProgress' || s.status === 'completed' ? s.status : 'pending') as PlanStepView['status'],
            source: str(s.source) ?? 'native',
          })),
      }
    : null
  const pt = it.planText
  const planText = typeof pt === 'string' ? pt : (str(field(pt, 'text')) ?? null)
  const pp = rec(it.proposedPlan)
  const proposedPlan =
    pp && str(pp.markdown) !== undefined
      ? { planId: str(pp.planId) ?? '', markdown: str(pp.markdown) as string, source: str(pp.source) ?? '' }
      : null
  const ui = it.userInput
  const promptList = Array.isArray(ui) ? ui : arr(field(ui, 'prompts'))
  const prompts = promptList.map(readPrompt).filter((p): p is UserInputPromptView => p !== null)
  const planTextDone = field(pt, 'done') === true
  return { mode, capabilities: readCaps(it.capabilities), planSteps, planText: planText || null, planTextDone, proposedPlan, prompts }
}

export function relativeTime(ms: number, now = Date.now()): string {
  const d = Math.max(0, now - ms)
  if (d < 45_000) return 'just now'
  if (d < 3_600_000) return `${Math.round(d / 60_000)} min ago`
  if (d < 86_400_000) return `${Math.round(d / 3_600_000)} h ago`
  return new Date(ms).toLocaleDateString()
}
