#!/usr/bin/env node
// Blanks the source file names of panic locations in the wasm module's data section: each
// `/rustc/<commit>/library/….rs`, `index.crates.io-<hash>/….rs` and `src/….rs` (what
// `--remap-path-prefix` left of them, scripts/build.sh) becomes as many zero bytes.
//
// Why: nothing ever reads them. The package installs no panic hook, and on
// wasm32-unknown-unknown std's own hook writes to a stderr that does not exist, so a panic
// traps with no message; the names only cost download. Measured: -400 B gzipped on the .wasm.
// Their lengths stay, so every `Location` still points at a string of its length: only the
// bytes change. (rustc's `-Zlocation-detail=none` would drop them in the compiler, on nightly
// only.)
//
// The blanking is checked, not hoped for: the module must have one data section, and it must
// hold such names; otherwise the build fails.
//
// Usage: node scripts/blank-locations.mjs <module.wasm>
import { readFileSync, writeFileSync } from 'node:fs'
import { failer, sections } from './wasm-module.mjs'

const fail = failer('blank-locations')

/** The [start, end) of the module's data section (id 11), which must be the only one. */
function dataSection(wasm) {
  const data = [...sections(wasm)].filter((s) => s.id === 11)
  if (data.length !== 1) fail(`${data.length} data sections, not one`)
  return [data[0].start, data[0].end]
}

// A file name ends in `.rs` and is made of path characters; the three roots are the only ones
// the build leaves (scripts/build.sh remaps the registry, toolchain and checkout paths).
const NAME = /(?:\/rustc\/[0-9a-f]{40}\/library\/|index\.crates\.io-[0-9a-f]{16}\/|src\/)[\w./-]*?\.rs/g

const [file] = process.argv.slice(2)
if (!file) fail('usage: node scripts/blank-locations.mjs <module.wasm>')
const wasm = readFileSync(file)
const [start, end] = dataSection(wasm)
// latin1 keeps one character per byte, so string offsets are byte offsets.
const text = wasm.toString('latin1', start, end)
let names = 0
let bytes = 0
for (const m of text.matchAll(NAME)) {
  wasm.fill(0, start + m.index, start + m.index + m[0].length)
  names++
  bytes += m[0].length
}
if (names === 0) fail('no panic location file names found: the pattern no longer matches the build')
writeFileSync(file, wasm)
console.log(`blank-locations: ${names} file names, ${bytes} B blanked`)
