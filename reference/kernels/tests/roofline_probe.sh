#!/usr/bin/env bash
# Builds reference/kernels/tests/roofline_probe.cu into OUT_DIR/libprobe.so
# (nvcc, sm_90 unless PROBE_ARCH says otherwise): the reference kernels'
# device code of the working tree and, when BASE (a commit) is given, that
# commit's too, for roofline_probe.py to time side by side.
#
#   reference/kernels/tests/roofline_probe.sh OUT_DIR [BASE]
set -euo pipefail
out=$(realpath -m "$1")
base=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
kernels=$(dirname "$here")
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
rm -rf "$out/src"
mkdir -p "$out/src/new" "$out/src/old"
for k in relu activation rms_norm; do
  mkdir -p "$out/src/new/$k"
  cp -r "$kernels/$k/${k}_cuda" "$out/src/new/$k/"
  [[ -d $kernels/$k/${k}_common ]] && cp -r "$kernels/$k/${k}_common" "$out/src/new/$k/"
  echo "// probe copy: new $k" >>"$out/src/new/$k/${k}_cuda/gpu_compat.h"
  if [[ -n $base ]]; then
    mkdir -p "$out/src/old/$k"
    git -C "$kernels/../.." archive "$base" "reference/kernels/$k" | tar -x -C "$out/src/old/$k" --strip-components=3
    echo "// probe copy: old $k" >>"$out/src/old/$k/${k}_cuda/gpu_compat.h"
  fi
done
defines=()
for which in new old; do
  [[ $which == old && -z $base ]] && continue
  upper=${which^^}
  defines+=("-DPROBE_${upper}_RELU=\"$out/src/$which/relu/relu_cuda/relu_kernels.cu\""
            "-DPROBE_${upper}_ACT=\"$out/src/$which/activation/activation_cuda/activation_kernels.cu\""
            "-DPROBE_${upper}_RMS=\"$out/src/$which/rms_norm/rms_norm_cuda/rms_norm_kernels.cu\"")
done
[[ -n $base ]] && defines+=(-DPROBE_OLD)
"$nvcc" -std=c++17 -O3 -arch="${PROBE_ARCH:-sm_90}" -shared -Xcompiler -fPIC "${defines[@]}" \
  ${PROBE_NVCC_FLAGS:-} "$here/roofline_probe.cu" -o "$out/libprobe.so"
rm -rf "$out/src"
ls -l "$out/libprobe.so"
