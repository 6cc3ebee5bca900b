// A server component rendering the README's client module (prerendered by `next build`).
import { App } from './readme'

export default function Page() {
  return <App />
}
