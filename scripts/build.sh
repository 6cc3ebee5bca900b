#!/usr/bin/env bash
# Builds the npm package's wasm + JS glue into pkg/:
#   cargo (release, wasm32) -> wasm-bindgen --target web (pinned CLI) -> wasm-opt -O2, no inlining,
#   functions ordered by name (npm binaryen) -> import/export names
#   minified (wasm-opt + scripts/minify-names.mjs) -> what only a panic reads blanked
#   (scripts/blank-panics.mjs) -> glue minified (npm terser)
# CARGO_TARGET_DIR is honoured (default: target/).
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-target}"

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "build: wasm-bindgen CLI $have does not match the crate ($want); run scripts/bootstrap.sh" >&2
  exit 1
fi

# Panic locations carry source paths (the registry's, the toolchain's); the package shows them
# to nobody, so they are cut to the crate's own path: measured -65 B gzipped. Passed here,
# not in .cargo/config.toml, because they name this machine's paths (the config's flags are
# kept: --config arrays add to them).
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
toolchain="/rustc/$(rustc -vV | awk '/^commit-hash/ {print $2}')"
cargo build --release --target wasm32-unknown-unknown --lib \
  --config "target.wasm32-unknown-unknown.rustflags=['--remap-path-prefix=$registry/=', '--remap-path-prefix=$toolchain/=', '--remap-path-prefix=$PWD/=']"
rm -rf pkg
# The name section is kept for wasm-opt, which orders functions by name and then writes the
# module without it (it writes names only with -g).
wasm-bindgen --target web --out-dir pkg --out-name agent_session --remove-producers-section \
  "$target_dir/wasm32-unknown-unknown/release/agent_session.wasm"
# -O2 without inlining (-fimfs/-ocimfs/-aimfs=0): measured, binaryen's inlining shrinks the raw
# module but grows the gzipped one by ~20 KB (inlined copies compress worse than calls).
# --reorder-functions-by-name puts the monomorphised copies of one generic function next to
# each other, inside one gzip window: measured -1.0 KB gzipped (zlib level 9, as
# scripts/size.mjs measures; GNU gzip -9 showed -2.1 KB). Ordering by call
# count instead (--reorder-functions) grew it by 5 KB. -O2 --converge was the smallest gzipped
# of -Oz, -Os, -O2, -O3, -O4 (0.2-0.5 KB apart; -Oz and -Os are smaller only before gzip).
# --low-memory-unused lets it fold constant addresses into loads and stores: rustc's wasm32
# layout puts the stack, then the data, from 1 MiB up, so the low 1 KiB is never used (-50 B).
features="--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals
  --enable-reference-types --enable-multivalue --enable-simd"
# shellcheck disable=SC2086 # $features is a word list
node_modules/.bin/wasm-opt -O2 -fimfs=0 -ocimfs=0 -aimfs=0 --converge --low-memory-unused --reorder-functions-by-name $features \
  pkg/agent_session_bg.wasm -o pkg/agent_session_bg.wasm
# Import, export and import-module names shortened (wasm-bindgen's carry 16 hex digits each),
# the glue renamed to match and checked by scripts/minify-names.mjs: measured -1.9 KB gzipped on
# the .wasm, -2.9 KB on the package (the glue holds the same names).
# The target_features section (for tools, not engines) goes too.
node_modules/.bin/wasm-opt --minify-imports-and-exports-and-modules --strip-target-features $features \
  pkg/agent_session_bg.wasm -o pkg/agent_session_bg.wasm > pkg/names.json
node scripts/minify-names.mjs pkg/names.json pkg/agent_session.js pkg/agent_session_bg.wasm
rm pkg/names.json
# Panic locations' file names and std's panic messages blanked (nothing reads them: no panic
# hook, and a panic traps): measured -690 B gzipped (scripts/blank-panics.mjs).
node scripts/blank-panics.mjs pkg/agent_session_bg.wasm
# The glue is shipped minified (names of exported classes kept): measured 5.9 -> 4.1 KB gzipped.
# Its console.warn calls go (pure_funcs): wasm-bindgen's notices of the positional init forms
# and of a .wasm served without the application/wasm type, both of which still load (the
# latter compiled from its bytes); measured -177 B gzipped.
node_modules/.bin/terser pkg/agent_session.js --module --compress pure_funcs=console.warn --mangle --keep-classnames \
  --output pkg/agent_session.js
# The shell's JS module (src/wasm/shell.js, a wasm-bindgen snippet) ships too: minified the same way.
for snippet in $(find pkg/snippets -name "*.js"); do
  node_modules/.bin/terser "$snippet" --module --compress --mangle --output "$snippet"
done
# The browser entry ships minified too (pkg/index.js, the package's "default" export) with the
# modules it loads on demand (pkg/cache.js, pkg/share.js, pkg/workspaces.js, pkg/models.js, pkg/subagents.js and pkg/store.js, which the
# stores share), its imports re-pointed
# from the package root to pkg/; the readable index.js and those modules stay the source (and what
# node.js builds on): measured 1,097 -> 698 B gzipped for the entry.
node_modules/.bin/terser index.js --module --compress --mangle --keep-classnames | sed -e 's#\./pkg/#./#g' > pkg/index.js
for m in cache share workspaces models subagents store; do
  node_modules/.bin/terser "$m.js" --module --compress --mangle --output "pkg/$m.js"
done
grep -q '"./agent_session.js"\|'"'"'./agent_session.js'"'"'' pkg/index.js || { echo "build: pkg/index.js does not import ./agent_session.js" >&2; exit 1; }
# The hand-written types/index.d.ts is the package's typing; drop the generated ones.
rm -f pkg/*.d.ts pkg/package.json pkg/.gitignore
echo "build: ok ($(wc -c < pkg/agent_session_bg.wasm) B wasm, $(wc -c < pkg/agent_session.js) B glue)"
