import { createRoot } from 'react-dom/client'
import { App } from './readme'

createRoot(document.getElementById('root')!).render(<App />)
