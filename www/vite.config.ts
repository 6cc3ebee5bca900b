import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// The demo consumes `agent-session` exactly as a user would (file:.. dependency). Its build
// holds the demo only: the pages the tests and benchmarks drive build apart (tests/pages).
// - dedupe: the package's react/ helper lives outside this folder (symlink), so its `react`
//   import must resolve to this app's single copy.
// - optimizeDeps.exclude: keep wasm-bindgen's `new URL('…_bg.wasm', import.meta.url)` intact
//   so Vite emits the .wasm as an asset (dev and build alike).
export default defineConfig({
  plugins: [react()],
  resolve: { dedupe: ['react', 'react-dom'] },
  optimizeDeps: { exclude: ['agent-session'] },
  server: { fs: { allow: ['..'] } },
  build: {
    target: 'es2022',
    sourcemap: false,
  },
})
