#!/usr/bin/env node
// Renames the glue's side of the wasm module's imports and exports after
// `wasm-opt --minify-imports-and-exports-and-modules` (scripts/build.sh) shortened them.
//
// Why: wasm-bindgen names every import `__wbg_<name>_<16 hex digits>` under the module
// "./agent_session_bg.js", and those names sit once in the module and once in the glue, where
// gzip cannot shorten the hex. Measured: -1.9 KB gzipped on the .wasm alone.
//
// The rename is checked, not hoped for: every export the glue calls and every import it
// provides must be in wasm-opt's mapping, and the module must import from a single module
// afterwards; otherwise the build fails (and the browser and e2e layers would, too).
//
// Usage: node scripts/minify-names.mjs <mapping.json> <glue.js> <module.wasm>
import { readFileSync, writeFileSync } from 'node:fs'
import { failer, readU32, sections } from './wasm-module.mjs'

const fail = failer('minify-names')

/** The distinct module names of the wasm's import section. */
function importModules(wasm) {
  const modules = new Set()
  for (const { id, start } of sections(wasm)) {
    if (id === 2) {
      let [count, p] = readU32(wasm, start)
      for (; count > 0; count--) {
        let len
        ;[len, p] = readU32(wasm, p)
        modules.add(wasm.subarray(p, p + len).toString('utf8'))
        p += len
        ;[len, p] = readU32(wasm, p)
        p += len
        const kind = wasm[p++]
        // The import's description: func (type index), table, memory, global, tag.
        if (kind === 0 || kind === 4) {
          if (kind === 4) p++
          ;[, p] = readU32(wasm, p)
        } else if (kind === 1) {
          p++ // reference type
          const flags = wasm[p++]
          ;[, p] = readU32(wasm, p)
          if (flags & 1) [, p] = readU32(wasm, p)
        } else if (kind === 2) {
          const flags = wasm[p++]
          ;[, p] = readU32(wasm, p)
          if (flags & 1) [, p] = readU32(wasm, p)
        } else if (kind === 3) {
          p += 2 // value type, mutability
        } else {
          fail(`unknown import kind ${kind}`)
        }
      }
      return modules
    }
  }
  return modules
}

const [mappingPath, gluePath, wasmPath] = process.argv.slice(2)
if (!mappingPath || !gluePath || !wasmPath) fail('usage: node scripts/minify-names.mjs <mapping.json> <glue.js> <module.wasm>')
const mapping = JSON.parse(readFileSync(mappingPath, 'utf8'))
let glue = readFileSync(gluePath, 'utf8')
const modules = [...importModules(readFileSync(wasmPath))]
if (modules.length !== 1) fail(`expected one import module after minifying, found ${JSON.stringify(modules)}`)
const [module] = modules
const escape = (s) => s.replace(/[$.*+?()[\]{}|^\\]/g, '\\$&')

// Exports: every `wasm.<old>` the glue calls becomes `wasm.<new>`.
for (const [old, short] of mapping.exports) {
  glue = glue.replace(new RegExp(`\\bwasm\\.${escape(old)}(?![\\w$])`, 'g'), `wasm.${short}`)
}
const exported = new Set(mapping.exports.map(([, short]) => short))
for (const m of glue.matchAll(/\bwasm\.([\w$]+)/g)) {
  if (!exported.has(m[1])) fail(`the glue calls export ${m[1]}, which the mapping does not rename`)
}

// Imports: the object literal of each glue-defined module gets its keys renamed; an ES module
// namespace (a snippet) is read through `ns.<old>`. All of it is handed over as the one module.
const returned = /return \{\s*__proto__: null,((?:\s*"[^"]+": (import\d+),)+)\s*\};/
const found = glue.match(returned)
if (!found) fail('the import object returned by __wbg_get_imports was not found')
const varOf = new Map([...found[1].matchAll(/"([^"]+)": (import\d+)/g)].map((m) => [m[1], m[2]]))
const namespaces = new Set([...glue.matchAll(/import \* as (import\d+) from/g)].map((m) => m[1]))
const extra = []
for (const [mod, old, short] of mapping.imports) {
  const v = varOf.get(mod)
  if (!v) fail(`import module ${mod} is not among the glue's ${[...varOf.keys()].join(', ')}`)
  if (namespaces.has(v)) {
    extra.push(`${JSON.stringify(short)}: ${v}[${JSON.stringify(old)}]`)
    continue
  }
  const key = new RegExp(`(\\n\\s*)${escape(old)}: function`, 'g')
  const hits = glue.match(key)?.length ?? 0
  if (hits !== 1) fail(`import ${old} is defined ${hits} times in the glue`)
  glue = glue.replace(key, `$1${JSON.stringify(short)}: function`)
}
const objects = [...varOf.values()].filter((v) => !namespaces.has(v))
const merged = `Object.assign({ __proto__: null }, ${objects.join(', ')}, { ${extra.join(', ')} })`
glue = glue.replace(returned, `return { __proto__: null, ${JSON.stringify(module)}: ${merged} };`)
writeFileSync(gluePath, glue)
