import { memo } from 'react'
import ReactMarkdown, { type Components } from 'react-markdown'
import remarkGfm from 'remark-gfm'
import rehypeHighlight from 'rehype-highlight'
import 'highlight.js/styles/github.css'

// Agents answer in Markdown: rendered fully (GFM tables, task lists, strikethrough, autolinks,
// fenced code with highlighting) by react-markdown, which is safe by default: raw HTML in the
// text is not rendered (no rehype-raw here) and unsafe URLs (`javascript:` …) are dropped by
// its default URL transform. Nothing goes through `dangerouslySetInnerHTML`.

const components: Components = {
  // Links leave the app in a new tab and do not hand it a window reference.
  // A link whose URL the transform dropped (`javascript:` …) is plain text, not a dead link.
  a: ({ node: _node, href, ...props }) =>
    href ? <a {...props} href={href} target="_blank" rel="noopener noreferrer" /> : <span {...props} />,
  // A reply's headings are styled text, not page headings (the page outline stays the app's).
  h1: ({ node: _node, ...props }) => <div className="md-h md-h1" {...props} />,
  h2: ({ node: _node, ...props }) => <div className="md-h md-h2" {...props} />,
  h3: ({ node: _node, ...props }) => <div className="md-h md-h3" {...props} />,
  h4: ({ node: _node, ...props }) => <div className="md-h md-h4" {...props} />,
  pre: ({ node: _node, ...props }) => <pre className="md-code" {...props} />,
  table: ({ node: _node, ...props }) => (
    <div className="md-table">
      <table {...props} />
    </div>
  ),
}

const remarkPlugins = [remarkGfm]
const rehypePlugins = [rehypeHighlight]

export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
      {streaming ? <span className="caret" aria-hidden /> : null}
    </div>
  )
})
