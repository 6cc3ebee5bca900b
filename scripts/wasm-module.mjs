// What the build's wasm post-passes share (scripts/minify-names.mjs, scripts/blank-panics.mjs):
// a failure that stops the build, LEB128 reading and the module's sections.

/** Prints `why` as `tool`'s and exits the build with a failure. */
export function failer(tool) {
  return (why) => {
    console.error(`${tool}: ${why}`)
    process.exit(1)
  }
}

/** The unsigned LEB128 at `at`: [value, the offset after it]. */
export function readU32(buf, at) {
  let value = 0
  let shift = 0
  for (;;) {
    const byte = buf[at++]
    value += (byte & 0x7f) * 2 ** shift
    shift += 7
    if (byte < 0x80) return [value, at]
  }
}

/** Every section of the module, in order: {id, start, end} of its contents. */
export function* sections(wasm) {
  let at = 8
  while (at < wasm.length) {
    const id = wasm[at]
    const [size, start] = readU32(wasm, at + 1)
    yield { id, start, end: start + size }
    at = start + size
  }
}
