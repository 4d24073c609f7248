#!/usr/bin/env python3
"""Derives kcheck's own policy files (rules/policies/*.toml) and rule data
(rules/policies/data/*.json) from the upstream facts kept in rules/upstream-facts.json
and the values below (each with its source). Two steps:

    python3 rules/generate.py
        rules/upstream-facts.json -> rules/policies/ (nothing outside the repository is read)
    python3 rules/generate.py --extract-from DIR
        first refreshes rules/upstream-facts.json, rules/policies/data/python-stable-abi.json and
        rules/policies/data/torch-stable-abi-shims.json from the upstream files in DIR (as
        published: auditwheel's manylinux-policy.json, CPython's stable_abi.toml,
        PyTorch's shim_function_versions.txt, kernel-builder's CUDA capabilities,
        kernels-data's python dependencies), keeping only the facts kcheck uses

What each value comes from:
- symbol ceilings, system-library whitelist, blacklisted symbols: the
  manylinux policy named by the kcheck policy (manylinux_2_28 for `hub`,
  manylinux_2_27 for `hub-legacy`, whose GLIBC 2.27 is the seeds' floor),
  taking per family the highest numeric version listed;
- the CPython Stable ABI symbols and the version each was added in:
  python-stable-abi.toml (functions and data only: what a binary can import);
- named version nodes judged as the release that introduced them:
  NAMED_VERSION_RELEASES below;
- Torch stable-ABI shim versions: torch-stable-abi-shim-versions.txt;
- allowed python-depends and their import names: python-dependencies.json;
- CUDA capabilities: cuda-supported-archs.json; the capabilities each CUDA
  toolkit compiles when a component lists none: build-variants.md §5.1;
- ROCm architectures the builder supports: build-variants.md §5.2 (the same
  list as build-toml.md §5.7);
- required variants: build-variants.md §2.2 (`hub`) and seed 004 (`hub-legacy`);
- the standard-library module list: sys.stdlib_module_names of the running
  interpreter (3.10+), so run this with the newest Python available.
"""
import argparse
import json
import pathlib
import re
import sys
import tomllib

HERE = pathlib.Path(__file__).resolve().parent

# Torch's own libraries and the accelerator libraries Torch installs as its
# dependencies (CUDA wheels from nvidia-*, ROCm and XPU runtimes).
TORCH_LIBRARIES = [
    "libtorch.so", "libtorch_cpu.so", "libtorch_cuda.so", "libtorch_cuda_linalg.so",
    "libtorch_hip.so", "libtorch_xpu.so", "libtorch_python.so", "libtorch_global_deps.so",
    "libc10.so", "libc10_cuda.so", "libc10_hip.so", "libc10_xpu.so", "libshm.so",
    "libcuda.so.1", "libcudart.so.*", "libcublas.so.*", "libcublasLt.so.*", "libcufft.so.*",
    "libcufile.so.*", "libcurand.so.*", "libcusolver.so.*", "libcusparse.so.*",
    "libcusparseLt.so.*", "libcudnn*.so.*", "libnccl.so.*", "libnvrtc.so.*",
    "libnvrtc-builtins.so.*", "libnvJitLink.so.*", "libcupti.so.*", "libnvToolsExt.so.*",
    "libnvshmem_host.so.*", "libamdhip64.so*", "libhipblas.so*", "libhipblaslt.so*",
    "librocblas.so*", "libMIOpen.so*", "libhipfft.so*", "libhiprand.so*", "librocrand.so*",
    "libhipsparse.so*", "libhipsolver.so*", "librccl.so*", "libroctx64.so*",
    "libroctracer64.so*", "libhsa-runtime64.so*", "libsycl.so*", "libze_loader.so*",
    "libOpenCL.so*", "libsvml.so", "libintlc.so*", "libirng.so", "libimf.so",
    "libmkl_*.so*", "libdnnl.so*", "libur_loader.so*", "libumf.so*", "libtbb.so*",
]

# Hub license identifiers (https://huggingface.co/docs/hub/repositories-licenses).
# build-variants.md §5.1: per toolkit (newest first), the capabilities compiled
# when a component lists none; the last entry applies to every older toolkit.
CUDA_TOOLKIT_DEFAULTS = [
    ("13.0", ["7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "11.0", "12.0", "12.1+PTX"]),
    ("12.8", ["7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.1", "12.0+PTX"]),
    ("0", ["7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0+PTX"]),
]

# build-variants.md §5.2: the ROCm architectures the builder supports.
ROCM_ARCHS = ["gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1200", "gfx1201"]

HUB_LICENSES = """apache-2.0 mit openrail bigscience-openrail-m creativeml-openrail-m
bigscience-bloom-rail-1.0 bigcode-openrail-m afl-3.0 artistic-2.0 bsl-1.0 bsd bsd-2-clause
bsd-3-clause bsd-3-clause-clear c-uda cc cc0-1.0 cc-by-2.0 cc-by-2.5 cc-by-3.0 cc-by-4.0
cc-by-sa-3.0 cc-by-sa-4.0 cc-by-nc-2.0 cc-by-nc-3.0 cc-by-nc-4.0 cc-by-nd-4.0 cc-by-nc-nd-3.0
cc-by-nc-nd-4.0 cc-by-nc-sa-2.0 cc-by-nc-sa-3.0 cc-by-nc-sa-4.0 cdla-sharing-1.0
cdla-permissive-1.0 cdla-permissive-2.0 wtfpl ecl-2.0 epl-1.0 epl-2.0 etalab-2.0 eupl-1.1
eupl-1.2 agpl-3.0 gfdl gpl gpl-2.0 gpl-3.0 lgpl lgpl-2.1 lgpl-3.0 isc h-research
intel-research lppl-1.3c ms-pl apple-ascl apple-amlr mpl-2.0 odc-by odbl openrail++ osl-3.0
postgresql ofl-1.1 ncsa unlicense zlib pddl lgpl-lr deepfloyd-if-license llama2 llama3
llama3.1 llama3.2 llama3.3 llama4 gemma unknown other""".split()

SYSTEMS_HUB = {
    ("aarch64-darwin", "cpu"): ["torch212-cpu-aarch64-darwin", "torch213-cpu-aarch64-darwin"],
    ("aarch64-darwin", "metal"): ["torch212-metal-aarch64-darwin", "torch213-metal-aarch64-darwin"],
    ("aarch64-linux", "cpu"): ["torch212-cxx11-cpu-aarch64-linux", "torch213-cxx11-cpu-aarch64-linux"],
    ("aarch64-linux", "cuda"): [f"torch{t}-cxx11-{c}-aarch64-linux" for t in ("212", "213") for c in ("cu126", "cu130", "cu132")],
    ("x86_64-linux", "cpu"): ["torch212-cxx11-cpu-x86_64-linux", "torch213-cxx11-cpu-x86_64-linux"],
    ("x86_64-linux", "cuda"): [f"torch{t}-cxx11-{c}-x86_64-linux" for t in ("212", "213") for c in ("cu126", "cu130", "cu132")],
    ("x86_64-linux", "rocm"): [f"torch{t}-cxx11-{r}-x86_64-linux" for t in ("212", "213") for r in ("rocm71", "rocm72")],
    ("x86_64-linux", "xpu"): ["torch212-cxx11-xpu20253-x86_64-linux", "torch213-cxx11-xpu20260-x86_64-linux"],
}
SYSTEMS_LEGACY = {
    ("x86_64-linux", "cuda"): [f"torch{t}-{x}-{c}-x86_64-linux"
                               for t, cs in (("25", ("cu118", "cu121", "cu124")), ("26", ("cu118", "cu124", "cu126")))
                               for x in ("cxx11", "cxx98") for c in cs],
}

POLICIES = {
    "hub": {
        "description": "Current Hub requirements: manylinux_2_28 symbol ceilings, dynamic libstdc++ "
                       "within them, abi3 for Python 3.9, the Torch 2.12/2.13 required variants.",
        "manylinux": "manylinux_2_28",
        "cxx_runtime": "dynamic-within-ceilings",
        "package": "top-level",
        "required": SYSTEMS_HUB,
    },
    "hub-legacy": {
        "description": "The seed requirements: glibc 2.27, C++ runtime linked statically (no "
                       "libstdc++/libc++ at all), abi3 for Python 3.9, the torch25/torch26 variants, "
                       "nested <module>/__init__.py package.",
        "manylinux": "manylinux_2_27",
        "cxx_runtime": "static-only",
        "package": "nested",
        "required": SYSTEMS_LEGACY,
    },
}
ARCHS = ("x86_64", "aarch64")


# Version nodes without a number that a numbered release introduced; the
# loader refuses a module needing one on an older release just as for the
# numbered node, so KE001/KE002 judge it as that release.
# GLIBC_ABI_DT_RELR: glibc 2.36 introduced DT_RELR support (NEWS for 2.36);
# `ld -z pack-relative-relocs` makes every module need it.
NAMED_VERSION_RELEASES = {"GLIBC_ABI_DT_RELR": "GLIBC_2.36"}


def toml_string(value):
    return json.dumps(value)  # TOML basic strings accept JSON string escapes


def toml_list(values):
    return "[" + ", ".join(toml_string(v) for v in values) + "]"


def version_key(text):
    return tuple(int(p) for p in text.split("."))


def ceilings(manylinux_policy, arch):
    families = {}
    named = []
    for family, versions in sorted(manylinux_policy["symbol_versions"][arch].items()):
        numeric = [v for v in versions if re.fullmatch(r"[0-9]+(\.[0-9]+)*", v)]
        named += [f"{family}_{v}" for v in versions if v not in numeric]
        if numeric:
            families[family] = max(numeric, key=version_key)
    return families, named


# The ELF interpreters: every process has one loaded, and a module that uses
# thread-local storage imports __tls_get_addr from it (auditwheel never treats
# the interpreter as an external library either).
DYNAMIC_LOADERS = ["ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"]


def write_policy(name, spec, reference, out):
    manylinux = reference["manylinux"][spec["manylinux"]]
    lines = [
        f"# kcheck policy `{name}`. Generated by rules/generate.py from rules/upstream-facts.json",
        "# and the generator's own tables; edit the generator, not this file.",
        "",
        "[policy]",
        f"name = {toml_string(name)}",
        f"description = {toml_string(spec['description'])}",
        "format = 1",
        "",
        "[native]",
        f"cxx-runtime = {toml_string(spec['cxx_runtime'])}",
        f"system-libraries = {toml_list(manylinux['lib_whitelist'] + DYNAMIC_LOADERS)}",
        f"torch-libraries = {toml_list(TORCH_LIBRARIES)}",
    ]
    named_all = []
    ceiling_blocks = []
    for arch in ARCHS:
        families, named = ceilings(manylinux, arch)
        named_all += named
        ceiling_blocks += ["", f"[native.symbol-ceilings.{arch}]"]
        ceiling_blocks += [f"{family} = {toml_string(v)}" for family, v in families.items()]
    lines.append(f"allowed-named-versions = {toml_list(sorted(set(named_all)))}")
    lines += ["", "[native.named-version-releases]"]
    lines += [f"{name} = {toml_string(release)}" for name, release in sorted(NAMED_VERSION_RELEASES.items())]
    lines += ceiling_blocks
    lines += ["", "[native.blacklisted-symbols]"]
    lines += [f"{toml_string(lib)} = {toml_list(sorted(syms))}" for lib, syms in sorted(manylinux["blacklist"].items())]
    lines += ["", "[native.macos-minimum]", 'cpu = "15.0"', 'metal = "26.0"']
    lines += ["", "[python]", 'floor = "3.9"',
              'stable-abi = "data/python-stable-abi.json"',
              'stdlib-modules = "data/python-stdlib-modules.json"']
    lines += ["", "[python.torch-bundled]"]
    lines += [f"{backend} = {toml_list(modules)}" for backend, modules in sorted(TORCH_BUNDLED_MODULES.items())]
    deps = reference["python_dependencies"]
    lines += ["", "[python.dependencies.general]"]
    lines += [f"{toml_string(n)} = {toml_list(imports)}" for n, imports in sorted(deps["general"].items())]
    for backend, table in sorted(deps["backends"].items()):
        lines += ["", f"[python.dependencies.backends.{backend}]"]
        lines += [f"{toml_string(n)} = {toml_list(imports)}" for n, imports in sorted(table.items())]
    lines += ["", "[layout]", f"package = {toml_string(spec['package'])}"]
    lines += ["", "[cuda]", f"supported-capabilities = {toml_list(reference['cuda_archs'])}"]
    for min_toolkit, capabilities in CUDA_TOOLKIT_DEFAULTS:
        lines += ["", "[[cuda.toolkit-defaults]]", f"min-toolkit = {toml_string(min_toolkit)}",
                  f"capabilities = {toml_list(capabilities)}"]
    lines += ["", "[rocm]", f"supported-archs = {toml_list(ROCM_ARCHS)}"]
    lines += ["", "[torch]", 'stable-abi-shims = "data/torch-stable-abi-shims.json"']
    lines += ["", "[licenses]", f"accepted = {toml_list(HUB_LICENSES)}"]
    # A repository's kcheck.toml may silence one rule per entry, never a family ("KP") or everything ("K").
    lines += ["", "[suppressions]", "code-prefixes = false"]
    for (system, backend), variants in sorted(spec["required"].items()):
        lines += ["", "[[required-variants]]", f"system = {toml_string(system)}",
                  f"backend = {toml_string(backend)}", f"variants = {toml_list(variants)}"]
    (out / f"{name}.toml").write_text("\n".join(lines) + "\n")


def write_json(path, payload):
    path.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")


def stable_abi_symbols(manifest):
    symbols = {}
    for kind in ("function", "data"):
        for name, item in manifest.get(kind, {}).items():
            symbols[name] = item["added"]
    return symbols


def shim_versions(text):
    shims = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*):\s*TORCH_VERSION_(\d+)_(\d+)_(\d+)\s*", line)
        if m:
            shims[m.group(1)] = f"{m.group(2)}.{m.group(3)}.{m.group(4)}"
    return shims


# Modules a backend's Torch installs by its own requirements, importable by a
# kernel without a python-depends entry (KP002). Source: the Requires-Dist of
# the torch 2.11.0 wheels on Linux: on every backend filelock,
# typing-extensions, setuptools, sympy, networkx, jinja2 and fsspec ("all");
# the CUDA wheel also requires triton==3.6.0 and cuda-bindings (import name
# `cuda.bindings`, listed as that package so that other `cuda.*` packages stay
# undeclared); the ROCm wheels require pytorch-triton-rocm and the XPU wheels
# pytorch-triton-xpu, both imported as `triton`.
TORCH_BUNDLED_MODULES = {
    "all": ["filelock", "fsspec", "jinja2", "networkx", "setuptools", "sympy", "typing_extensions"],
    "cuda": ["cuda.bindings", "triton"],
    "rocm": ["triton"],
    "xpu": ["triton"],
}


FACTS = HERE / "upstream-facts.json"


def import_names(dependency):
    return [p["import"] for p in dependency["python"] if "import" in p]


def extract_upstream_facts(ref, out):
    """Keeps, from the upstream files in `ref`, the facts the policies use."""
    manylinux = {p["name"]: p for p in json.loads((ref / "manylinux-policy.json").read_text())}
    deps = json.loads((ref / "python-dependencies.json").read_text())
    facts = {
        "sources": {
            "manylinux": "auditwheel (pypa) src/auditwheel/policy/manylinux-policy.json: per policy used, "
                         "symbol_versions of x86_64 and aarch64, lib_whitelist, blacklist",
            "python_dependencies": "kernels-data python dependencies: per name, the import names",
            "cuda_archs": "kernel-builder: CUDA capabilities compiled by default",
        },
        "manylinux": {
            name: {"symbol_versions": {arch: manylinux[name]["symbol_versions"][arch] for arch in ARCHS},
                   "lib_whitelist": manylinux[name]["lib_whitelist"],
                   "blacklist": manylinux[name]["blacklist"]}
            for name in sorted({spec["manylinux"] for spec in POLICIES.values()})
        },
        "python_dependencies": {
            "general": {n: import_names(d) for n, d in deps["general"].items()},
            "backends": {b: {n: import_names(d) for n, d in t.items()} for b, t in deps["backends"].items()},
        },
        "cuda_archs": json.loads((ref / "cuda-supported-archs.json").read_text()),
    }
    write_json(FACTS, facts)
    manifest = tomllib.loads((ref / "python-stable-abi.toml").read_text())
    write_json(out / "data" / "python-stable-abi.json",
               {"source": "CPython Misc/stable_abi.toml (functions and data)",
                "symbols": stable_abi_symbols(manifest)})
    write_json(out / "data" / "torch-stable-abi-shims.json",
               {"source": "PyTorch torch/csrc/stable/c/shim_function_versions.txt",
                "shims": shim_versions((ref / "torch-stable-abi-shim-versions.txt").read_text())})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extract-from", metavar="DIR", help="refresh the upstream facts from upstream files in DIR")
    parser.add_argument("--out", default=str(HERE / "policies"),
                        help="where the policies and their data/ go (default: rules/policies)")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    if args.extract_from:
        extract_upstream_facts(pathlib.Path(args.extract_from), out)
    reference = json.loads(FACTS.read_text())
    for name, spec in POLICIES.items():
        write_policy(name, spec, reference, out)
    if hasattr(sys, "stdlib_module_names"):
        write_json(out / "data" / "python-stdlib-modules.json",
                   {"source": f"sys.stdlib_module_names of Python {sys.version.split()[0]}",
                    "modules": sorted(sys.stdlib_module_names)})


if __name__ == "__main__":
    main()
