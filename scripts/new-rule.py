#!/usr/bin/env python3
"""Scaffolds a new rule: one command, then fill in the blanks (issue #18).

    scripts/new-rule.py CODE what "Title" [--severity error|warning|note] [--reads FACT,...]

writes, for CODE = KE015 and what = stripped_symbols:
  checker/elf/rules/ke015_stripped_symbols.cpp   the rule: info, explanation, examples, check()
  checker/elf/rules/elf_rule_table.h             its registration line, in code order
  tests/fixtures/trees/ke015_stripped_symbols/              a fixture that must fire it
  tests/fixtures/trees/ke015_stripped_symbols_near_miss/    a near miss that must not
(KC rules: tests/fixtures/config/ instead: build.toml source trees.)

The family comes from the code's prefix (rules/families.toml); --reads
declares the optional facts the rule judges (an ELF table the others skip:
read_only_data, ...), so collect_facts reads them when it is selected; the two fixtures start from the
`cpu-variant` template (tests/fixtures/materialize.py) and expect exactly
"CODE/severity" and nothing. Until the blanks are filled in, the firing
fixture fails its test: that is the point. Then regenerate the rule
catalogue (`kcheck rules --format markdown > docs/rules.md`).

--root DIR writes into another checkout (the test does). Refuses, with
exit 2 and the reason, a malformed code or name, a family it does not know,
a code already taken, and a harness family (KD, KB) whose fixtures are
variants built against Torch (tests/harness_run/fixtures/).
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

# The optional facts a rule may read (OptionalFact in checker/core/rule.h):
# --reads declares them in its RuleInfo, and collect_facts reads them when the
# rule is selected. Nothing else is edited for a new rule.
OPTIONAL_FACTS = ("op_namespaces", "build_leaks", "read_only_data", "device_code", "digest", "needed_closure")


def families(root: pathlib.Path) -> dict[str, dict]:
    """rules/families.toml, the one list of rule families: prefix -> its entry."""
    path = root / "rules" / "families.toml"
    if not path.is_file():
        raise Refusal(f"{path} is missing: is {root} a kcheck checkout?")
    with path.open("rb") as file:
        return {family["prefix"]: family for family in tomllib.load(file)["families"]}


class Refusal(Exception):
    pass


def class_name(what: str) -> str:
    return "".join(part.capitalize() for part in what.split("_"))


def rule_source(code: str, what: str, title: str, severity: str, family: str, reads: list[str]) -> str:
    name = f"{code.lower()}_{what}"
    # RuleInfo's members after the examples: security severity, needs, reads.
    reads_init = (f", 0, RuleNeeds::build, {' | '.join(f'OptionalFact::{fact}' for fact in reads)}"
                  if reads else "")
    return f'''#include "checker/core/policy.h"
#include "checker/facts/tree_facts.h"
#include "checker/{family}/rules/{family}_rule_table.h"

namespace kcheck {{
namespace {{

class {class_name(what)} final : public Rule {{
 public:
  const RuleInfo& info() const override {{ return info_; }}

  void check(const RuleContext& context, FindingSink& sink) const override {{
    // TODO({code}): judge the facts in context.tree against context.policy;
    // for each violation, name the offending thing:
    //   sink.report(Place{{.variant = variant.directory_name, .file = variant.report_path(path)}}, "...");
    (void)context;
    (void)sink;
  }}

 private:
  RuleInfo info_{{
      "{code}", "{title}", Severity::{severity},
      R"(TODO({code}): what the rule flags, and why it matters to a kernel's users.

Fix: TODO({code}): how to fix it.)",
      R"(TODO({code}): a short concrete case the rule flags)",
      R"(TODO({code}): the same case, fixed)"{reads_init}}};
}};

}}  // namespace

std::unique_ptr<Rule> make_{name}() {{ return std::make_unique<{class_name(what)}>(); }}

}}  // namespace kcheck
'''


def add_registration_line(table: pathlib.Path, name: str) -> None:
    """Adds RULE(name) to the table, in code order, with the escaped newlines
    aligned as clang-format aligns them (.clang-format: Google, AlignEscapedNewlines Left)."""
    text = table.read_text(encoding="utf-8")
    macro = re.search(r"#define (KCHECK_\w+_RULES)\(RULE\) *\\\n((?:  RULE\(\w+\) *(?:\\)?\n)+)", text)
    if not macro:
        raise Refusal(f"{table}: no registration table (#define KCHECK_<FAMILY>_RULES(RULE) ...) found")
    names = sorted(re.findall(r"RULE\((\w+)\)", macro.group(2)) + [name])
    lines = [f"#define {macro.group(1)}(RULE)"] + [f"  RULE({entry})" for entry in names]
    width = max(len(line) for line in lines)
    block = "".join(line.ljust(width) + " \\\n" for line in lines[:-1]) + lines[-1] + "\n"
    table.write_text(text[:macro.start(0)] + block + text[macro.end(2):], encoding="utf-8")


def tree_fixture(code: str, severity: str, fires: bool) -> str:
    what = "fires" if fires else "does not fire (a near miss: almost the violation)"
    expect = f'["{code}/{severity}@TODO-file"]' if fires else "[]"
    return f'''description = "TODO({code}): a variant where {code} {what}."
base = "cpu-variant"
variants = ["torch212-cxx11-cpu-x86_64-linux"]
audit = "build/torch212-cxx11-cpu-x86_64-linux"
# Lay the files that make the case over the template under
# build/torch212-cxx11-cpu-x86_64-linux/ (tests/fixtures/materialize.py).
expect = {expect}
'''


def config_fixture(code: str, severity: str, fires: bool) -> tuple[str, str]:
    expect = f'["{code}/{severity}@build.toml"]' if fires else "[]"
    expected = f'''# TODO({code}): a build.toml where {code} {"fires" if fires else "does not fire (a near miss)"}.
expect = {expect}
'''
    build_toml = '''[general]
name = "scaffold"
backends = ["cpu"]

[torch]
src = ["torch-ext/torch_binding.cpp"]
'''
    return expected, build_toml


def scaffold(root: pathlib.Path, code: str, what: str, title: str, severity: str,
             reads: list[str] | None = None) -> list[pathlib.Path]:
    reads = reads or []
    if not re.fullmatch(r"K[A-Z]\d{3}", code):
        raise Refusal(f"'{code}' is not a rule code (K, a family letter, three digits: KE015)")
    if not re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", what):
        raise Refusal(f"'{what}' is not a snake_case name for what the rule checks (stripped_symbols)")
    if not title.strip() or "\n" in title or '"' in title:
        raise Refusal("the title is one line without double quotes")
    unknown = [fact for fact in reads if fact not in OPTIONAL_FACTS]
    if unknown:
        raise Refusal(f"--reads: no optional fact '{unknown[0]}' (known: {', '.join(OPTIONAL_FACTS)})")
    prefix = code[:2]
    known = families(root)
    if prefix not in known:
        raise Refusal(f"no family has the prefix {prefix} (known: {', '.join(sorted(known))})")
    if known[prefix]["judges"] in ("run", "bench"):
        raise Refusal(f"{prefix} rules judge `kcheck run`'s facts: their fixtures are variants built against "
                      "Torch (tests/harness_run/fixtures/); add one by hand as the others are")
    family = known[prefix]["folder"]
    rules_dir = root / "checker" / family / "rules"
    table = rules_dir / f"{family}_rule_table.h"
    if not table.is_file():
        raise Refusal(f"{table} is missing: is {root} a kcheck checkout?")
    taken = sorted(rules_dir.glob(f"{code.lower()}_*.cpp"))
    if taken:
        raise Refusal(f"{code} is taken: {taken[0].relative_to(root)}")
    name = f"{code.lower()}_{what}"
    rule_file = rules_dir / f"{name}.cpp"
    written = [rule_file, table]
    if family == "config":
        fixtures = root / "tests" / "fixtures" / "config"
    else:
        fixtures = root / "tests" / "fixtures" / "trees"
    cases = {fixtures / name: True, fixtures / f"{name}_near_miss": False}
    for case in cases:
        if case.exists():
            raise Refusal(f"{case.relative_to(root)} exists")

    rule_file.write_text(rule_source(code, what, title, severity, family, reads), encoding="utf-8")
    add_registration_line(table, name)
    for case, fires in cases.items():
        case.mkdir(parents=True)
        if family == "config":
            expected, build_toml = config_fixture(code, severity, fires)
            (case / "build.toml").write_text(build_toml, encoding="utf-8")
            written.append(case / "build.toml")
        else:
            expected = tree_fixture(code, severity, fires)
        (case / "expected.toml").write_text(expected, encoding="utf-8")
        written.append(case / "expected.toml")
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("code", help="the new rule's code, e.g. KE015")
    parser.add_argument("what", help="snake_case name of what it checks, e.g. stripped_symbols")
    parser.add_argument("title", help="one-line title, as `kcheck rules` lists it")
    parser.add_argument("--severity", choices=["error", "warning", "note"], default="error")
    parser.add_argument("--reads", default="",
                        help="optional facts the rule judges, comma-separated (" + ", ".join(OPTIONAL_FACTS) +
                        "): collect_facts reads them when the rule is selected")
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                        help="the checkout to write into (default: this one)")
    arguments = parser.parse_args()
    try:
        written = scaffold(arguments.root.resolve(), arguments.code, arguments.what, arguments.title,
                           arguments.severity, [fact for fact in arguments.reads.split(",") if fact])
    except Refusal as refusal:
        print(f"new-rule: {refusal}", file=sys.stderr)
        return 2
    root = arguments.root.resolve()
    sources = [str(path) for path in written if path.suffix in (".cpp", ".h")]
    if shutil.which("clang-format"):  # the tree's style (.clang-format), as the lint check wants it
        subprocess.run(["clang-format", "-i", *sources], check=True, cwd=root)
    else:
        print("new-rule: clang-format is not installed (scripts/setup.sh installs it): format "
              + " ".join(sources) + " before committing", file=sys.stderr)
    for path in written:
        print(f"wrote {path.relative_to(root)}")
    print(f"next: fill in every TODO({arguments.code}), lay the fixtures' files over the template, "
          "rebuild, run ctest, then regenerate docs/rules.md (kcheck rules --format markdown)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
