import { defineConfig } from 'vitest/config'

// Nothing agent-session needs: the DOM environment is chosen per file (`@vitest-environment`).
export default defineConfig({ test: { include: ['src/**/*.test.tsx'], testTimeout: 20000 } })
