#!/usr/bin/env bash
# The wheel as a user gets it (issue #15): builds it with pip from this
# checkout (scikit-build-core, pyproject.toml; the build directory
# _build-portable is reused), checks auditwheel calls it manylinux_2_28 or
# older, installs it into a fresh venv and runs the installed command:
# --version, rules, its own symbol ceilings, and an audit of a fixture with a
# known finding (FIXTURE_TREES: tests/fixtures/trees as the build materialises
# them; optional).
#
#   scripts/test-wheel.sh [FIXTURE_TREES]
set -euo pipefail
cd "$(dirname "$0")/.."
fixtures=${1:-}
work=$(mktemp -d /tmp/kcheck-wheel-XXXXXX)
trap 'rm -rf "$work"' EXIT

.venv/bin/python -m pip wheel . --no-deps --quiet --wheel-dir "$work/dist"
wheel=$(ls "$work"/dist/kcheck-*.whl)
echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"

# auditwheel: 'consistent with the following platform tag: "manylinux_2_28_x86_64"'
.venv/bin/auditwheel show "$wheel" >"$work/show.txt"
tag=$(grep -oE 'manylinux_2_[0-9]+_x86_64' "$work/show.txt" | head -n 1)
minor=${tag#manylinux_2_}
minor=${minor%%_*}
echo "auditwheel: $tag"
[[ -n $tag && $minor -le 28 ]] || { cat "$work/show.txt"; echo "not manylinux_2_28 or older"; exit 1; }

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index "$wheel"
kcheck=$work/venv/bin/kcheck
"$kcheck" --version
# Through a file: `grep -q` stops reading at its match, and under pipefail the
# SIGPIPE that then ends kcheck would fail the pipe however right the list is.
"$kcheck" rules >"$work/rules.txt"
grep -q '^KE001 ' "$work/rules.txt"
size=$(stat -c %s "$kcheck")
echo "installed kcheck: $size bytes"
[[ $size -le $((15 * 1024 * 1024)) ]] || { echo "larger than 15 MB"; exit 1; }
# Nothing to install beside it: the C library and the loader only.
others=$(ldd "$kcheck" | awk '{print $1}' | grep -vE '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|/lib64/ld-linux-x86-64\.so\.2)$' || true)
[[ -z $others ]] || { echo "needs more than the C library: $others"; exit 1; }
# Its own binary within the ceilings it asks of kernels.
"$kcheck" --select KE001,KE002,KE004 "$kcheck" >"$work/self.txt" || { cat "$work/self.txt"; exit 1; }
echo "KE001, KE002, KE004 on itself: nothing"
if [[ -n $fixtures ]]; then
  status=0
  "$kcheck" --format json --select KP002 "$fixtures/kp002_numpy_import" >"$work/audit.json" || status=$?
  [[ $status -eq 1 ]] && grep -q '"code": "KP002"' "$work/audit.json" || { echo "audit: exit $status"; exit 1; }
  echo "audit of kp002_numpy_import from the installed command: KP002, exit 1"
fi
echo "wheel OK"
