import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// `base: './'`: the build is served from a subdirectory of the reference host.
export default defineConfig({ base: './', plugins: [react()] })
