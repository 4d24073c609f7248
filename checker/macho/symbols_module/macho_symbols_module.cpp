// The part of the Mach-O reader that needs LIEF, built as a module of its
// own (kcheck_macho_symbols.so) that kcheck loads the first time it meets a
// Mach-O file: loading and initialising LIEF costs more than a small audit
// (issue #17), and most audits never see a Mach-O file. A portable kcheck
// links it in instead (KCHECK_PORTABLE).
#include <LIEF/LIEF.hpp>

#include "checker/macho/macho_symbols.h"

namespace kcheck {
namespace {

// nlist n_type bits (mach-o/nlist.h).
constexpr std::uint8_t kDebugEntry = 0xe0, kPrivateExternal = 0x10, kTypeMask = 0x0e, kExternal = 0x01;
constexpr std::uint8_t kUndefined = 0x0, kDefinedInSection = 0xe;

std::string without_underscore(const std::string& name) { return name.starts_with("_") ? name.substr(1) : name; }

}  // namespace
}  // namespace kcheck

extern "C" KCHECK_MACHO_SYMBOLS_EXPORT void kcheck_read_macho_symbols(const std::vector<std::uint8_t>* bytes,
                                                                      const char* name, kcheck::MachOFacts* facts) {
  using namespace kcheck;
  try {
    // quick(): no walk of the dyld rebase/bind opcodes, which kcheck does not
    // need and where LIEF 0.9 loops for minutes on crafted counts (fuzz_macho).
    std::unique_ptr<LIEF::MachO::FatBinary> binaries =
        LIEF::MachO::Parser::parse(*bytes, name, LIEF::MachO::ParserConfig::quick());
    if (!binaries || binaries->size() == 0) {
      facts->error = "LIEF found no Mach-O image";
      return;
    }
    const LIEF::MachO::Binary& binary = binaries->at(0);
    for (const LIEF::MachO::DylibCommand& library : binary.libraries()) facts->libraries.push_back(library.name());
    // From the nlist symbol table: LIEF 0.9's export-trie view comes back
    // empty on every parse after the first one in a process.
    for (const LIEF::MachO::Symbol& symbol : binary.symbols()) {
      const std::uint8_t type = symbol.type();
      if ((type & kDebugEntry) != 0 || (type & kExternal) == 0 || (type & kPrivateExternal) != 0) continue;
      if ((type & kTypeMask) == kUndefined)
        facts->imported_symbols.push_back(without_underscore(symbol.name()));
      else if ((type & kTypeMask) == kDefinedInSection)
        facts->exported_symbols.push_back(without_underscore(symbol.name()));
    }
  } catch (const std::exception& error) {
    facts->error = std::string("cannot read symbols: ") + error.what();
  } catch (...) {  // nothing may leave an extern "C" function
    facts->error = "cannot read symbols: LIEF failed";
  }
}
