#!/usr/bin/env bash
# Runs kcheck on a local checkout of a kernel corpus (e.g. kernels-community):
#   bench/corpus.sh DIR [--kcheck PATH] [--python PATH] [--build-timeout SECONDS] [--only NAME,...] [--no-build]
# `kcheck config` on every kernel (DIR/*/build.toml), then `kcheck build
# --backends <cpu,cuda ∩ the kernel's> --cuda-capabilities 9.0` on every kernel
# (one without cpu or cuda: `kcheck build` as it is, which builds its
# Python-only variants or refuses with the reason), one at a time, each with a
# compile limit (default 1200 s per variant); then every built variant is
# imported by the `kernels` loader inside kcheck's sandbox (`kcheck run
# --tests bench/loader_check`): a build counts only when the loader imports
# it. Prints Markdown tables: kernel, result, time, reason. Not part of CI: it
# compiles real kernels for minutes each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/corpus.py" "$@"
