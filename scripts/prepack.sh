#!/usr/bin/env bash
# npm's prepack: a tarball never lacks its wasm. Builds pkg/ (scripts/build.sh) unless it is
# newer than every input of the build; refuses, loudly, when it cannot build.
set -euo pipefail
cd "$(dirname "$0")/.."
wasm=pkg/agent_session_bg.wasm
inputs=(src wire/src onepass/src Cargo.toml Cargo.lock wire/Cargo.toml onepass/Cargo.toml scripts/build.sh scripts/minify-names.mjs scripts/blank-panics.mjs scripts/wasm-module.mjs)
if [ -f "$wasm" ] && [ -f pkg/agent_session.js ] && [ -z "$(find "${inputs[@]}" -newer "$wasm" -print -quit 2>/dev/null)" ]; then
  echo "prepack: pkg/ is up to date with its sources" >&2
  exit 0
fi
missing=()
command -v cargo >/dev/null || missing+=("cargo")
command -v wasm-bindgen >/dev/null || missing+=("wasm-bindgen")
[ -x node_modules/.bin/wasm-opt ] || missing+=("node_modules/.bin/wasm-opt (npm install)")
[ -x node_modules/.bin/terser ] || missing+=("node_modules/.bin/terser (npm install)")
if [ "${#missing[@]}" -ne 0 ]; then
  echo "prepack: REFUSED: pkg/ (the .wasm and its glue) is missing or older than its sources, and the build needs: ${missing[*]}." >&2
  echo "prepack: run scripts/bootstrap.sh (installs the wasm32 target, wasm-bindgen and the npm tools), then npm pack again." >&2
  exit 1
fi
echo "prepack: building pkg/ (scripts/build.sh)" >&2
bash scripts/build.sh >&2
