// The component test both environments run: the README's code (./readme.tsx) rendered with
// react-dom against the real reference host, driven as a user would.
import { act } from 'react'
import { createRoot } from 'react-dom/client'
import { expect, vi } from 'vitest'
import { App } from './readme'

;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

async function until(what: string, ok: () => boolean, ms = 15000) {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${document.body.textContent}`)
    await act(() => new Promise((r) => setTimeout(r, 20)))
  }
}

export async function conversationFlow() {
  const errors = vi.spyOn(console, 'error')
  const root = document.body.appendChild(document.createElement('div'))
  await act(() => createRoot(root).render(<App />))
  const q = (sel: string) => root.querySelector<HTMLElement>(sel)
  await until('the connection to open', () => q('#conn')?.textContent === 'open')
  act(() => q('#create')!.click())
  const send = () => [...root.querySelectorAll('button')].find((b) => b.textContent === 'send')
  await until('the session to open', () => send() !== undefined)
  act(() => send()!.click())
  await until('the streamed reply', () => (q('.node.assistant')?.textContent ?? '').includes('You asked: "hi"'))
  expect(errors).not.toHaveBeenCalled()
}
