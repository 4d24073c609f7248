#!/usr/bin/env python3
"""Checks that checker/'s #include and link arrows point only downward (issue #18).

The layers, lowest first (docs/architecture.md draws them):

  support   checker/support/: bounded reads, checked TOML, versions, text
            scanning, the work pool, the embedded files (needs nothing of kcheck)
  core      checker/core/: the model: Finding, Rule, RuleRegistry, Policy, Report
  kinds     checker/kinds/: each analyser's facts types (*_facts.h),
            variant_name.h, a repository's config, how a process ended
            (plain data about one kind of input)
  process   checker/process/: bounded and contained child processes (the
            sandbox); beside the facts, seen only by the top layer
  facts     checker/facts/: TreeFacts, the aggregate of every analyser's facts
  analysers checker/<analyser>/ (readers and collectors) and its rules/ (one
            rule per file, judging TreeFacts against the Policy)
  audit     checker/audit/: collect the facts, judge them (the static audit)
  report    checker/report/: renders a Report (needs only core)
  top       checker/harness/ (runs variants), checker/builder/, checker/scan/

A file may include its own layer and those below, never above; the static
audit includes nothing of the harness but its facts and its rules (so it does
not link the harness), and nothing under checker/ includes cli/. The same
holds for the libraries the top-level CMakeLists.txt makes of checker/'s
folders (kcheck_<folder>): a target_link_libraries (or kcheck_link) of one
may name only libraries of its own layer and those below.

One arrow leaves the product (checker/, cli/, the top-level CMakeLists.txt)
for reference/: to reference/ops/, the op specs and reference implementations
the harness and its worker embed. reference/kernels/ (the reference kernels)
is an input to kcheck, never a part of it.

Usage: scripts/check-layers.py [repository root]. Prints each offending
include or link as path:line and exits 1 when there is one, 0 when there is
none.
"""
import pathlib
import re
import sys
import tomllib



def analyser_folders(root: pathlib.Path) -> set[str]:
    """The analyser folders: every rule family's (rules/families.toml, the one
    list of families) and those without rules of their own (macho)."""
    with (root / "rules" / "families.toml").open("rb") as file:
        table = tomllib.load(file)
    return {family["folder"] for family in table["families"]} | set(table["analysers_without_rules"])


# The analyser folders of the tree being checked (check() reads them).
ANALYSERS: set[str] = set()
RANKS = {"support": 0, "core": 1, "kinds": 2, "process": 3, "facts": 3, "analysers": 4, "audit": 5, "report": 5,
         "top": 6}
INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:checker|cli)/[^"]+)"')
INCLUDE_ANY = re.compile(r'^\s*#\s*include\s+"')
# A path into reference/ other than reference/ops/, as an include or a build path.
REFERENCE_OUTSIDE_OPS = re.compile(r"(?:^|[\s\"'/{}])reference/(?!ops/)[\w.${}-]+")

# The harness's parts the static audit may see: the facts `kcheck run` adds
# and the rules that judge them. Everything else in checker/harness/ runs
# kernels and sits at the top.
HARNESS_BELOW_AUDIT = re.compile(r"^checker/harness/rules/")

# target_link_libraries(<target> [PUBLIC|PRIVATE|INTERFACE] <library>...), or
# kcheck_link(<folder> <library>...), which links kcheck_<folder>.
LINK_CALL = re.compile(r"\b(target_link_libraries|kcheck_link)\s*\(([^)]*)\)")
LINK_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE"}


def layer_of(path: str) -> str:
    parts = path.split("/")
    if parts[0] == "cli":
        return "cli"
    folder = parts[1]
    if folder in ("support", "core", "kinds", "process", "facts"):
        return folder
    if folder in ANALYSERS:
        if folder == "harness" and not HARNESS_BELOW_AUDIT.match(path):
            return "top"
        return "analysers"
    if folder in ("audit", "report"):
        return folder
    if folder in ("builder", "scan"):
        return "top"
    return "unknown"


def library_layer(root: pathlib.Path, library: str) -> str | None:
    """The layer of a library CMakeLists.txt makes of a checker/ folder: kcheck_<folder> holds
    checker/<folder>/, kcheck_harness_rules checker/harness/rules/. None for any other library
    (third-party, an executable, a ${variable}); "unknown" for a checker/ folder in no layer."""
    if not library.startswith("kcheck_"):
        return None
    name = library[len("kcheck_"):]
    folder = "harness/rules" if name == "harness_rules" else name
    layer = layer_of(f"checker/{folder}/library.cpp")
    if layer == "unknown" and not (root / "checker" / folder).is_dir():
        return None  # kcheck_worker, kcheck_tests_*: executables, no checker/ folder
    return layer


def allowed(source_layer: str, target: str) -> bool:
    return layer_allowed(source_layer, layer_of(target))


def layer_allowed(source_layer: str, target_layer: str) -> bool:
    if target_layer in ("cli", "unknown"):
        return False
    if source_layer == "report":  # renders a Report: the model only
        return target_layer in ("support", "core", "report")
    if source_layer == "process":  # runs processes: knows no model but how a process ended
        return target_layer in ("support", "kinds", "process")
    if target_layer == "process":  # only the top layer (harness, builder) runs processes
        return source_layer in ("process", "top")
    return RANKS[target_layer] <= RANKS[source_layer]


def check(root: pathlib.Path) -> list[str]:
    ANALYSERS.clear()
    ANALYSERS.update(analyser_folders(root))
    problems = []
    for file in sorted((root / "checker").rglob("*")):
        if file.suffix not in (".h", ".cpp"):
            continue
        path = file.relative_to(root).as_posix()
        source_layer = layer_of(path)
        if source_layer == "unknown":
            problems.append(f"{path}: in no layer (add its folder to scripts/check-layers.py)")
            continue
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            match = INCLUDE.match(line)
            if match and not allowed(source_layer, match.group(1)):
                problems.append(f"{path}:{number}: {source_layer} includes {match.group(1)} "
                                f"({layer_of(match.group(1))}), a layer above it")
    return problems + upward_links(root) + product_arrows_into_reference(root)


def upward_links(root: pathlib.Path) -> list[str]:
    """Links in the top-level CMakeLists.txt from a checker/ library to one of a layer above it."""
    cmake = root / "CMakeLists.txt"
    if not cmake.exists():
        return []
    code = "\n".join(line.split("#")[0] for line in cmake.read_text(encoding="utf-8").splitlines())
    problems = []
    for call in LINK_CALL.finditer(code):
        words = call.group(2).split()
        if not words:
            continue
        target = ("kcheck_" if call.group(1) == "kcheck_link" else "") + words[0]
        source_layer = library_layer(root, target)
        if source_layer is None:  # not a checker/ library: not judged
            continue
        number = code.count("\n", 0, call.start()) + 1
        if source_layer == "unknown":
            problems.append(f"CMakeLists.txt:{number}: library {target} is in no layer "
                            "(add its folder to scripts/check-layers.py)")
            continue
        for library in words[1:]:
            target_layer = library_layer(root, library)
            if library in LINK_KEYWORDS or target_layer is None:
                continue
            if not layer_allowed(source_layer, target_layer):
                problems.append(f"CMakeLists.txt:{number}: {source_layer} library {target} links {library} "
                                f"({target_layer}), a layer above it")
    return problems


def product_arrows_into_reference(root: pathlib.Path) -> list[str]:
    """Includes (checker/, cli/) and build paths (CMakeLists.txt) into reference/ but reference/ops/."""
    sources = [f for folder in ("checker", "cli") for f in sorted((root / folder).rglob("*")) if f.suffix in (".h", ".cpp")]
    problems = []
    for file in sources + [f for f in [root / "CMakeLists.txt"] if f.exists()]:
        path = file.relative_to(root).as_posix()
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0] if file.name == "CMakeLists.txt" else (line if INCLUDE_ANY.match(line) else "")
            match = REFERENCE_OUTSIDE_OPS.search(code)
            if match:
                target = match.group(0).lstrip(" \t\"'/{}")  # without the character before it
                problems.append(f"{path}:{number}: the product depends on {target}; "
                                f"only reference/ops/ may be part of kcheck")
    return problems


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} arrow(s) point upward; docs/architecture.md shows the layers")
        return 1
    print("checker/ layers: every include and link points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
