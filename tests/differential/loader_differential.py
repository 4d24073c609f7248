"""kcheck is at least as strict as the readers that load a kernel (issue #14).

For every file of the metadata and Python fuzz corpora, and every
metadata.json and *.py file of the seed folders fuzz/seed_dirs.txt names for
those targets (test fixtures, reference kernels), the verdict of the real
reader is compared with kcheck's parse step (kcheck_parse_probe):

* metadata.json: the `kernels` package's reader (Metadata.from_bytes, the
  loader's serde_json) against kcheck's JSON parse and schema (KM002);
* Python: CPython's compile() against kcheck's tokenizer and statement
  parser (KP007). kcheck's parser checks the block structure, not the whole
  grammar, so only CPython's refusals at the level kcheck reads (decoding:
  UTF-8, PEP 263, null bytes; and the nesting limits) must be kcheck's too;
  other grammar errors are counted, not failed on. Python 3.12 syntax that
  this interpreter does not know (PEP 701 f-strings) is left out likewise.

The test fails on any input the reference refuses and kcheck accepts, and
lists them.
"""

import argparse
import json
import subprocess
import sys
import warnings
from pathlib import Path

from kernels._rust import Metadata

# CPython's refusals that happen where kcheck's tokenizer reads.
TOKENIZER_LEVEL = (
    "unicode error", "Non-UTF-8", "encoding problem", "null bytes", "source code string cannot contain null bytes",
    "too many nested parentheses", "too many levels of indentation", "too many nested f-strings",
    "invalid utf-8", "unknown encoding",
)


def probe(probe_binary: str, kind: str, files: list[Path]) -> dict[str, dict]:
    verdicts = {}
    for start in range(0, len(files), 500):
        batch = [str(f) for f in files[start:start + 500]]
        out = subprocess.run([probe_binary, kind, *batch], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            verdict = json.loads(line)
            verdicts[verdict["file"]] = verdict
    return verdicts


def loader_refusal(data: bytes) -> str | None:
    try:
        Metadata.from_bytes(data)
    except Exception as error:  # the loader raises ValueError; anything else is a refusal too
        return str(error)
    return None


def compile_refusal(data: bytes) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, "probe.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def seed_files(seed_dirs: Path, target: str, pattern: str) -> list[Path]:
    """The files matching PATTERN under the folders that SEED_DIRS (fuzz/seed_dirs.txt) names for TARGET."""
    root = seed_dirs.resolve().parent.parent
    folders = [root / line.split()[1] for line in seed_dirs.read_text().splitlines()
               if not line.startswith("#") and len(line.split()) == 2 and line.split()[0] == target]
    for folder in folders:
        if not folder.is_dir():
            raise SystemExit(f"{seed_dirs}: no folder {folder}")
    return [p for folder in folders for p in folder.rglob(pattern) if p.is_file()]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--probe", required=True)
    parser.add_argument("--metadata-corpus", type=Path, required=True)
    parser.add_argument("--python-corpus", type=Path, required=True)
    parser.add_argument("--seed-dirs", type=Path, required=True, help="fuzz/seed_dirs.txt")
    args = parser.parse_args()
    misses = []

    metadata_files = sorted([p for p in args.metadata_corpus.iterdir() if p.is_file()]
                            + seed_files(args.seed_dirs, "metadata", "metadata.json"))
    kcheck_metadata = probe(args.probe, "metadata", metadata_files)
    for path in metadata_files:
        refusal = loader_refusal(path.read_bytes())
        if refusal and kcheck_metadata[str(path)]["accepted"]:
            misses.append(f"metadata {path}: the kernels loader refuses it ({refusal}), kcheck accepts it")

    python_files = sorted([p for p in args.python_corpus.iterdir() if p.is_file()]
                          + seed_files(args.seed_dirs, "python", "*.py"))
    kcheck_python = probe(args.probe, "python", python_files)
    grammar_only = 0
    for path in python_files:
        refusal = compile_refusal(path.read_bytes())
        if not refusal or not kcheck_python[str(path)]["accepted"]:
            continue
        if any(marker in refusal for marker in TOKENIZER_LEVEL):
            misses.append(f"python {path}: CPython refuses it ({refusal}), kcheck accepts it")
        else:
            grammar_only += 1

    print(f"{len(metadata_files)} metadata files, {len(python_files)} Python files; "
          f"{grammar_only} Python files refused by CPython's full grammar only (not checked by kcheck's light parser)")
    for miss in misses:
        print(miss)
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
