#!/usr/bin/env bash
# Builds, checks and times the CUDA variants of the reference kernels on a
# GPU machine, in one device call.
#
# Here (no GPU needed):   scripts/gpu-check.sh build   -> .gpu-carry/
# On the GPU machine:     scripts/gpu-check.sh run     (with .gpu-carry carried along)
#                         scripts/gpu-check.sh repeat [RUNS [FIRST]]: bench the large size RUNS times (5),
#                         seeds FIRST (1) on, median with min-max over the runs
#                         (reference/kernels/tests/speedup_summary.py --decimals; run it here over the
#                         reports of several calls when RUNS do not fit in one);
#                         KCHECK_GPU_REPEAT_SIZES="large,medium" for more sizes
#                         KCHECK_GPU_REPEAT_BUDGET=SECONDS: start no further run after that many
#                         seconds (a device call's limit less one run; the rest go to the next call)
#                         scripts/gpu-check.sh check: only `kcheck run` of each carried kernel
#                         (every op against its reference at three sizes), and for the
#                         reference kernels check_ops.py on the GPU (odd shapes, inputs
#                         one element or 8 bytes past a 16-byte boundary), no timing
#
# `build` runs `kcheck build --backends cuda` for each reference kernel (the
# build fails unless the variant's self-audit is clean), and puts kcheck,
# kcheck_worker and the few shared libraries the GPU machine lacks (LIEF,
# toml++, mbedTLS) into .gpu-carry/bin and .gpu-carry/lib.
# Set KCHECK_GPU_REUSE_VARIANTS=1 to keep variants built earlier, and
# KCHECK_GPU_KERNELS to choose among the reference kernels.
# KCHECK_HUB_KERNELS="DIR ..." adds real Hub kernel source trees (e.g. a
# checkout of kernels-community/activation, stable ABI): built the same way
# into .gpu-carry/hub-<name>/build (never committed), then run and benched
# like the reference kernels. KCHECK_GPU_RUN="NAME ..." runs and benches
# only these carried kernels (the compile baselines of all four kernels take
# longer than one device call allows).
#
# KCHECK_HARNESS_REPOS="DIR ..." carries real kernel repositories whose build/
# already holds CUDA variants (built by `kcheck build`): their build.toml,
# tests/ and build/ go to .gpu-carry/kc-<name>, never committed, with the
# wheels their tests need (pytest, kernels, einops) in .gpu-carry/wheels.
# `harness` then runs bench/harness_corpus.py over them on the GPU machine:
# `kcheck run --tests` on each (issue #27's table in bench/RESULTS.md).
#
# `run` uses the GPU machine's own Torch (same 2.11.0+cu130) for
# kcheck_worker's libtorch and for the Python import check:
#   1. kcheck run   : load, dispatcher audit, every op vs reference/ops in
#                     float32/float16/bfloat16 at three sizes (KD, KO006)
#   2. kcheck bench : the same plus timings, device copy bandwidth, the
#                     baselines eager and under torch.compile (default and
#                     max-autotune-no-cudagraphs) (KB001). Compiling every
#                     case of activation takes longer than one device call
#                     allows, so kernels with more than KCHECK_GPU_ALL_SIZES_OPS
#                     ops (4) are benched at the large size only; each
#                     variant's compiling is bounded by
#                     KCHECK_GPU_COMPILE_TIMEOUT seconds (150)
#   3. reference/kernels/tests/time_op.py: an independent torch.cuda.Event timing of
#      relu, rms_norm, silu_and_mul and gelu_and_mul (bfloat16 and float32,
#      the largest size kcheck timed) on the same shapes, and of their
#      baselines eager and compiled, compared with kcheck's medians (must
#      agree within 3%)
#   4. reference/kernels/tests/bench_table.py: the table for bench/RESULTS.md
set -euo pipefail
cd "$(dirname "$0")/.."
carry=.gpu-carry
read -r -a kernels <<<"${KCHECK_GPU_KERNELS-relu activation rms_norm}"  # reference kernels; "" for none

# On the GPU machine: its own Torch for kcheck_worker's libtorch and the Python
# checks, the carried libraries, and where the reports go ($out).
device_environment() {
  python=${KCHECK_GPU_PYTHON:-/opt/torch/.venv/bin/python}
  torch_lib=$("$python" -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))")
  export KCHECK_LIBPYTHON=$("$python" -c "import os, sysconfig; print(os.path.join(sysconfig.get_config_var('LIBDIR'), sysconfig.get_config_var('LDLIBRARY')))")
  export LD_LIBRARY_PATH="$PWD/$carry/lib:$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  out=${OUT:-$carry/out}
  mkdir -p "$out"
}

# The kernels run and benched: the reference kernels and every Hub kernel
# carried, or only KCHECK_GPU_RUN="NAME ..." (e.g. "hub-activation").
carried_kernels() {
  for hub in "$carry"/hub-*/; do
    [[ -d $hub ]] && kernels+=("$(basename "$hub")")
  done
  [[ -z ${KCHECK_GPU_RUN:-} ]] || read -r -a kernels <<<"$KCHECK_GPU_RUN"
}

case "${1:-}" in
  build)
    build_dir=${KCHECK_BUILD_DIR:-_build}
    capabilities=${KCHECK_CUDA_CAPABILITIES:-}
    if [[ "${KCHECK_GPU_REUSE_VARIANTS:-0}" != 1 ]]; then
      for kernel in "${kernels[@]}"; do
        "$build_dir/kcheck" build "reference/kernels/$kernel" --backends cuda ${capabilities:+--cuda-capabilities "$capabilities"} \
          --output-dir "$carry/$kernel/build" --scratch-dir "$build_dir/gpu-scratch/$kernel" >"$carry-$kernel.log" 2>&1 ||
          { cat "$carry-$kernel.log"; exit 1; }
      done
      for source in ${KCHECK_HUB_KERNELS:-}; do
        # A Hub kernel is taken as it is: audit findings (exit 1) are printed, not fatal; a failed build is.
        name=hub-$(basename "$source")
        status=0
        "$build_dir/kcheck" build "$source" --backends cuda ${capabilities:+--cuda-capabilities "$capabilities"} \
          --output-dir "$carry/$name/build" --scratch-dir "$build_dir/gpu-scratch/$name" >"$carry-$name.log" 2>&1 || status=$?
        cat "$carry-$name.log"
        [[ $status -le 1 ]] && ls "$carry/$name/build"/*/*.abi3.so || exit 1
      done
    fi
    # Packed (the carry is limited to 64 MiB): `harness` unpacks them.
    rm -rf "${carry:?}"/kc-* "$carry/harness-repos.tar.xz"
    for source in ${KCHECK_HARNESS_REPOS:-}; do
      name=kc-$(basename "$source")
      mkdir -p "$carry/$name"
      cp "$source/build.toml" "$carry/$name/"
      [[ -d $source/tests ]] && cp -r "$source/tests" "$carry/$name/"
      cp -r "$source/build" "$carry/$name/"
    done
    if [[ -n ${KCHECK_HARNESS_REPOS:-} ]]; then
      tar -C "$carry" -cJf "$carry/harness-repos.tar.xz" $(cd "$carry" && ls -d kc-*)
      rm -rf "${carry:?}"/kc-*
    fi
    if [[ -n ${KCHECK_HARNESS_REPOS:-} ]]; then
      .venv/bin/python -m pip download -q --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
        --platform manylinux_2_28_x86_64 -d "$carry/wheels" pytest==9.2.0 kernels==0.17.2 einops
    fi
    mkdir -p "$carry/bin" "$carry/lib"
    cp "$build_dir/kcheck" "$build_dir/kcheck_worker" "$carry/bin/"
    strip --strip-debug "$carry/bin/kcheck" "$carry/bin/kcheck_worker"  # the carry is limited to 64 MiB
    for library in libLIEF.so.0 libtomlplusplus.so.3 libmbedx509.so.1 libmbedcrypto.so.7; do
      cp -L "/usr/lib/x86_64-linux-gnu/$library" "$carry/lib/"
    done
    du -sh "$carry"
    ;;
  harness)
    # The kernels' own tests need pytest, kernels and einops beside the GPU machine's Torch.
    device_environment
    # A venv of its own that sees the machine's Torch through a .pth file
    # (read even under `python -I`, unlike PYTHONPATH); --system-site-packages
    # would see the base interpreter's packages, not /opt/torch/.venv's.
    "$python" -m venv "$carry/test-venv"
    purelib='import sysconfig; print(sysconfig.get_paths()["purelib"])'
    "$python" -c "$purelib" >"$("$carry/test-venv/bin/python" -c "$purelib")/machine-torch.pth"
    "$carry/test-venv/bin/python" -m pip install -q --no-index --find-links "$carry/wheels" pytest kernels einops
    [[ ! -f $carry/harness-repos.tar.xz ]] || tar -C "$carry" -xJf "$carry/harness-repos.tar.xz"
    # kcheck builds its worker on first use against the test venv's Torch (the machine's), cached here.
    export XDG_CACHE_HOME=$PWD/$carry/cache
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    # KCHECK_HARNESS_ONLY="kc-NAME ...": only these of the carried repositories (one device call each part).
    repos=("$carry"/kc-*/)
    [[ -z ${KCHECK_HARNESS_ONLY:-} ]] || { repos=(); for name in $KCHECK_HARNESS_ONLY; do repos+=("$carry/$name/"); done; }
    python3 bench/harness_corpus.py "$carry/bin/kcheck" "$PWD/$carry/test-venv/bin/python" "${repos[@]}" \
      --timeout "${KCHECK_HARNESS_TIMEOUT:-240}" --json-dir "$out" | tee "$out/harness-corpus.md"
    # KCHECK_HARNESS_BENCH="kc-NAME ...": `kcheck bench` of those at the large
    # size against their baselines (eager; torch.compile modes from
    # KCHECK_HARNESS_COMPILE, default none), Markdown and JSON into $out.
    for name in ${KCHECK_HARNESS_BENCH:-}; do
      "$carry/bin/kcheck" bench "$carry/$name" --python "$PWD/$carry/test-venv/bin/python" --sizes large --seed 20261127 \
        --compile "${KCHECK_HARNESS_COMPILE:-none}" --format json -o "$out/bench-$name.json" || true
      "$carry/bin/kcheck" report "$out/bench-$name.json" --format markdown -o "$out/bench-$name.md" || true
      sed -n '/^### Benchmarks/,$p' "$out/bench-$name.md" | grep -E '^\| (float|bfloat)|^#### |^Device' || true
    done
    ;;
  run)
    device_environment
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    "$python" -c "import torch; print('torch', torch.__version__, 'on', torch.cuda.get_device_name())"
    date -u
    "$carry/bin/kcheck_worker" --info
    status=0
    carried_kernels
    for kernel in "${kernels[@]}"; do
      echo "== kcheck run $kernel"
      "$carry/bin/kcheck" run "$carry/$kernel" --python "$python" --format json -o "$out/run-$kernel.json" || status=1
      "$carry/bin/kcheck" report "$out/run-$kernel.json" --format text | tail -n 5 || true
      "$python" -c "import json,sys; r=json.load(open(sys.argv[1])); c=r['dynamic']['op_checks']; \
print(len(c), 'op checks,', sum(not x['passed'] for x in c), 'failed;', len(r['findings']), 'findings')" "$out/run-$kernel.json"
    done
    for kernel in "${kernels[@]}"; do
      echo "== kcheck bench $kernel"
      sizes=()
      ops=$("$python" -c "import json,sys; print(len({c['op'] for c in json.load(open(sys.argv[1]))['dynamic']['op_checks']}))" \
        "$out/run-$kernel.json")
      ((ops <= ${KCHECK_GPU_ALL_SIZES_OPS:-4})) || sizes=(--sizes large)
      SECONDS=0
      "$carry/bin/kcheck" bench "$carry/$kernel" "${sizes[@]}" --python "$python" --seed 20261122 \
        --compile default,max-autotune-no-cudagraphs --compile-timeout "${KCHECK_GPU_COMPILE_TIMEOUT:-150}" \
        --format json -o "$out/bench-$kernel.json" || status=1
      echo "($ops ops${sizes[*]:+, ${sizes[*]}}: $SECONDS s)"
      "$carry/bin/kcheck" report "$out/bench-$kernel.json" --format markdown >"$out/bench-$kernel.md" || true
    done
    echo "== independent timing (torch.cuda.Event in Python) vs kcheck bench"
    if [[ " ${kernels[*]} " == *" activation "* ]]; then
      "$python" reference/kernels/tests/time_op.py "$carry/activation" "$out/bench-activation.json" \
        silu_and_mul gelu_and_mul || status=1
    fi
    for kernel in relu rms_norm; do
      if [[ " ${kernels[*]} " == *" $kernel "* ]]; then
        "$python" reference/kernels/tests/time_op.py "$carry/$kernel" "$out/bench-$kernel.json" "$kernel" || status=1
      fi
    done
    if [[ " ${kernels[*]} " == *" hub-activation "* ]]; then
      "$python" reference/kernels/tests/time_op.py "$carry/hub-activation" "$out/bench-hub-activation.json" \
        silu_and_mul gelu_and_mul || status=1
    fi
    echo "== table"
    tables=()
    for kernel in "${kernels[@]}"; do tables+=("$out/bench-$kernel.json"); done
    "$python" reference/kernels/tests/bench_table.py "${tables[@]}" | tee "$out/table.md"
    exit $status
    ;;
  check)
    # `kcheck run` of each carried kernel: the op checks alone, no timing
    # (minutes less than `run`, whose compile baselines are the slow part).
    device_environment
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    date -u
    status=0
    carried_kernels
    for kernel in "${kernels[@]}"; do
      echo "== kcheck run $kernel"
      "$carry/bin/kcheck" run "$carry/$kernel" --python "$python" --format json -o "$out/run-$kernel.json" || status=1
      # The reference kernels also through check_ops.py on the GPU: odd shapes and
      # inputs one element or 8 bytes past a 16-byte boundary, which kcheck run's
      # aligned buffers never give (our own kernels, so outside the sandbox).
      case $kernel in
        relu | activation | rms_norm)
          echo "== check_ops.py $kernel cuda"
          "$python" reference/kernels/tests/check_ops.py "$carry/$kernel" cuda --loader importlib \
            >"$out/check-ops-$kernel.txt" 2>&1 || status=1
          tail -n 1 "$out/check-ops-$kernel.txt"
          ;;
      esac
      # A run that wrote no report (exit 2: nothing could run) is said so; the other kernels still run.
      [[ -s $out/run-$kernel.json ]] || { echo "no report for $kernel"; continue; }
      "$carry/bin/kcheck" report "$out/run-$kernel.json" --format text | tail -n 5 || true
      "$python" -c "import json,sys; r=json.load(open(sys.argv[1])); c=r['dynamic']['op_checks']; \
print(len(c), 'op checks,', sum(not x['passed'] for x in c), 'failed;', len(r['findings']), 'findings')" "$out/run-$kernel.json"
    done
    exit $status
    ;;
  repeat)
    # `kcheck bench --sizes large` RUNS times per kernel (default 5), with the
    # torch.compile modes of KCHECK_GPU_REPEAT_COMPILE (both; "none" for none),
    # then the median with min-max over the runs of every figure (speedup_summary.py).
    device_environment
    carried_kernels
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    date -u
    reports=()
    started=$SECONDS
    for run in $(seq "${3:-1}" $((${3:-1} + ${2:-5} - 1))); do
      # KCHECK_GPU_REPEAT_BUDGET=SECONDS: start no run after that many seconds
      # (a run started before then still runs to its end: set it to the call's
      # limit less one run; the runs not started go to the next call as FIRST).
      if [[ -n ${KCHECK_GPU_REPEAT_BUDGET:-} && $run != "${3:-1}" ]] &&
        ((SECONDS - started > KCHECK_GPU_REPEAT_BUDGET)); then
        echo "stopping before run $run: $((SECONDS - started)) s used (KCHECK_GPU_REPEAT_BUDGET=$KCHECK_GPU_REPEAT_BUDGET)"
        break
      fi
      for kernel in "${kernels[@]}"; do
        "$carry/bin/kcheck" bench "$carry/$kernel" --python "$python" --sizes "${KCHECK_GPU_REPEAT_SIZES:-large}" --seed "$run" \
          --compile "${KCHECK_GPU_REPEAT_COMPILE:-default,max-autotune-no-cudagraphs}" \
          --compile-timeout "${KCHECK_GPU_COMPILE_TIMEOUT:-150}" --format json \
          -o "$out/repeat-$kernel-$run.json" >/dev/null || exit 1
        reports+=("$out/repeat-$kernel-$run.json")
      done
    done
    # With the three-decimal table (x best Torch, and x compiled on the same buffers).
    "$python" reference/kernels/tests/speedup_summary.py --decimals "${reports[@]}"
    ;;
  *)
    echo "usage: $0 build|run|check|repeat [RUNS [FIRST]]" >&2
    exit 2
    ;;
esac
