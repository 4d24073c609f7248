#!/usr/bin/env bash
# Installs everything kcheck needs on a fresh Debian 12 machine: the Debian
# packages it builds with, and a Python venv inside the repo (.venv, ignored
# by git) holding Torch, whose headers and libraries `kcheck build` and the
# fixtures build against, and the Python tools of the tests.
#   scripts/setup.sh              everything the test command needs
#   scripts/setup.sh --build-only what building kcheck and the reference
#                                 kernels needs (the demo): no test toolchain
#   scripts/setup.sh --wheel-deps only the Debian/Ubuntu packages `pip install .`
#                                 builds the kcheck command with (no venv)
# Re-running it is fast and changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
case $mode in all | --build-only | --wheel-deps) ;; *) echo "setup.sh: unknown option $mode" >&2; exit 2 ;; esac

# What `pip install .` (the portable kcheck: LIEF with mbedTLS, libcrypto and
# toml++ linked in) needs; the same names on Debian 12 and Ubuntu 24.04.
wheel_packages=(
  build-essential cmake ninja-build pkg-config python3 python3-venv
  liblief-dev libmbedtls-dev libtomlplusplus-dev nlohmann-json3-dev libcli11-dev
  libkainjow-mustache-dev libssl-dev libzstd-dev liblz4-dev
)
# What building kcheck with its tests' libraries and `kcheck build` need.
debian_packages=("${wheel_packages[@]}" libgtest-dev libgmock-dev libbenchmark-dev binutils)
[[ $mode == --wheel-deps ]] && debian_packages=("${wheel_packages[@]}")
build_only=false
[[ $mode != all ]] && build_only=true
# What only the tests need.
$build_only || debian_packages+=(
  # the KE004 fixture links libelf, a library outside the allowed list (tests/elf/fixtures.cmake)
  libelf-dev
  # fixture toolchains: HIP device code, a foreign machine, Mach-O (clang + lld)
  hipcc gcc-aarch64-linux-gnu clang lld
  # libFuzzer and the sanitizer runtimes for clang (fuzz/, scripts/test-sanitizers.sh)
  libclang-rt-14-dev
  # the HTML report's browser test (headless Chromium) and a font for its screenshot
  chromium fonts-dejavu-core
  # the style and lint checks of the test suite (.clang-format, .clang-tidy, scripts/lint.sh)
  clang-format clang-tidy
  # the Slurm array test of `kcheck scan --shard` (tests/integrations/slurm_array_scan_test.sh)
  slurm-wlm munge
  # bench/ke012_differential.py's independent decompression of CUDA device code
  zstd
)
missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[[ $mode != --wheel-deps ]] || exit 0

if [[ ! -x .venv/bin/python ]]; then
  echo "setup: creating .venv" >&2
  python3 -m venv .venv
fi

# Reinstall the Python tools only when requirements-dev.txt changed; for a
# build only, Torch (its pinned line of requirements-dev.txt) alone.
stamp=.venv/.kcheck-requirements.sha256
wanted=$(sha256sum requirements-dev.txt | cut -d' ' -f1)
if $build_only; then
  torch_pin=$(grep -E '^torch==' requirements-dev.txt)
  if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    echo "setup: installing $torch_pin" >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check "$torch_pin"
  fi
elif [[ ! -f $stamp || $(cat "$stamp") != "$wanted" ]]; then
  echo "setup: installing Python tools from requirements-dev.txt" >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
  echo "$wanted" > "$stamp"
fi
