// Example prompts for an empty conversation: each shows one of the cards the reference
// host's scripted agent can produce (its markers are documented in host/README.md).

export interface Example {
  id: string
  label: string
  hint: string
  text: string
  /** Turn plan mode on before sending. */
  plan?: boolean
}

export const EXAMPLES: Example[] = [
  { id: 'question', label: 'Ask me a question', hint: 'a question card', text: 'Help me pick an approach for the settings page [question]' },
  { id: 'approval', label: 'Run a command', hint: 'an approval card', text: 'Check the build with a shell command [approval]' },
  { id: 'tool', label: 'Read a file', hint: 'a tool card', text: 'Summarise the README [tool]' },
  { id: 'plan', label: 'Plan before changing', hint: 'plan mode', text: 'Add a dark mode to the settings page', plan: true },
]

export function Examples({ onPick, disabled }: { onPick(e: Example): void; disabled?: boolean }) {
  return (
    <div className="examples" data-testid="examples">
      <p className="examples-title">Try one of these:</p>
      <ul>
        {EXAMPLES.map((e) => (
          <li key={e.id}>
            <button className="example" data-testid={`example-${e.id}`} disabled={disabled} onClick={() => onPick(e)}>
              <span className="example-label">{e.label}</span>
              <span className="example-hint">shows {e.hint}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  )
}
