#!/usr/bin/env bash
# npm start: build the package, then serve it (and www/dist when present) from the
# reference host. Prints the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cargo build -p agent-session-host
target_dir="${CARGO_TARGET_DIR:-target}"
static_dir=.
if [ -d www/dist ]; then
  # The demo UI (Vite bundles the package's glue and .wasm into it).
  static_dir=www/dist
fi
listen="${AGENT_SESSION_LISTEN:-127.0.0.1:7878}"
db="${AGENT_SESSION_DB:-$PWD/target/dev-host.sqlite}"
mkdir -p "$(dirname "$db")"
echo "start: serving $static_dir with the reference host (Ctrl-C stops it)"
exec "$target_dir/debug/agent-session-host" --listen "$listen" --db "$db" --static "$static_dir"
