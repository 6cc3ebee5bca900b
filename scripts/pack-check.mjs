#!/usr/bin/env node
// Packaging check: `npm pack` the root package, install the tarball into a fresh
// Vite + React + TypeScript app (files written directly, no create-vite), then
// `tsc --noEmit` (strict, skipLibCheck off so the package's .d.ts are checked too) and
// `vite build` must pass, and the build must carry the .wasm asset. The tarball's file list
// is asserted, and an unbuilt tree without build tools must refuse to pack. Prints one closing line.
// Env: PACK_CHECK_KEEP=1 keeps the temp dir.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
const dir = mkdtempSync(join(tmpdir(), 'agent-session-pack-check-'))
const started = Date.now()

function sh(cmd, args, cwd, capture = false) {
  return execFileSync(cmd, args, { cwd, stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } })
}
function fail(msg) {
  console.error(msg)
  console.log(`pack-check: FAILED (${msg.split('\n')[0]})`)
  if (process.env.PACK_CHECK_KEEP !== '1') rmSync(dir, { recursive: true, force: true })
  process.exit(1)
}

try {
  if (!existsSync(join(ROOT, 'pkg', 'agent_session_bg.wasm'))) {
    console.log('[pack-check] pkg/ missing: npm run build')
    sh('npm', ['run', 'build'], ROOT)
  }

  // 1. the tarball
  const packOut = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', dir], ROOT, true))
  const info = packOut[0]
  const tarball = join(dir, info.filename)
  const files = info.files.map((f) => f.path)
  // Exactly these files: the entries, the local cache and the many-tabs layer (loaded on demand), the glue and its one
  // snippet, the module, the typings.
  const expected = ['README.md', 'cache.js', 'first.js', 'index.js', 'models.js', 'node.js', 'package.json', 'pkg/agent_session.js', 'pkg/agent_session_bg.wasm', 'pkg/cache.js', 'pkg/index.js', 'pkg/models.js', 'pkg/share.js', 'pkg/snippets/*/src/wasm/shell.js', 'pkg/store.js', 'pkg/subagents.js', 'pkg/workspaces.js', 'react/index.d.ts', 'react/index.js', 'share.js', 'store.js', 'subagents.js', 'svelte/index.d.ts', 'svelte/index.js', 'types/index.d.ts', 'vue/index.d.ts', 'vue/index.js', 'workspaces.js']
  const shipped = files.map((f) => f.replace(/^pkg\/snippets\/[^/]+\//, 'pkg/snippets/*/')).sort()
  if (JSON.stringify(shipped) !== JSON.stringify(expected)) fail(`tarball files differ from the expected list:\n  got:      ${shipped.join(', ')}\n  expected: ${expected.join(', ')}`)

  // A tree that cannot build refuses to pack (npm's prepack) instead of shipping no wasm.
  const bare = join(dir, 'unbuilt')
  mkdirSync(join(bare, 'scripts'), { recursive: true })
  for (const f of ['package.json', 'index.js', 'cache.js', 'share.js', 'workspaces.js', 'models.js', 'subagents.js', 'store.js', 'node.js', 'first.js', 'README.md', 'scripts/prepack.sh']) writeFileSync(join(bare, f), readFileSync(join(ROOT, f)))
  const refused = spawnSync('npm', ['pack', '--dry-run'], { cwd: bare, encoding: 'utf8', env: { ...process.env, PATH: '/usr/bin:/bin' } })
  if (refused.status === 0 || !/prepack: REFUSED/.test(refused.stderr)) fail(`npm pack of an unbuilt tree without build tools did not refuse (exit ${refused.status}): ${refused.stderr}`)
  console.log(`[pack-check] ${info.filename}: ${files.length} files, ${(info.size / 1024).toFixed(1)} kB packed, ${(info.unpackedSize / 1024).toFixed(1)} kB unpacked`)

  // 2. a fresh app that uses the package the documented way
  const app = join(dir, 'app')
  mkdirSync(join(app, 'src'), { recursive: true })
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'pack-check-app',
        private: true,
        type: 'module',
        dependencies: { 'agent-session': `file:${tarball}`, react: '^19.0.0', 'react-dom': '^19.0.0' },
        devDependencies: { '@types/react': '^19.0.0', '@types/react-dom': '^19.0.0', '@vitejs/plugin-react': '^6.0.0', typescript: '^5.6.0', vite: '~8.3.4' },
      },
      null,
      2,
    ),
  )
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM', 'DOM.Iterable', 'ESNext.Disposable'],
          module: 'ESNext',
          moduleResolution: 'Bundler',
          jsx: 'react-jsx',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noUnusedLocals: true,
          isolatedModules: true,
          skipLibCheck: false,
          types: ['vite/client'],
          noEmit: true,
        },
        include: ['src'],
      },
      null,
      2,
    ),
  )
  writeFileSync(join(app, 'vite.config.ts'), `import { defineConfig } from 'vite'\nimport react from '@vitejs/plugin-react'\nexport default defineConfig({ plugins: [react()] })\n`)
  writeFileSync(
    join(app, 'index.html'),
    `<!doctype html><html><head><meta charset="UTF-8"><title>pack-check</title></head><body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>\n`,
  )
  writeFileSync(
    join(app, 'src', 'main.tsx'),
    `import { createRoot } from 'react-dom/client'
import init, { HostClient, type ConversationNode, type ConversationSnapshot, type Session } from 'agent-session'
import { useConnection, useSession } from 'agent-session/react'

function describeNode(n: ConversationNode): string {
  switch (n.type) {
    case 'user':
    case 'steering':
    case 'context':
      return n.type
    case 'assistant':
      return 'assistant step ' + n.step
    case 'tool':
      return n.name + ' ' + n.status + (n.isError ? ' (error)' : '')
    case 'interrupted':
      return n.reason + ': ' + n.text
    case 'plan-mode':
      return n.active ? 'plan on' : 'plan off'
    case 'interaction':
      return n.prompt.promptId + ' ' + n.outcome
    case 'proposed-plan':
      return n.plan.markdown
  }
}

// \`call\` knows the 2026-08 methods' shapes; any other name takes an object and resolves unknown.
async function models(host: HostClient, sessionId: string): Promise<string> {
  const r = await host.call('session.models', { sessionId })
  if (!r.ok) return r.error.code === 'unsupported' ? 'none' : r.error.message
  const picked = await host.call('session.selectModel', { sessionId, provider: r.value.current.provider, model: r.value.groups[0]?.models[0]?.id ?? r.value.current.model })
  // @ts-expect-error: the payload is checked against the method's
  void host.call('workspace.rename', { workspaceId: 'w' })
  const other = await host.call('goal.list', { any: 1 })
  const found = await host.search('fox', { signal: new AbortController().signal })
  return (picked.ok ? picked.value.selected.model : '') + (other.ok ? String(other.value) : other.error.code) + (found.ok ? found.value.items.map((i) => i.snippet).join() : '')
}

function planLabel(s: ConversationSnapshot): string {
  const p = s.planMode
  if (p === null) return 'unavailable'
  if (p.pending !== undefined && p.pending !== p.active) return p.pending ? 'starts next request' : 'ends next request'
  return p.active ? 'on' : 'off'
}

function Conversation({ session }: { session: Session }) {
  const snap = useSession(session)
  const count = useSession(session, (s) => s.nodes.length)
  return (
    <div>
      <p>{planLabel(snap)} · {count} nodes · {snap.partial?.text ?? ''}</p>
      <ul>{snap.nodes.map((n) => <li key={n.id}>{describeNode(n)}</li>)}</ul>
      {snap.pending.map((p) => (
        <button key={p.key} onClick={() => void session.respond(p.key, { ok: true, value: p.kind === 'approval' ? { outcome: 'allowed-once' } : { answers: {} } })}>
          {p.kind === 'approval' ? p.toolName : p.questions.map((q) => q.question).join(' ')}
        </button>
      ))}
      <button onClick={() => void session.prompt([{ type: 'text', text: 'hi' }], 'queue').then((r) => { if (!r.ok) console.error(r.error.code) })}>send</button>
      <button onClick={() => void session.setPlanMode(true)}>plan</button>
    </div>
  )
}

function App({ host }: { host: HostClient }) {
  const conn = useConnection(host)
  const retryIn = conn.retryAt === null ? null : Math.max(0, conn.retryAt - Date.now())
  return (
    <div>
      <p>{conn.state} #{conn.generation} attempt {conn.attempt} {retryIn ?? ''} {conn.lastError ?? ''}</p>
      <Conversation session={host.session('session-1')} />
      <button onClick={() => void models(host, 'session-1').then((m) => console.log(m))}>models</button>
    </div>
  )
}

await init()
const host = new HostClient({ baseUrl: location.origin, backoff: { baseMs: 500, maxMs: 10000 } })
const listed = await host.listSessions()
if (listed.ok) console.log(listed.value.items.map((s) => s.sessionId + ' ' + s.updatedAt))
createRoot(document.getElementById('root')!).render(<App host={host} />)
`,
  )

  // 3. install, typecheck, build
  sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], app)
  console.log('[pack-check] tsc --noEmit (strict)')
  sh('npx', ['--no-install', 'tsc', '--noEmit', '-p', '.'], app)
  console.log('[pack-check] vite build')
  sh('npx', ['--no-install', 'vite', 'build', '--logLevel', 'warn'], app)
  const assets = readdirSync(join(app, 'dist', 'assets'))
  const wasm = assets.find((f) => f.endsWith('.wasm'))
  if (!wasm) fail(`vite build emitted no .wasm asset (assets: ${assets.join(', ')})`)
  const wasmKb = (statSync(join(app, 'dist', 'assets', wasm)).size / 1024).toFixed(1)
  const secs = ((Date.now() - started) / 1000).toFixed(1)
  if (process.env.PACK_CHECK_KEEP !== '1') rmSync(dir, { recursive: true, force: true })
  else console.log(`[pack-check] kept ${dir}`)
  console.log(`pack-check: ok (${info.filename}, ${files.length} files; strict tsc ok; vite build ok with ${wasm} ${wasmKb} kB; ${secs}s)`)
} catch (e) {
  fail(String(e?.message ?? e))
}
