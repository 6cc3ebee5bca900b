#!/usr/bin/env bash
# npm run bench: the benchmarks, printing their figures (tables and ratios against their goals;
# docs/FIGURES.md holds the last ones recorded). Run after the bootstrap (npm run bench does it).
#   native   cargo bench: core ingest 1k vs 100k window, core open, core memory of an open,
#            core paging, the live list under a flood of session-added frames, host load
#   browser  scripts/bench-browser.mjs in headless Chromium against the reference host: ingest,
#            open, paging, reload with the local cache, package size, then the memory table.
#            Needs the package (pkg/, built here from the current sources), the harness
#            pages (tests/pages, built into target/pages: bench.html, bench-memory.html) and
#            the debug host binary; scripts/e2e-prepare.mjs builds the pages when stale.
#   npm run bench -- native   one of them only
# Exits non-zero if a benchmark failed.
set -uo pipefail
cd "$(dirname "$0")/.."

valid="native browser"
for a in "$@"; do
  case " $valid " in *" $a "*) ;; *) echo "npm run bench: unknown part '$a'; the parts are: $valid" >&2; exit 2 ;; esac
done
selected() { local n="$1"; shift; [ "$#" -eq 0 ] && return 0; for a in "$@"; do [ "$a" = "$n" ] && return 0; done; return 1; }

start=$(date +%s)
declare -a results=()
failed=0
part() {
  local name="$1"; shift
  local t0; t0=$(date +%s)
  echo "==> bench $name"
  if "$@"; then results+=("ok      $(printf '%-8s' "$name") $(( $(date +%s) - t0 ))s")
  else results+=("FAILED  $(printf '%-8s' "$name") $(( $(date +%s) - t0 ))s"); failed=1; fi
}

if selected native "$@"; then
  part native bash -c 'cargo bench --bench core_ingest && cargo bench --bench core_open && cargo bench --bench core_memory && cargo bench --bench core_paging && cargo bench --bench core_list && cargo bench -p agent-session-host --bench load'
fi
if selected browser "$@"; then
  part browser bash -c 'bash scripts/build.sh && cargo build -p agent-session-host && node scripts/bench-browser.mjs'
fi

echo
echo "==> bench summary ($(( $(date +%s) - start ))s)"
for r in "${results[@]}"; do echo "  $r"; done
if [ "$failed" -ne 0 ]; then echo "npm run bench: FAILED"; exit 1; fi
echo "npm run bench: ok"
