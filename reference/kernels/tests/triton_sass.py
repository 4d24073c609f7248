#!/usr/bin/env python3
"""Compiles the Triton kernels of a TORCH_LOGS=output_code log for sm_90a, here (no GPU), and prints what
ptxas and nvdisasm say of each: registers, instructions, and its global loads, stores and barriers (issue #32).

    triton_sass.py LOG NVDISASM [--config XBLOCK=1,R0_BLOCK=8192] [--num-warps 16]

LOG is Inductor's output code as TORCH_LOGS=output_code writes it (e.g.
bench/results/roofline-h200-2026-11-28-inductor-rms-output-code.txt, the rms_norm kernels of
torch.compile max-autotune on an H200); the config is the one its autotuning chose there
(bench/results/roofline-h200-2026-11-28-inductor-best-configs.txt), applied to every kernel of the log,
with every non-constexpr argument taken as 16-byte divisible. NVDISASM is not part of the CUDA toolkit on
this machine: the Triton in the repository's venv ships one (triton/backends/nvidia/bin). Needs the
repository's venv (Triton comes with the torch wheel). Instruction counts include NOP padding. The kernel text is the log's, compiled as it is;
nothing from a kernel repository is run. Exploration only, like roofline_probe.py.
"""
import argparse
import ast
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PREFIX = re.compile(r"^.*\[__output_code\] ?")


def kernels(log_text):
    """(signature dict, kernel source) for each @triton.jit kernel in the log, in order."""
    lines = [PREFIX.sub("", line) for line in log_text.splitlines() if "[__output_code]" in line]
    found = []
    for i, line in enumerate(lines):
        if line.strip() != "@triton.jit":
            continue
        meta = next(lines[j] for j in range(i - 1, -1, -1) if "triton_meta=" in lines[j])
        signature = ast.literal_eval(re.search(r"'signature': (\{[^}]*\})", meta).group(1))
        body = [line]
        for text in lines[i + 1:]:
            if text.startswith("''', device_str") or (text and not text[0].isspace() and not text.startswith("def ")):
                break
            body.append(text)
        found.append((signature, "\n".join(body) + "\n"))
    return found


def compile_one(signature, source, config, num_warps, workdir, index):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    module_path = Path(workdir) / f"kernel_{index}.py"
    module_path.write_text("import triton\nimport triton.language as tl\n"
                           "from triton.language.extra import libdevice\n\n" + source)
    spec = importlib.util.spec_from_file_location(f"kernel_{index}", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    name = re.search(r"def (\w+)\(", source).group(1)
    pointers = [i for i, kind in enumerate(signature.values()) if kind != "constexpr"]
    attrs = {(i,): [["tt.divisibility", 16]] for i in pointers}
    compiled = triton.compile(ASTSource(fn=getattr(module, name), signature=signature, constexprs=config,
                                        attrs=attrs),
                              target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps, "num_stages": 1})
    return name, compiled.asm["ptx"], compiled.asm["cubin"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("nvdisasm")
    parser.add_argument("--config", default="XBLOCK=1,R0_BLOCK=8192")
    parser.add_argument("--num-warps", type=int, default=16)
    parser.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    args = parser.parse_args(argv)
    config = {key: int(value) for key, value in (item.split("=") for item in args.config.split(","))}
    with tempfile.TemporaryDirectory() as workdir:
        for index, (signature, source) in enumerate(kernels(Path(args.log).read_text())):
            name, ptx, cubin = compile_one(signature, source, config, args.num_warps, workdir, index)
            ptx_path = Path(workdir) / f"k{index}.ptx"
            cubin_path = Path(workdir) / f"k{index}.cubin"
            ptx_path.write_text(ptx)
            cubin_path.write_bytes(cubin)
            usage = subprocess.run([args.ptxas, "-arch=sm_90a", "-v", str(ptx_path), "-o", str(workdir) + "/x.cubin"],
                                   capture_output=True, text=True).stderr
            registers = re.search(r"Used (\d+) registers", usage)
            sass = subprocess.run([args.nvdisasm, "-c", str(cubin_path)], check=True, capture_output=True,
                                  text=True).stdout
            ins = [m.group(1) for m in (re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line) for line in sass.splitlines())
                   if m]
            memory = [text for text in ins if re.match(r"(@!?P\d )?(LDG|STG|BAR|BRA)", text)]
            pointer = next(kind for kind in signature.values() if kind.startswith("*"))
            print(f"{name} ({pointer}, {args.config}, {args.num_warps} warps): "
                  f"{registers.group(1) if registers else '?'} registers, {len(ins)} instructions")
            for text in memory:
                print("   ", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
