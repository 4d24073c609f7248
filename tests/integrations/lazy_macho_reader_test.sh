#!/usr/bin/env bash
# LIEF is loaded only when kcheck meets a Mach-O file (issue #17: loading it
# cost half of a small audit): not for --version, not for an ELF audit; and
# a Mach-O audit loads the module (kcheck_macho_symbols) and reads symbols
# through it.
#
#   lazy_macho_reader_test.sh KCHECK ELF_VARIANT MACHO_MODULE
set -euo pipefail
kcheck=$1 elf_variant=$2 macho_module=$3
loaded() { LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -E 'file=[^ ]*(libLIEF|kcheck_macho_symbols)' || true; }

[[ -z $(loaded "$kcheck" --version) ]] || { echo "kcheck --version loads LIEF"; exit 1; }
[[ -z $(loaded "$kcheck" --format json "$elf_variant") ]] || { echo "an ELF audit loads LIEF"; exit 1; }
seen=$(loaded "$kcheck" --format json "$macho_module")
grep -q kcheck_macho_symbols <<<"$seen" || { echo "a Mach-O audit did not load the module"; exit 1; }
grep -q libLIEF <<<"$seen" || { echo "a Mach-O audit did not load LIEF"; exit 1; }
report=$("$kcheck" --format json "$macho_module" || true)
if grep -q "could not be loaded" <<<"$report"; then echo "the module was not usable: $report"; exit 1; fi
# Its exports (PyInit_...) come from LIEF: without them KE008, unreadable KE007.
codes=$(python3 -c 'import json,sys; print(" ".join(f["code"] for f in json.load(sys.stdin)["findings"]))' <<<"$report")
if grep -qE 'KE00[78]' <<<"$codes"; then echo "the Mach-O symbols were not read: $report"; exit 1; fi
echo "LIEF loads for Mach-O files only"
