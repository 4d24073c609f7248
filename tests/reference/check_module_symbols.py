"""Checks a built native module with binutils' readelf, independently of kcheck:
no imported symbol version above the policy ceilings, no libstdc++ linkage, and
only PyInit_<id> exported.

usage: check_module_symbols.py MODULE.abi3.so GLIBC_CEILING   (e.g. 2.28)
prints one line per check and exits 1 on any failure.
"""
import re
import subprocess
import sys
from pathlib import Path

module = Path(sys.argv[1])
glibc_ceiling = tuple(int(p) for p in sys.argv[2].split("."))
ceilings = {"GLIBC": glibc_ceiling, "GCC": (7, 0, 0)}
dynamic = subprocess.run(["readelf", "-d", "-W", module], capture_output=True, text=True, check=True).stdout
symbols = subprocess.run(["readelf", "--dyn-syms", "-W", module], capture_output=True, text=True, check=True).stdout
failures = []

for family, version in re.findall(r"@(GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)", symbols):
    if family in ("GLIBCXX", "CXXABI"):
        failures.append(f"imports a {family}_{version} symbol: the C++ runtime must be linked statically")
    elif tuple(int(p) for p in version.split(".")) > ceilings[family]:
        failures.append(f"imports {family}_{version}, above {family} {'.'.join(map(str, ceilings[family]))}")
for library in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic):
    if library.startswith(("libstdc++", "libc++")):
        failures.append(f"needs {library}")
if re.search(r"\((RPATH|RUNPATH)\)", dynamic):
    failures.append("has an RPATH/RUNPATH")
exports = [line.split()[-1] for line in symbols.splitlines()
           if re.search(r"\b(GLOBAL|WEAK|UNIQUE)\b", line) and " UND " not in line and "DEFAULT" in line]
expected = "PyInit_" + module.name.split(".")[0]
if exports != [expected]:
    failures.append(f"exports {exports}, expected only {expected}")

for failure in failures:
    print("FAIL", module.name, failure)
print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
sys.exit(1 if failures else 0)
