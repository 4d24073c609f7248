#!/usr/bin/env python3
"""Fails if the reference kernels' copies of gpu_compat.h have drifted apart.

    gpu_compat_in_sync.py [KERNELS_DIR]

Each reference kernel is a standalone kernel-builder source tree, so each
has its own copy of gpu_compat.h: the CUDA/HIP names, the device traits, and
the PDL launch contract (enter_grid, launch), where a difference between
copies could launch a kernel early that does not wait. relu's and
rms_norm's copies must be identical. activation's must equal them once its
own math helpers are taken out: the lines from the one that starts
ACTIVATION_ONLY_FROM to the one before ACTIVATION_ONLY_TO. Prints the first
line where two copies differ. KERNELS_DIR (default: reference/kernels)
holds relu/, rms_norm/ and activation/. Exit status 1 if any copies differ.
"""
import difflib
import sys
from pathlib import Path

DEFAULT_KERNELS = Path(__file__).resolve().parent.parent
ACTIVATION_ONLY_FROM = "// 2^x to about 2 ulp"
ACTIVATION_ONLY_TO = "// The current device's peak memory bandwidth"


def first_difference(name_a, text_a, name_b, text_b):
    """The first differing line of two texts as 'a:N: ... / b:N: ...', or None if they are equal."""
    lines_a, lines_b = text_a.splitlines(), text_b.splitlines()
    for tag, a0, _, b0, _ in difflib.SequenceMatcher(None, lines_a, lines_b, autojunk=False).get_opcodes():
        if tag != "equal":
            line_a = lines_a[a0] if a0 < len(lines_a) else "(end)"
            line_b = lines_b[b0] if b0 < len(lines_b) else "(end)"
            return f"{name_a}:{a0 + 1}: {line_a}\n  {name_b}:{b0 + 1}: {line_b}"
    return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    kernels = Path(argv[0]) if argv else DEFAULT_KERNELS
    copies = {k: (kernels / k / f"{k}_cuda" / "gpu_compat.h").read_text() for k in ("relu", "rms_norm", "activation")}
    activation = copies["activation"]
    start, end = activation.find(ACTIVATION_ONLY_FROM), activation.find(ACTIVATION_ONLY_TO)
    if start < 0 or end < start:
        print("activation's gpu_compat.h: its own math helpers' markers are missing")
        return 1
    shared = activation[:start] + activation[end:]
    differences = [d for d in (first_difference("relu", copies["relu"], "rms_norm", copies["rms_norm"]),
                               first_difference("relu", copies["relu"], "activation (its own helpers out)", shared))
                   if d]
    for difference in differences:
        print(f"gpu_compat.h copies differ:\n  {difference}")
    print(f"{len(differences)} of 2 pairs of gpu_compat.h copies differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
