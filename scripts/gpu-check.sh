#!/usr/bin/env bash
# Checks and times the CUDA variants of the reference kernels on a GPU machine.
#
# Here (no GPU needed):   scripts/gpu-check.sh build   -> builds them into .gpu-carry/
# On the GPU machine:     scripts/gpu-check.sh run     (with .gpu-carry carried along)
#
# `build` runs `kcheck build --backends cuda` for each reference kernel (the
# build fails unless the variant's self-audit is clean). `run` imports each
# variant package into the GPU machine's Torch, compares every op with
# Torch's own implementation on the GPU (reference/tests/check_ops.py), then
# times them against Torch with CUDA events (reference/tests/bench_ops.py).
set -euo pipefail
cd "$(dirname "$0")/.."
carry=.gpu-carry
kernels=(relu activation rms_norm)

case "${1:-}" in
  build)
    build_dir=${KCHECK_BUILD_DIR:-_build}
    capabilities=${KCHECK_CUDA_CAPABILITIES:-}
    for kernel in "${kernels[@]}"; do
      "$build_dir/kcheck" build "reference/$kernel" --backends cuda ${capabilities:+--cuda-capabilities "$capabilities"} \
        --output-dir "$carry/$kernel/build" --scratch-dir "$build_dir/gpu-scratch/$kernel" >"$carry-$kernel.log" 2>&1 ||
        { cat "$carry-$kernel.log"; exit 1; }
    done
    du -sh "$carry"
    ;;
  run)
    python=${KCHECK_GPU_PYTHON:-/opt/torch/.venv/bin/python}
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    "$python" -c "import torch; print('torch', torch.__version__, 'on', torch.cuda.get_device_name())"
    date -u
    status=0
    for kernel in "${kernels[@]}"; do
      echo "== $kernel: correctness on the GPU"
      "$python" reference/tests/check_ops.py "$carry/$kernel" cuda --loader importlib || status=1
    done
    echo "== bandwidth (median of 50, CUDA events)"
    "$python" reference/tests/bench_ops.py "$carry"/*/build/*/*.abi3.so || status=1
    exit $status
    ;;
  *)
    echo "usage: $0 build|run" >&2
    exit 2
    ;;
esac
