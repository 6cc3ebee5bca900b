import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// The two lines agent-session needs on Vite 6 (docs/API.md, "Bundlers"): a build target with
// top-level await, and no dep pre-bundling of the package (it would move the glue away from
// its .wasm in `vite` dev). `base: './'`: served from a subdirectory of the reference host.
export default defineConfig({
  base: './',
  plugins: [react()],
  build: { target: 'es2022' },
  optimizeDeps: { exclude: ['agent-session'] },
})
