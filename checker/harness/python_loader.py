"""kcheck's load of a Python-only variant (`kcheck run` on a noarch kernel).

A Python-only variant has no native module for kcheck_worker to load: its
ops are registered by its Python package. Started by kcheck inside the
worker's containment, through the Python the user gave (--python), never in
kcheck's own process:

    python -I -B -c "<this file>" RESULTS_FD VARIANT_DIR

It imports VARIANT_DIR as a package the way the Hub loader does (importlib,
a unique module name, `__init__.py` first) and writes, as JSON on descriptor
RESULTS_FD (kcheck's result pipe, no file the package can reach): the Torch
version and the backend a noarch package names its ops after, whether
the import finished, the last line of its traceback if not,
and the dispatcher ops that appeared during the import (qualified names,
with the overload when it is not the default). Exit status 3: Torch is not
importable in this Python.
"""

import importlib.util
import json
import os
import pathlib
import sys
import traceback

MAX_OPS = 10000
MAX_MESSAGE = 500


def last_line(text):
    lines = [line for line in str(text or "").splitlines() if line.strip()]
    return (lines[-1] if lines else "")[:MAX_MESSAGE]


def registered_ops(torch):
    """Every op the dispatcher holds, as "ns::name" or "ns::name.overload"."""
    return set(torch._C._dispatch_get_all_op_names())


def torch_backend(torch):
    """The backend a noarch package's _ops.py names its op namespace after
    (`_<name>_<backend>_<unique id>`), decided as upstream's kernel-builder
    template decides it: from the running Torch, not the variant's directory
    (a CUDA build of Torch on a machine without a GPU says "cuda"). The
    _ops.py `kcheck build` writes decides it the same way
    (checker/builder/generated_sources.cpp, python_only_ops_module): change
    both together. This one is kcheck's own, never the package's, so a
    package cannot choose which namespace counts as its own."""
    if hasattr(torch.backends, "tpu"):
        return "tpu"
    if hasattr(torch, "neuron"):
        return "neuron"
    if torch.version.cuda is not None:
        return "cuda"
    if torch.version.hip is not None:
        return "rocm"
    if torch.backends.mps.is_available():
        return "metal"
    if getattr(torch.version, "xpu", None) is not None:
        return "xpu"
    return "cpu"


def import_variant(variant):
    name = "kcheck_import_" + "".join(c if c.isalnum() else "_" for c in variant.name)
    spec = importlib.util.spec_from_file_location(
        name, variant / "__init__.py", submodule_search_locations=[str(variant)]
    )
    if spec is None or spec.loader is None:
        raise ImportError("no importable __init__.py in " + str(variant))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def write_record(results_fd, document):
    """One record on kcheck's result pipe: a NUL ends whatever the package
    wrote there, a NUL ends the record."""
    view = memoryview(b"\0" + json.dumps(document).encode() + b"\0")
    while view:
        view = view[os.write(results_fd, view):]


def main():
    results_fd = int(sys.argv[1])
    variant = pathlib.Path(sys.argv[2])
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - any failure means "no Torch here"
        print("kcheck-skip: no torch in this Python:", error)
        sys.exit(3)
    before = registered_ops(torch)
    result = {"torch": torch.__version__, "backend": torch_backend(torch), "imported": False, "error": "", "ops": []}
    try:
        import_variant(variant)
        result["imported"] = True
    except BaseException as error:  # noqa: BLE001 - SystemExit from the package is a failed import too
        result["error"] = last_line(traceback.format_exc()) or type(error).__name__
    result["ops"] = sorted(registered_ops(torch) - before)[:MAX_OPS]
    write_record(results_fd, result)


if __name__ == "__main__":
    main()
