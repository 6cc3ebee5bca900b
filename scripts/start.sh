#!/usr/bin/env bash
# npm start: build the package and the demo UI, then serve the demo from the reference host.
# The host prints the URL as its first line (`listening on http://…`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# The demo (Vite bundles the package's glue and .wasm into www/dist). Never serve the
# repository root instead: it would expose .git and the host's database.
if [ ! -f www/node_modules/.package-lock.json ]; then
  npm --prefix www ci --no-audit --no-fund --loglevel=error
fi
npm --prefix www run build
cargo build -p agent-session-host
target_dir="${CARGO_TARGET_DIR:-target}"
listen="${AGENT_SESSION_LISTEN:-127.0.0.1:7878}"
db="${AGENT_SESSION_DB:-$PWD/target/dev-host.sqlite}"
mkdir -p "$(dirname "$db")"
echo "start: serving the demo (www/dist) from the reference host; Ctrl-C stops it"
exec "$target_dir/debug/agent-session-host" --listen "$listen" --db "$db" --static www/dist
