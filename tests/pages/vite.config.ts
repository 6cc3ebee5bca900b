import { defineConfig } from 'vite'
import { resolve } from 'node:path'

// The harness pages: each one the built package as an app imports it (`file:../..`
// dependency), plus what one test or benchmark observes from outside the package. Kept out of
// the demo's build so the demo ships only the demo, and built into target/pages (ignored): a
// test run leaves the tree as it found it.
// - optimizeDeps.exclude: keep wasm-bindgen's `new URL('…_bg.wasm', import.meta.url)` intact
//   so Vite emits the .wasm as an asset (dev and build alike).
const here = import.meta.dirname
export default defineConfig({
  optimizeDeps: { exclude: ['agent-session'] },
  server: { fs: { allow: ['../..'] } },
  build: {
    target: 'es2022',
    sourcemap: false,
    outDir: resolve(here, '../../target/pages'),
    emptyOutDir: true,
    rollupOptions: {
      input: {
        bench: resolve(here, 'bench.html'),
        'bench-memory': resolve(here, 'bench-memory.html'),
        lifetimes: resolve(here, 'lifetimes.html'),
        cache: resolve(here, 'cache.html'),
      },
    },
  },
})
