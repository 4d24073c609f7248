#!/usr/bin/env bash
# What an installed kcheck must do with nothing else present (no compiler, no
# Torch, no -dev package): gate a kernel source repository. Run on the wheel by
# scripts/test-wheel.sh here, and by the release workflow in the
# manylinux_2_28 image (glibc 2.28), so both check the same thing.
#
#   scripts/wheel-smoke.sh KCHECK
set -euo pipefail
kcheck=$1
work=$(mktemp -d /tmp/kcheck-smoke-XXXXXX)
trap 'rm -rf "$work"' EXIT
"$kcheck" --version
mkdir -p "$work/kernel/torch-ext/relu"
printf '[general]\nname = "relu"\nversion = 1\nedition = 5\nlicense = "apache-2.0"\nbackends = ["cpu"]\n\n[torch-noarch]\n' \
  >"$work/kernel/build.toml"
printf 'import numpy\n__all__ = ["relu"]\n\n\ndef relu(x):\n    return x\n' >"$work/kernel/torch-ext/relu/__init__.py"
status=0
"$kcheck" check "$work/kernel" --format json -o "$work/report.json" || status=$?
[[ $status -eq 1 ]] && grep -q '"code": "KP002"' "$work/report.json" ||
  { cat "$work/report.json" 2>/dev/null; echo "a planted import numpy: exit $status, not KP002 and 1"; exit 1; }
sed -i '/^import numpy$/d' "$work/kernel/torch-ext/relu/__init__.py"
"$kcheck" check "$work/kernel" >"$work/clean.txt" || { cat "$work/clean.txt"; echo "the fixed kernel did not pass"; exit 1; }
echo "smoke: a source repository gated (KP002, exit 1), then passed once fixed"
