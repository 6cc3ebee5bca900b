import { Fragment, memo, type ReactNode } from 'react'

// A deliberately small markdown subset rendered as React elements (text nodes only — no
// HTML is ever injected): headings, ordered/unordered lists, fenced code, paragraphs,
// inline `code` and **bold**.

function inline(text: string, keyBase: string): ReactNode[] {
  const out: ReactNode[] = []
  const re = /(`[^`\n]+`|\*\*[^*\n]+\*\*)/g
  let last = 0
  let m: RegExpExecArray | null
  let i = 0
  while ((m = re.exec(text)) !== null) {
    if (m.index > last) out.push(text.slice(last, m.index))
    const tok = m[0]
    if (tok.startsWith('`')) out.push(<code key={`${keyBase}-${i++}`}>{tok.slice(1, -1)}</code>)
    else out.push(<strong key={`${keyBase}-${i++}`}>{tok.slice(2, -2)}</strong>)
    last = m.index + tok.length
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}

type Block =
  | { t: 'h'; level: number; text: string }
  | { t: 'ol' | 'ul'; items: string[] }
  | { t: 'code'; text: string }
  | { t: 'p'; text: string }

function parse(src: string): Block[] {
  const lines = src.split('\n')
  const blocks: Block[] = []
  let para: string[] = []
  const flush = () => {
    if (para.length) blocks.push({ t: 'p', text: para.join('\n') })
    para = []
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    if (line.startsWith('```')) {
      flush()
      const code: string[] = []
      i++
      while (i < lines.length && !(lines[i] ?? '').startsWith('```')) code.push(lines[i++] ?? '')
      blocks.push({ t: 'code', text: code.join('\n') })
      continue
    }
    const h = /^(#{1,4})\s+(.*)$/.exec(line)
    if (h) {
      flush()
      blocks.push({ t: 'h', level: h[1]!.length, text: h[2] ?? '' })
      continue
    }
    const ol = /^\s*\d+[.)]\s+(.*)$/.exec(line)
    const ul = /^\s*[-*]\s+(.*)$/.exec(line)
    if (ol || ul) {
      flush()
      const t = ol ? 'ol' : 'ul'
      const prev = blocks[blocks.length - 1]
      const item = (ol ?? ul)![1] ?? ''
      if (prev && prev.t === t) prev.items.push(item)
      else blocks.push({ t, items: [item] })
      continue
    }
    if (line.trim() === '') {
      flush()
      continue
    }
    para.push(line)
  }
  flush()
  return blocks
}

export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  const blocks = parse(text)
  return (
    <div className="md">
      {blocks.map((b, i) => {
        const last = streaming && i === blocks.length - 1 ? <span className="caret" aria-hidden /> : null
        switch (b.t) {
          case 'h':
            return (
              <div key={i} className={`md-h md-h${b.level}`}>
                {inline(b.text, `h${i}`)}
                {last}
              </div>
            )
          case 'code':
            return (
              <pre key={i} className="md-code">
                {b.text}
                {last}
              </pre>
            )
          case 'ol':
          case 'ul': {
            const items = b.items.map((it, j) => <li key={j}>{inline(it, `l${i}-${j}`)}</li>)
            return (
              <Fragment key={i}>
                {b.t === 'ol' ? <ol>{items}</ol> : <ul>{items}</ul>}
                {last}
              </Fragment>
            )
          }
          default:
            return (
              <p key={i}>
                {inline(b.text, `p${i}`)}
                {last}
              </p>
            )
        }
      })}
      {streaming && blocks.length === 0 ? <span className="caret" aria-hidden /> : null}
    </div>
  )
})
