#!/usr/bin/env bash
# npm test: every test layer (no benchmark: those are `npm run bench`, scripts/bench.sh).
#   npm test                  every layer, in order
#   npm test -- core browser  the named layers only, in the order below
#   npm test -- --list        the layer names and what each runs
# Every layer prints its closing result line (`test result:`, `# pass N`, ...); the script
# exits non-zero if any layer failed, and prints each layer's wall time at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

# The integration-test targets of the root crate, except the simulation (the `core` layer runs
# its named scenarios, `sim` its 10k schedules): `--test NAME` for each tests/*.rs.
root_tests() {
  local f n args=()
  for f in tests/*.rs; do
    n=$(basename "$f" .rs)
    [ "$n" = simulation ] || args+=(--test "$n")
  done
  echo "${args[@]}"
}

# name | description | command (run by bash -c)
layers=(
  "imports|import graph: every module folder of src/, host/src, wire/src and onepass/src acyclic, no client-crate reference in host/, wire/ or onepass/|node scripts/imports.mjs --self-test && node scripts/imports.mjs src host/src wire/src onepass/src"
  "clippy|clippy -D warnings (workspace, all targets; and the wasm32 shell with its browser tests)|cargo clippy --workspace --all-targets -q -- -D warnings && cargo clippy --target wasm32-unknown-unknown --lib --test browser -q -- -D warnings && echo 'clippy: 0 warnings'"
  "doc|rustdoc -D warnings (every crate's docs build with no broken link; native and the wasm32 shell)|RUSTDOCFLAGS='-D warnings' cargo doc --no-deps --workspace -q && RUSTDOCFLAGS='-D warnings' cargo doc --no-deps --target wasm32-unknown-unknown --lib -q && echo 'rustdoc: 0 warnings'"
  "core|the core's unit tests and the named simulation scenarios (cargo test -p agent-session --lib; --test simulation without the 10k schedules)|cargo test -p agent-session --lib && cargo test -p agent-session --test simulation -- --skip random_schedules"
  "workspace|the rest of cargo test --workspace: host, wire, onepass, capture replays, hostile-host cases, open memory, doctests|cargo test --workspace --exclude agent-session && cargo test -p agent-session \$(root_tests) -- --skip hostile_property_ && cargo test -p agent-session --doc"
  "hostile|hostile-host properties: >= 100k mutated/hostile inputs through HostClient, SSE splits, reader agreement (counts shown)|cargo test -q --test hostile hostile_property_ -- --show-output | grep -E 'property: [0-9]|test result'"
  "sim|simulation: 10,000 seeded schedules (count shown)|cargo test -q --test simulation random_schedules -- --show-output | grep -E '^simulation:|test result'"
  "browser|browser tests (wasm-bindgen-test, headless Chromium, reference host; WebSocket and SSE downlinks)|node scripts/test-browser.mjs"
  "build|package build (cargo wasm32 release, wasm-bindgen, wasm-opt, terser)|bash scripts/build.sh"
  "size|size check (packed .wasm + JS glue, gzipped; fails over the ratchet in size-budget.json)|node scripts/size.mjs"
  "e2e|demo e2e (Playwright on system Chromium, reference host)|node scripts/e2e.mjs"
  "pack|pack check (npm pack -> fresh strict Vite+React+TS app)|node scripts/pack-check.mjs"
  "integrations|integrations (packed tarball in fresh apps: Next.js Turbopack + webpack, Vite 8 + 6 build and dev, webpack 5 React + no-config, plain ESM, Vue, Svelte, vitest jsdom + happy-dom, Node, binding SSR, tsc bundler/node16/nodenext; one line each)|node scripts/integrations.mjs"
  "tree|tree unchanged (every output went under target/ or an ignored folder)|check_tree"
)
names=()
for l in "${layers[@]}"; do names+=("${l%%|*}"); done

if [ "${1:-}" = "--list" ]; then
  for l in "${layers[@]}"; do
    rest="${l#*|}"
    printf '%-13s %s\n' "${l%%|*}" "${rest%%|*}"
  done
  exit 0
fi

# The selection: no names = every layer; otherwise the named ones, in the order above.
declare -A wanted=()
for a in "$@"; do
  ok=0
  for n in "${names[@]}"; do [ "$a" = "$n" ] && ok=1; done
  if [ "$ok" -ne 1 ]; then
    echo "npm test: unknown layer '$a'; the layers are: ${names[*]} (npm test -- --list says what each runs)" >&2
    exit 2
  fi
  wanted[$a]=1
done

start=$(date +%s)
# What the tree looks like before the layers run: the `tree` layer checks they left it so.
tree_before=$(git status --porcelain 2>/dev/null || true)
check_tree() {
  local after
  after=$(git status --porcelain 2>/dev/null || true)
  if [ "$after" = "$tree_before" ]; then echo "tree unchanged"; else
    echo "the layers changed the tree:"; diff <(echo "$tree_before") <(echo "$after"); return 1
  fi
}

# Layers that run side by side when both are selected: test runs of binaries the earlier
# layers built (no compiling), and the 10k schedules keep one core busy for minutes, so the
# hostile properties run on the other (measured on 2 cores: 127 s side by side, 188 s one after
# the other). Their output is held and printed whole, one layer after the other.
together=(hostile sim)

declare -A desc=() cmd=()
for l in "${layers[@]}"; do
  n="${l%%|*}"; rest="${l#*|}"; desc[$n]="${rest%%|*}"; cmd[$n]="${rest#*|}"
done
selected() { [ "$nargs" -eq 0 ] || [ -n "${wanted[$1]:-}" ]; }
nargs=$#

declare -a results=()
failed=0
record() { # name ok|FAILED seconds
  [ "$2" = ok ] || failed=1
  results+=("$(printf '%-7s %-13s %ss' "$2" "$1" "$3")")
}
for name in "${names[@]}"; do
  selected "$name" || continue
  if [ "$name" = "${together[1]}" ] && selected "${together[0]}"; then continue; fi
  if [ "$name" = "${together[0]}" ] && selected "${together[1]}"; then
    held=$(mktemp -d)
    for n in "${together[@]}"; do
      ( t0=$(date +%s); if eval "${cmd[$n]}" >"$held/$n.out" 2>&1; then r=ok; else r=FAILED; fi
        echo "$r $(( $(date +%s) - t0 ))" >"$held/$n.result" ) &
    done
    wait
    for n in "${together[@]}"; do
      echo "==> $n: ${desc[$n]} (side by side with: ${together[*]})"
      cat "$held/$n.out"
      read -r r secs <"$held/$n.result"
      record "$n" "$r" "$secs"
    done
    rm -rf "$held"
    continue
  fi
  t0=$(date +%s)
  echo "==> $name: ${desc[$name]}"
  if eval "${cmd[$name]}"; then r=ok; else r=FAILED; fi
  record "$name" "$r" "$(( $(date +%s) - t0 ))"
done

echo
echo "==> summary ($(( $(date +%s) - start ))s)"
for r in "${results[@]}"; do echo "  $r"; done
if [ "$failed" -ne 0 ]; then echo "npm test: FAILED"; exit 1; fi
echo "npm test: ok"
