#!/usr/bin/env node
// Blanks what only a panic would read in the wasm module's data section: the source file names
// of panic locations (each `/rustc/<commit>/library/….rs`, `index.crates.io-<hash>/….rs` and
// `src/….rs`, what `--remap-path-prefix` left of them, scripts/build.sh) and the standard
// library's own panic messages (`called \`Option::unwrap()\` on a \`None\` value`, …): each
// becomes as many zero bytes.
//
// Why: nothing ever reads them. The package installs no panic hook, and on
// wasm32-unknown-unknown std's own hook writes to an output that does not exist, so a panic
// traps with no message; they only cost download. Measured: -400 B gzipped on the .wasm for
// the file names, -290 B more for the messages. Their lengths stay, so every `Location` and
// message still points at a string of its length: only the bytes change. (rustc's
// `-Zlocation-detail=none` and std's `panic_immediate_abort` would drop them in the compiler,
// on nightly only.) Should the package ever install a panic hook, this pass goes.
//
// The blanking is checked, not hoped for: the module must have one data section, and it must
// hold file names of that shape; otherwise the build fails. A message this toolchain's std no
// longer has is reported, not an error.
//
// Usage: node scripts/blank-panics.mjs <module.wasm>
import { readFileSync, writeFileSync } from 'node:fs'
import { failer, sections } from './wasm-module.mjs'

const fail = failer('blank-panics')

/** The [start, end) of the module's data section (id 11), which must be the only one. */
function dataSection(wasm) {
  const data = [...sections(wasm)].filter((s) => s.id === 11)
  if (data.length !== 1) fail(`${data.length} data sections, not one`)
  return [data[0].start, data[0].end]
}

// A file name ends in `.rs` and is made of path characters; the three roots are the only ones
// the build leaves (scripts/build.sh remaps the registry, toolchain and checkout paths).
const NAME = /(?:\/rustc\/[0-9a-f]{40}\/library\/|index\.crates\.io-[0-9a-f]{16}\/|src\/)[\w./-]*?\.rs/g

// std's and core's panic messages (payloads of `unwrap`, `unreachable!`, `RefCell`, slicing,
// allocation and formatting failures). Not wasm-bindgen's: those it throws to JS, where an app
// sees them.
const MESSAGES = [
  'called `Option::unwrap()` on a `None` value',
  'called `Result::unwrap()` on an `Err` value',
  'internal error: entered unreachable code',
  'RefCell already mutably borrowed',
  'RefCell already borrowed',
  'assertion failed: self.is_char_boundary(new_len)',
  ' is not a char boundary; it is inside ',
  'assertion `left ',
  'Tried to shrink to a larger capacity',
  'capacity overflow',
  'a Display implementation returned an error unexpectedly',
  'a formatting trait implementation returned an error when the underlying stream did not',
  'LazyCell instance has previously been poisoned',
  'branch is not hit for types that cannot fit 999 (u8)',
  'branch is not hit for types that cannot fit 1E4 (u8)',
]

const [file] = process.argv.slice(2)
if (!file) fail('usage: node scripts/blank-panics.mjs <module.wasm>')
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
let messages = 0
const missing = []
for (const m of MESSAGES) {
  let at = text.indexOf(m)
  if (at < 0) missing.push(m)
  for (; at >= 0; at = text.indexOf(m, at + m.length)) {
    wasm.fill(0, start + at, start + at + m.length)
    messages++
    bytes += m.length
  }
}
writeFileSync(file, wasm)
console.log(`blank-panics: ${names} file names and ${messages} panic messages, ${bytes} B blanked`)
if (missing.length) console.log(`blank-panics: not in this build: ${missing.map((m) => JSON.stringify(m)).join(', ')}`)
