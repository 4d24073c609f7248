#!/usr/bin/env python3
"""Build one backend of a reference kernel into a loadable native module,
without kernel-builder, for testing the sources (check_ops.py).

Usage:
    build_so.py KERNEL_DIR BACKEND OUT_DIR [--archs 9.0 ...] [-j N]

Compiles the sources of every [kernel.*] component of BACKEND (cpu or cuda)
listed in KERNEL_DIR/build.toml, plus the [torch] binding sources, against
the Torch of the running Python, and links OUT_DIR/<id>.abi3.so with
id = _<module>_<backend>_test. It provides what the builder provides: a
registration.h (written into a temporary directory, never into the kernel
tree), TORCH_EXTENSION_NAME=<id>, and CPU_KERNEL or CUDA_KERNEL.
"""

import argparse
import os
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

REGISTRATION_H = """#pragma once
#include <Python.h>
#define _CONCAT(A, B) A##B
#define CONCAT(A, B) _CONCAT(A, B)
#define _STRINGIFY(A) #A
#define STRINGIFY(A) _STRINGIFY(A)
#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)
#define REGISTER_EXTENSION(NAME) PyMODINIT_FUNC CONCAT(PyInit_, NAME)() { \\
  static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, STRINGIFY(NAME), nullptr, 0, nullptr}; \\
  return PyModule_Create(&module); }
"""

COMPILED = (".cpp", ".cc", ".cxx", ".cu")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernel_dir", type=Path)
    parser.add_argument("backend", choices=["cpu", "cuda"])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--archs", nargs="+", default=["9.0"],
                        help="CUDA capabilities (default 9.0)")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    args = parser.parse_args(argv)

    import torch
    torch_dir = Path(torch.__file__).parent
    kernel_dir = args.kernel_dir.resolve()
    config = tomllib.loads((kernel_dir / "build.toml").read_text())
    module = config["general"]["name"].replace("-", "_")
    ext_id = f"_{module}_{args.backend}_test"

    sources = [kernel_dir / s for s in config["torch"].get("src", [])]
    for component in config.get("kernel", {}).values():
        if component["backend"] == args.backend:
            sources += [kernel_dir / s for s in component["src"]]
    sources = [s for s in dict.fromkeys(sources) if s.suffix in COMPILED]

    args.out_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="refkern-"))
    (scratch / "registration.h").write_text(REGISTRATION_H)
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    defines = [f"-DTORCH_EXTENSION_NAME={ext_id}", f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
               "-DCPU_KERNEL" if args.backend == "cpu" else "-DCUDA_KERNEL"]
    includes = [f"-I{torch_dir}/include", f"-I{torch_dir}/include/torch/csrc/api/include",
                f"-I{scratch}"]
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    if args.backend == "cuda":
        includes.append(f"-I{cuda_home}/include")

    def command(src, obj):
        if src.suffix == ".cu":
            gencode = []
            for arch in args.archs:
                cc = arch.replace(".", "")
                gencode += ["-gencode", f"arch=compute_{cc},code=sm_{cc}"]
            return [f"{cuda_home}/bin/nvcc", "-std=c++17", "-O3", "-c", "-Xcompiler", "-fPIC",
                    *defines, *includes, *gencode, str(src), "-o", str(obj)]
        return ["g++", "-std=c++17", "-O2", "-fPIC", "-c", "-Wall",
                "-DPy_LIMITED_API=0x03090000", *defines, *includes,
                f"-I{sysconfig.get_paths()['include']}", str(src), "-o", str(obj)]

    def compile_one(i_src):
        i, src = i_src
        obj = scratch / f"{i}_{src.stem}.o"
        cmd = command(src, obj)
        result = subprocess.run(cmd, capture_output=True, text=True)
        print(f"[{'ok' if result.returncode == 0 else 'FAILED'}] {src.relative_to(kernel_dir)}",
              flush=True)
        if result.returncode != 0:
            print(" ".join(cmd), "\n", result.stdout, result.stderr, file=sys.stderr)
        return obj if result.returncode == 0 else None

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        objects = list(pool.map(compile_one, enumerate(sources)))
    if None in objects:
        return 1

    so = args.out_dir / f"{ext_id}.abi3.so"
    libs = [f"-L{torch_dir}/lib", "-ltorch", "-ltorch_cpu", "-lc10"]
    if args.backend == "cuda":
        libs += ["-ltorch_cuda", "-lc10_cuda", f"-L{cuda_home}/lib64", "-lcudart"]
    link = ["g++", "-shared", *map(str, objects), "-o", str(so), *libs]
    result = subprocess.run(link, capture_output=True, text=True)
    if result.returncode != 0:
        print(" ".join(link), "\n", result.stdout, result.stderr, file=sys.stderr)
        return 1
    print(so)
    return 0


if __name__ == "__main__":
    sys.exit(main())
