#!/usr/bin/env bash
# One idempotent bootstrap for building and testing agent-session. Skips what is present.
#   - the wasm32 target
#   - wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock (no --locked: its
#     lockfile pins a crate version the registry mirror lacks)
#   - Debian chromium + chromium-driver (browser tests)
#   - npm dependencies (binaryen's wasm-opt; Debian's binaryen is too old)
#   - agents/ npm dependencies (the pinned codex and claude CLIs the host's tests drive)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[bootstrap] %s\n' "$*"; }

# 1. wasm target
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 1b. clippy (npm test lints with it)
if ! cargo clippy --version >/dev/null 2>&1; then
  say "adding rust component clippy"
  rustup component add clippy
fi

# 2. wasm-bindgen CLI pinned to Cargo.lock
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$want" ]; then
  say "no wasm-bindgen in Cargo.lock; resolving"
  cargo metadata --format-version 1 >/dev/null
  want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (have: ${have:-none}); takes a few minutes"
  cargo install wasm-bindgen-cli --version "$want" --force
fi

# 3. Chromium + ChromeDriver
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  say "installing chromium + chromium-driver"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# 4. npm dependencies (re-run when package-lock.json changed since the last install)
stamp=node_modules/.bootstrap-lock-hash
lockhash=$(sha256sum package-lock.json 2>/dev/null | awk '{print $1}' || echo none)
if [ ! -d node_modules ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lockhash" ]; then
  say "npm install"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
  lockhash=$(sha256sum package-lock.json 2>/dev/null | awk '{print $1}' || echo none)
  echo "$lockhash" > "$stamp"
fi

# 5. agent CLIs pinned in agents/ (re-run when agents/package-lock.json changed since the last install)
stamp=agents/node_modules/.bootstrap-lock-hash
lockhash=$(sha256sum agents/package-lock.json | awk '{print $1}')
if [ ! -d agents/node_modules ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lockhash" ]; then
  say "npm ci (agents: codex and claude CLIs)"
  npm ci --prefix agents --no-audit --no-fund --loglevel=error
  echo "$lockhash" > "$stamp"
fi

say "ok (wasm-bindgen $want, $(/usr/bin/chromium --version 2>/dev/null | head -1), wasm-opt $(node_modules/.bin/wasm-opt --version 2>/dev/null), $(agents/node_modules/.bin/codex --version 2>/dev/null), claude $(agents/node_modules/@anthropic-ai/claude-code-linux-x64/claude --version 2>/dev/null))"
