#!/usr/bin/env bash
# A new kernel author's walk-through of the README's quick start, timed step
# by step (single runs: a record of what a user waits for, not a benchmark).
# Run in a checkout where scripts/demo.sh has run (it builds _build/kcheck and
# .venv): works on a copy of reference/kernels/relu under /tmp.
#   scripts/walkthrough.sh
set -uo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
kcheck=$checkout/_build/kcheck
python=$checkout/.venv/bin/python
work=$(mktemp -d /tmp/kcheck-walk-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r reference/kernels/relu "$work/relu"
rm -rf "$work/relu/build" "$work/relu/.kcheck-scratch"
cd "$work/relu"
export XDG_CACHE_HOME=$work/cache  # kcheck's caches start empty, as on a new machine
step() {  # TITLE COMMAND...: runs it, prints its output's last lines, exit status and wall time
  local title=$1 start status
  shift
  start=$(date +%s.%N)
  "$@" >"$work/out" 2>&1
  status=$?
  printf '\n### %s\n\n$ %s\n' "$title" "$*" | sed "s|$checkout|<checkout>|g; s|$work|<tmp>|g"
  tail -n "${KCHECK_WALK_LINES:-6}" "$work/out" | sed "s|$checkout|<checkout>|g; s|$work|<tmp>|g"
  printf '(exit %s, %.2f s)\n' "$status" "$(echo "$(date +%s.%N) - $start" | bc)"
}
echo "walk-through on $(hostname), $(nproc) cores, $(date -u +%Y-%m-%d), kcheck $("$kcheck" --version | cut -d' ' -f2)"
step "1. check the sources (no build/ yet)" "$kcheck" check .
sed -i 's/TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops)/TORCH_LIBRARY(relu, ops)/' torch-ext/torch_binding.cpp
KCHECK_WALK_LINES=16 step "2. a mistake: a literal op namespace" "$kcheck" check .
KCHECK_WALK_LINES=2 step "3. what the rule says" "$kcheck" explain KO001
sed -i 's/TORCH_LIBRARY(relu, ops)/TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops)/' torch-ext/torch_binding.cpp
step "4. fixed" "$kcheck" check .
step "5. build the CPU variant (Torch: the checkout's .venv, found beside this kcheck)" "$kcheck" build . --backends cpu
step "6. audit what this machine built" "$kcheck" check --local-build .
step "7. install the kernels loader" "$python" -m pip install -q kernels==0.17.2
step "8. load the build as users will" "$python" -c \
  "from pathlib import Path; import kernels; k = kernels.get_local_kernel(Path('.'), backend='cpu'); print(k.__name__, k.relu)"
step "9. check every op in the sandbox (kcheck_worker: the one the demo built beside kcheck)" "$kcheck" run . --python "$python"
